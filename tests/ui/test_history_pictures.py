"""History leads a stored session with the pictures Results shows: its answer, its verdict plot and its limit bars,
read from the drawn widgets' data (not pixels) and checked against the session's verdicts judged here, apart; the
figures in words wait behind Details."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from nfstune import paths
from nfstune.advice.outcome import SessionOutcome, session_outcome
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.results.ceilings import ceilings_of
from nfstune.results.limit_bars import file_count, limit_bars, stored_ceilings
from nfstune.results.verdict_rows import margins_of, verdict_rows
from nfstune.store import Results, open_store
from nfstune.ui.pages.history import EMPTY, HINT, HistoryPage
from tests.ui.test_history_page import Jobs, select_shown
from tests.unit.verdict_session import store_verdict_session


@pytest.fixture(scope="module")
def recipes() -> dict[str, Recipe]:
    loaded, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in loaded}


@pytest.fixture
def jobs(qtbot: QtBot) -> Iterator[Jobs]:
    jobs = Jobs()
    yield jobs
    qtbot.waitUntil(lambda: not jobs.queue.busy(), timeout=10_000)


def history(qtbot: QtBot, store: Path, jobs: Jobs, recipes: dict[str, Recipe]) -> HistoryPage:
    page = HistoryPage(Results(open_store(store)), store_path=store, background=jobs.background, recipes=recipes)
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    page.resize(1024, 700)
    with qtbot.waitSignal(page.sessions_shown, timeout=10_000):
        page.show()
    return page


@pytest.fixture
def stored(tmp_path: Path, recipes: dict[str, Recipe]) -> tuple[Path, int, SessionOutcome]:
    path = tmp_path / "s.sqlite3"
    results = Results(open_store(path))
    sid = store_verdict_session(results)
    return path, sid, session_outcome(results, sid, recipes)


def test_a_selected_session_leads_with_its_answer_verdict_plot_and_limit_bars(
    qtbot: QtBot, jobs: Jobs, recipes: dict[str, Recipe], stored: tuple[Path, int, SessionOutcome]
) -> None:
    path, sid, outcome = stored
    page = history(qtbot, path, jobs, recipes)
    view = page.session_view
    assert not view.showing_pictures and page.details.isVisible()  # nothing selected: words, what to do
    assert page.details.toPlainText() == HINT
    select_shown(page, qtbot, 0)
    # the session is read off the GUI thread (the regression banner's read may be queued beside it)
    (read,) = [i for i, name in enumerate(jobs.names) if name.startswith("history-session-")]
    assert jobs.threads[read] is not threading.main_thread()

    assert view.answer_label.isVisible()
    head, *rest = outcome.findings.answer.lines
    assert head in view.answer_label.text() and all(line in view.answer_label.text() for line in rest)

    plot = view.verdict_plot
    assert plot is not None and plot.isVisible()
    session = outcome.session
    assert plot.rows == verdict_rows(outcome.groups, margins_of(session, recipes))
    compared = [c for g in outcome.groups for c in g.configs if c.verdict is not None]
    assert len(plot.rows) == len(compared) >= 5 and plot.estimates is not None
    for row, config, point in zip(plot.rows, compared, plot.estimates.points(), strict=True):
        verdict = config.verdict
        assert verdict is not None and verdict.ratio is not None and verdict.ci is not None
        assert (row.label, row.kind, row.ratio, (row.low, row.high)) == (
            config.label,
            verdict.kind,
            verdict.ratio,
            verdict.ci,
        )
        assert math.isclose(point.pos().x(), math.log10(verdict.ratio))

    bars = view.limit_view
    assert bars is not None and bars.isVisible()
    expected = limit_bars(outcome.findings.diagnoses, stored_ceilings(session), file_count(session))
    assert [chart.data for chart in bars.charts] == expected != []
    ceilings = ceilings_of(Results(open_store(path)).session(sid))
    figures = {d.workload: d.figure for d in outcome.findings.diagnoses}
    read = next(chart for chart in bars.charts if chart.data.workload == "seq-read")
    assert read.values == [figures["seq-read"], ceilings.network_from_server, ceilings.disk_read]

    # the figures in words: behind Details, one click away
    assert view.details_button.isVisible() and not page.details.isVisible()
    view.details_button.click()
    assert page.details.isVisible() and f"Session {sid}: completed" in page.details.toPlainText()
    assert view.verdict_plot is not None and view.verdict_plot.isVisible()  # the pictures stay above


def test_two_selected_sessions_compare_in_words_without_pictures(
    qtbot: QtBot, jobs: Jobs, recipes: dict[str, Recipe], stored: tuple[Path, int, SessionOutcome]
) -> None:
    path, sid, _ = stored
    store_verdict_session(Results(open_store(path)))
    page = history(qtbot, path, jobs, recipes)
    select_shown(page, qtbot, 0)
    assert page.session_view.showing_pictures
    page.table.selectAll()
    assert not page.session_view.showing_pictures and page.details.isVisible()
    page.compare_button.click()
    compared = f"Session {sid} (A) and session {sid + 1} (B)"
    qtbot.waitUntil(lambda: compared in page.details.toPlainText(), timeout=10_000)
    assert not page.session_view.answer_label.isVisible() and not page.session_view.details_button.isVisible()


def test_with_no_session_stored_the_details_say_how_to_get_one(
    qtbot: QtBot, jobs: Jobs, recipes: dict[str, Recipe], tmp_path: Path
) -> None:
    page = history(qtbot, tmp_path / "empty.sqlite3", jobs, recipes)
    assert page.details.isVisible() and page.details.toPlainText() == EMPTY
    assert not page.session_view.showing_pictures and page.session_view.verdict_plot is None
