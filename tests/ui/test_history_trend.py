"""History's Trend tab on a real store: sessions of one pair weeks apart (the NAS upgraded before the third), each
workload's figures as points at their dates, a mark where the settings in force changed, the selected session drawn
larger, another pair picked in the box; the store read on a worker thread, and only once the tab shows."""

from __future__ import annotations

import statistics
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel
from pytestqt.qtbot import QtBot

from nfstune.store import Results, open_store
from nfstune.ui.pages.history import HistoryPage
from nfstune.ui.pages.history_trend import JOB
from tests.ui.test_history_page import Jobs
from tests.unit.trend_sessions import (
    DAY,
    LAB_NAS,
    UPGRADED_NAS,
    Clock,
    first_look,
    shipped_recipes,
    store_session,
    use_clock,
)

WEEKS = [
    {"seq-write": [31.0, 29.5], "seq-read": [60.0, 58.0, 61.0, 59.0, 62.0, 60.5], "sync-4k": [9.1, 8.7]},
    {"seq-write": [27.0, 28.0], "seq-read": [57.0, 59.0, 58.5, 56.0, 58.0, 57.5], "sync-4k": [9.4, 9.0]},
    {"seq-write": [36.0, 37.5], "seq-read": [66.0, 64.0, 65.0, 67.0, 63.5, 65.5], "sync-4k": [7.9, 8.1]},
]


@pytest.fixture
def jobs(qtbot: QtBot) -> Iterator[Jobs]:
    jobs = Jobs()
    yield jobs
    qtbot.waitUntil(lambda: not jobs.queue.busy(), timeout=10_000)


@pytest.fixture
def stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Results, list[int], int, float]:
    """Three first looks a week apart on lab nas → lab client: /export, the NAS upgraded before the third; a
    failed one after them; and one on another share. Returns the store, the three ids, the other share's, and the
    third's start."""
    clock: Clock = use_clock(monkeypatch)
    results = Results(open_store(tmp_path / "s.sqlite3"))
    ids = []
    for week, figures in enumerate(WEEKS):
        ids.append(store_session(results, first_look(figures), nas=UPGRADED_NAS if week == 2 else LAB_NAS))
        third = clock.now
        clock.now += 7 * DAY
    store_session(results, first_look(WEEKS[0]), nas=UPGRADED_NAS, status="failed")
    clock.now += DAY
    other = store_session(results, first_look(WEEKS[1]), share="/srv/media", nas=UPGRADED_NAS)
    return results, ids, other, third


