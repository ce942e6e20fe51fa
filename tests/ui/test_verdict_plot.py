"""The Results page leads with the verdict plot and the limit bars: what they draw is the session's verdicts and
ceilings, read from the drawn items' data (not pixels); every sentence and table waits behind Details."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from nfstune import paths
from nfstune.advice.outcome import SessionOutcome, session_outcome
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.results.ceilings import ceilings_of
from nfstune.results.summary import planned_margins
from nfstune.results.verdict_rows import ratio_ticks
from nfstune.store import Results, open_store
from nfstune.ui.pages.results import ResultsPage
from nfstune.ui.widgets.verdict_plot import spaced
from tests.unit.verdict_session import store_verdict_session


@pytest.fixture(scope="module")
def recipes() -> dict[str, Recipe]:
    loaded, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in loaded}


@pytest.fixture
def shown(qtbot: QtBot, tmp_path: Path, recipes: dict[str, Recipe]) -> tuple[ResultsPage, Results, int, SessionOutcome]:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid = store_verdict_session(results)
    outcome = session_outcome(results, sid, recipes)
    page = ResultsPage()
    qtbot.addWidget(page)
    page.resize(1024, 700)
    page.show()
    page.show_session(results.stored_session(sid), outcome, recipes)
    return page, results, sid, outcome


def test_the_verdict_plot_draws_each_comparisons_verdict(
    shown: tuple[ResultsPage, Results, int, SessionOutcome],
) -> None:
    from nfstune.ui.widgets.verdict_plot import EXPECTED_SAME, KIND_PLOT_COLOURS

    page, results, sid, outcome = shown
    plot = page.verdict_plot
    assert plot is not None and plot.isVisible() and plot.estimates is not None
    assert plot.band is not None and plot.intervals is not None
    compared = [(g, c) for g in outcome.groups for c in g.configs if c.verdict is not None]
    margins = planned_margins(results.session(sid))
    points = plot.estimates.points()
    assert len(points) == len(compared) == len(plot.names)
    band = plot.band.opts
    for i, (group, config) in enumerate(compared):
        verdict = config.verdict
        assert verdict is not None and verdict.ratio is not None and verdict.ci is not None
        name = f"{group.recipe} / {group.workload}: {config.label} vs {config.against}"
        assert plot.names[i] == name + (EXPECTED_SAME if config.same_as_baseline is not None else "")
        point = points[i]
        assert math.isclose(point.pos().x(), math.log10(verdict.ratio)) and point.pos().y() == -i
        assert point.brush().color().name() == KIND_PLOT_COLOURS[verdict.kind]
        assert point.data() == verdict.text  # its tooltip
        assert math.isclose(plot.intervals.opts["x0"][i], math.log10(verdict.ci[0]))
        assert math.isclose(plot.intervals.opts["x1"][i], math.log10(verdict.ci[1]))
        margin = math.log10(1 + margins[group.recipe] / 100)
        assert math.isclose(band["x1"][i], margin) and math.isclose(band["x0"][i], -margin)
    words = dict(plot.x_ticks)
    assert words[1.0] == "same"
    assert any(w.endswith("slower") for w in words.values()) and any(w.endswith("faster") for w in words.values())
    assert {"faster", "slower", "same", "not settled"} <= {c.verdict.kind for _, c in compared if c.verdict}


def test_the_limit_bars_are_each_workloads_figure_and_stored_ceilings(
    shown: tuple[ResultsPage, Results, int, SessionOutcome],
) -> None:
    page, results, sid, outcome = shown
    view = page.limit_view
    assert view is not None and view.isVisible()
    ceilings = ceilings_of(results.session(sid))
    charts = {c.data.workload: c for c in view.charts}
    figures = {d.workload: d.figure for d in outcome.findings.diagnoses}
    read = charts["seq-read"]
    assert read.values == [figures["seq-read"], ceilings.network_from_server, ceilings.disk_read]
    assert read.texts[2] == "not measured"
    assert charts["sync-4k"].values == [figures["sync-4k"], ceilings.round_trip_ms, ceilings.sync_write_ms]
    assert "held by the disk flush" in charts["sync-4k"].title.text()


def test_every_sentence_waits_behind_details(shown: tuple[ResultsPage, Results, int, SessionOutcome]) -> None:
    page, *_ = shown
    assert page.answer_label.isVisible() and not page.tabs.isVisible() and not page.diagnosis_label.isVisible()
    page.details_button.setChecked(True)
    assert page.tabs.isVisible() and page.diagnosis_label.isVisible()
    assert "quick-check" in page.verdict_labels


def test_tick_words_fit_the_axis_so_a_narrow_plot_still_reads_both_ways() -> None:
    # 1.3 decades each way in 200 px (the Run page's narrow column): the round ratios at the ends would be cut at
    # the axis' ends (pyqtgraph drops such words), so nearer ones are kept instead, each wholly inside the axis
    def width_of(words: str) -> int:
        return 7 * len(words)

    half, per_decade = 100.0, 100.0 / 1.3
    assert spaced(ratio_ticks(0.09, 15.0), per_decade, width_of, half) == [(1.0, "same")]  # "5x faster" is long
    kept = spaced(ratio_ticks(0.09, 15.0, short=True), per_decade, width_of, half)  # so the plot asks for "5x"
    assert any(r > 1 for r, _ in kept) and any(r < 1 for r, _ in kept)
    for ratio, words in kept:
        assert abs(math.log10(ratio) * per_decade) + width_of(words) / 2 <= half


def test_one_very_wide_interval_does_not_squeeze_the_axis_of_the_others() -> None:
    from nfstune.results.verdict_rows import INTERVAL_REACH, VerdictRow, ratio_span

    def row(ratio: float, low: float, high: float) -> VerdictRow:
        return VerdictRow("r", "w", "c", "base", ratio, low, high, 5.0, "not settled", False, "")

    narrow = row(1.5, 1.2, 1.9)
    wide = row(1.0, 1e-3, 1e3)  # two rounds in a large family
    low, high = ratio_span([narrow, wide])
    assert high == pytest.approx(1.5 * INTERVAL_REACH) and low == pytest.approx(0.9 / INTERVAL_REACH)
    assert ratio_span([narrow]) == (pytest.approx(0.9), pytest.approx(1.9))  # the interval inside: all of it shown
