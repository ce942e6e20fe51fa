"""The Results page of a session whose sync-4k is judged by its typical write: the tail's (p99) verdict is a row of its
own on the verdict plot, right after the typical write's, and a line of the table's verdict cell; the table says
what the figures are and shows the mean and the p99 under the typical write. Read from the drawn items and cells."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from nfstune.advice.outcome import session_outcome
from nfstune.recipes.model import Recipe
from nfstune.store import Results, open_store
from nfstune.ui.pages.results import ResultsPage
from nfstune.ui.widgets.verdict_plot import KIND_PLOT_COLOURS
from tests.unit.latency_session import store_latency_session
from tests.unit.trend_sessions import shipped_recipes

NCONNECT = "tcp, nconnect=4"


@pytest.fixture(scope="module")
def recipes() -> dict[str, Recipe]:
    return shipped_recipes()


def test_the_tail_is_drawn_beside_the_typical_write(qtbot: QtBot, tmp_path: Path, recipes: dict[str, Recipe]) -> None:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid = store_latency_session(results)
    outcome = session_outcome(results, sid, recipes)
    page = ResultsPage()
    qtbot.addWidget(page)
    page.resize(1024, 700)
    page.show()
    page.show_session(results.stored_session(sid), outcome, recipes)
    plot = page.verdict_plot
    assert plot is not None and plot.estimates is not None
    assert plot.names == [
        f"transport / sync-4k: {NCONNECT} vs tcp",
        f"transport / sync-4k, tail (p99): {NCONNECT} vs tcp",
    ]
    (group,) = outcome.groups
    config = group.config(NCONNECT)
    assert config is not None and config.verdict is not None and config.tail_verdict is not None
    typical, tail = plot.estimates.points()
    assert math.isclose(tail.pos().x(), math.log10(config.tail_verdict.ratio or 0)) and tail.pos().y() == -1
    assert typical.brush().color().name() == KIND_PLOT_COLOURS["same"]
    assert tail.brush().color().name() == KIND_PLOT_COLOURS["slower"]
    assert tail.data() == config.tail_verdict.text
    details = page.details
    table = details.tables[("transport", "sync-4k")]
    cells = {table.item(row, 0).text(): row for row in range(table.rowCount())}
    row = cells[NCONNECT]
    header = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert header[4:6] == ["Against the baseline", "Tail (p99) against the baseline"]
    assert table.item(row, 4).text().startswith("no difference that matters\n")
    assert table.item(row, 5).text().startswith("slower\n2.7x slower")
    assert table.item(row, 5).toolTip() == config.tail_verdict.text
    assert table.item(cells["tcp"], 5).text() == "baseline"
    median = table.item(row, 1).text().splitlines()
    assert [line.split()[0] for line in median] == [median[0].split()[0], "mean", "p99"]
    words = details.verdict_labels["transport"].text()
    assert words.index("no difference that matters") < words.index("sync-4k, tail (p99):")