@pytest.fixture
def page(qtbot: QtBot, tmp_path: Path, jobs: Jobs, stored: tuple[Results, list[int], int, float]) -> HistoryPage:
    widget = HistoryPage(
        stored[0], recipes=shipped_recipes(), store_path=tmp_path / "s.sqlite3", background=jobs.background
    )
    # a selection's outcome is judged by a job: it ends, and shows, before the page is closed
    qtbot.addWidget(widget, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    widget.resize(1024, 700)
    with qtbot.waitSignal(widget.sessions_shown, timeout=10_000):  # shown, it reads the list on a worker thread
        widget.show()
    return widget


def select_session(page: HistoryPage, session_id: int) -> None:
    (row,) = [r for r in range(page.model.rowCount()) if page.model.index(r, 0).data() == str(session_id)]
    flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
    page.table.selectionModel().select(page.model.index(row, 0), flags)


def show_trend(page: HistoryPage, qtbot: QtBot, jobs: Jobs) -> None:
    page.bottom_tabs.setCurrentWidget(page.trend)
    qtbot.waitUntil(lambda: bool(page.trend.chart.plots) and not jobs.queue.busy(), timeout=10_000)


def test_the_trend_of_the_selected_sessions_pair_with_its_marks(
    page: HistoryPage, qtbot: QtBot, jobs: Jobs, stored: tuple[Results, list[int], int, float]
) -> None:
    _, ids, _, third = stored
    select_session(page, ids[1])
    # nothing read for the trend while its tab is hidden (the list was read)
    assert not [n for n in jobs.names if n.startswith(JOB)]
    show_trend(page, qtbot, jobs)
    trend_threads = [t for t, name in zip(jobs.threads, jobs.names, strict=True) if name.startswith(JOB)]
    assert trend_threads and all(t is not threading.main_thread() for t in trend_threads)
    chart = page.trend.chart
    assert list(chart.plots) == ["seq-write", "seq-read", "sync-4k"]
    for workload in chart.plots:
        figures = chart.figures(workload)
        assert [sid for sid, _, _ in figures] == ids  # the failed session and the other share are not in it
        assert [y for _, _, y in figures] == pytest.approx([statistics.median(w[workload]) for w in WEEKS])
        dates = [t for _, t, _ in figures]
        assert dates[2] == third and dates[2] - dates[1] == dates[1] - dates[0] == 7 * DAY
        (line,) = chart.mark_lines[workload]  # nothing changed between the first two
        assert line.value() == third
        assert line.label.format == "1"  # the list under the charts: the first change
        assert line.toolTip().startswith(f"1: session {ids[2]}: NAS system ")
        highlight = chart.highlights[workload].points()
        assert [(p.pos().x(), p.pos().y()) for p in highlight] == [figures[1][1:]]  # the selected session
        rounds = sorted((p.pos().x(), p.pos().y()) for p in chart.rounds[workload].points())
        assert rounds == sorted((t, v) for (_, t, _), week in zip(figures, WEEKS, strict=True) for v in week[workload])
    # 6 rounds give the median an interval (from the lowest round to the highest); 2 do not
    bars = chart.intervals["seq-read"]
    assert list(bars.opts["y"] + bars.opts["top"]) == [max(w["seq-read"]) for w in WEEKS]
    assert list(bars.opts["y"] - bars.opts["bottom"]) == [min(w["seq-read"]) for w in WEEKS]
    assert "seq-write" not in chart.intervals
    assert page.trend.pairs.count() == 2
    assert page.trend.pairs.currentText() == "lab nas → lab client: /export (3 sessions)"
    changes = page.trend.changes.toPlainText()
    assert f"1. session {ids[2]}, " in changes and "NAS nfs-utils 2.6.2 \u2192 2.8.3" in changes
    assert changes.count("NAS kernel") == 1  # one change of the host, listed once for every chart it shows on


def test_another_pair_from_the_box_and_the_selection_follows_the_session(
    page: HistoryPage, qtbot: QtBot, jobs: Jobs, stored: tuple[Results, list[int], int, float]
) -> None:
    _, ids, other, _ = stored
    select_session(page, ids[0])
    show_trend(page, qtbot, jobs)
    other_index = page.trend.pairs.findText("lab nas → lab client: /srv/media (1 session)")
    assert other_index >= 0
    page.trend.pairs.setCurrentIndex(other_index)
    page.trend.pairs.activated.emit(other_index)
    qtbot.waitUntil(lambda: [s for s, _, _ in page.trend.chart.figures("seq-write")] == [other], timeout=10_000)
    assert page.trend.chart.mark_lines["seq-write"] == []  # one session: nothing to change from
    assert "No change" in page.trend.changes.toPlainText()
    select_session(page, ids[2])  # a session of the first pair: its pair again
    qtbot.waitUntil(lambda: len(page.trend.chart.figures("seq-write")) == 3, timeout=10_000)
    assert page.trend.pairs.currentText().startswith("lab nas → lab client: /export")
    assert chart_selected(page) == ids[2]


def chart_selected(page: HistoryPage) -> int:
    (point,) = page.trend.chart.highlights["seq-write"].points()
    (match,) = [s for s, t, _ in page.trend.chart.figures("seq-write") if t == point.pos().x()]
    return match


def test_an_empty_store_says_what_a_trend_needs(qtbot: QtBot, tmp_path: Path, jobs: Jobs) -> None:
    path = tmp_path / "empty.sqlite3"
    page = HistoryPage(Results(open_store(path)), store_path=path, background=jobs.background)
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    page.show()
    page.bottom_tabs.setCurrentWidget(page.trend)
    qtbot.waitUntil(lambda: "No completed session yet" in page.trend.status.text(), timeout=10_000)
    assert page.trend.chart.plots == {} and page.trend.pairs.count() == 0


def test_shown_again_it_reads_the_sessions_stored_meanwhile(
    page: HistoryPage, qtbot: QtBot, jobs: Jobs, stored: tuple[Results, list[int], int, float]
) -> None:
    results, ids, _, _ = stored
    select_session(page, ids[2])
    show_trend(page, qtbot, jobs)
    page.bottom_tabs.setCurrentWidget(page.session_view)
    newest = store_session(results, first_look(WEEKS[2]), nas=UPGRADED_NAS)  # a run ends while Details shows
    show_trend(page, qtbot, jobs)
    qtbot.waitUntil(lambda: len(page.trend.chart.figures("seq-write")) == 4, timeout=10_000)
    assert page.trend.chart.figures("seq-write")[-1][0] == newest
    assert page.trend.chart.mark_lines["seq-write"][0].value() == page.trend.chart.figures("seq-write")[2][1]
