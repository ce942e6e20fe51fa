"""History with a watch's findings, on a real store: six watched first looks a week apart, the last three on a
slower link; the banner above the list says what got slower, since which session and the likely cause, and its
button opens that pair's trend, where the change point is a lettered line on every chart, a triangle on each
workload that moved, and a line below the charts. Six unchanged first looks: no banner, no change point."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel
from pytestqt.qtbot import QtBot

from nfstune.store import Results, open_store
from nfstune.ui.pages.history import HistoryPage
from tests.ui.test_history_page import Jobs
from tests.unit.trend_sessions import shipped_recipes, use_clock
from tests.unit.watch_sessions import store_watch_series


@pytest.fixture
def jobs(qtbot: QtBot) -> Iterator[Jobs]:
    jobs = Jobs()
    yield jobs
    qtbot.waitUntil(lambda: not jobs.queue.busy(), timeout=10_000)


def shown_page(qtbot: QtBot, jobs: Jobs, path: Path) -> HistoryPage:
    page = HistoryPage(
        Results(open_store(path)), recipes=shipped_recipes(), store_path=path, background=jobs.background
    )
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    page.resize(1024, 700)
    with qtbot.waitSignal(page.sessions_shown, timeout=10_000):
        page.show()
    qtbot.waitUntil(lambda: not jobs.queue.busy(), timeout=10_000)  # the regressions, read after the list
    return page


def test_an_open_regression_heads_history_and_its_trend_marks_the_change_point(
    qtbot: QtBot, jobs: Jobs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite3"
    ids = store_watch_series(Results(open_store(path)), use_clock(monkeypatch), slower_from=4)
    page = shown_page(qtbot, jobs, path)
    banner = page.banner
    assert banner.isVisible()
    heading = banner.heading.text()
    assert heading.startswith(f"Slower since session {ids[3]} (") and heading.endswith(
        "): lab nas → lab client: /export"
    )
    details = banner.details.text()
    assert details.startswith("seq-write 3.1x slower, seq-read 47 % slower; ")
    assert details.endswith(
        "likely cause: the network measured 7.1x slower (client to server) and 6.7x slower (server to client)."
    )
    assert banner.geometry().bottom() < page.table.mapTo(page, page.table.rect().topLeft()).y()  # above the list
    banner.trend_button.click()
    assert page.bottom_tabs.currentWidget() is page.trend
    chart = page.trend.chart
    qtbot.waitUntil(lambda: bool(chart.change_lines) and not jobs.queue.busy(), timeout=10_000)
    started = {sid: t for sid, t, _ in chart.figures("seq-read")}
    for workload, lines in chart.change_lines.items():
        (line,) = lines  # one change point, on every chart (a ceiling's change concerns them all)
        assert line.value() == started[ids[3]] and line.label.format == "A", workload
    # the triangle sits on the point of each workload that moved there, and only those
    assert sorted(chart.change_markers) == ["seq-read", "seq-write"]
    (marker,) = chart.change_markers["seq-read"].points()
    assert (marker.pos().x(), marker.pos().y()) == next((t, y) for s, t, y in chart.figures("seq-read") if s == ids[3])
    below = page.trend.changes.toPlainText()
    assert f"A. From session {ids[3]} (" in below and "seq-read 19.2 → 10.2 MB/s (47 % slower)" in below


def test_unchanged_first_looks_raise_no_banner_and_mark_nothing(
    qtbot: QtBot, jobs: Jobs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite3"
    store_watch_series(Results(open_store(path)), use_clock(monkeypatch), slower_from=None)
    page = shown_page(qtbot, jobs, path)
    assert not page.banner.isVisible()
    page.bottom_tabs.setCurrentWidget(page.trend)
    chart = page.trend.chart
    qtbot.waitUntil(lambda: bool(chart.plots) and not jobs.queue.busy(), timeout=10_000)
    assert all(lines == [] for lines in chart.change_lines.values()) and chart.change_markers == {}
    assert "No change point" in page.trend.changes.toPlainText()


# History's share of a 1024x700 window, less the window's menu and tabs (652 px on the desktop's style)
PAGE_AT_1024 = (1024, 640)


def whole_rows(page: HistoryPage) -> list[int]:
    """The rows the list shows whole, top to bottom."""
    viewport = page.table.viewport().rect()
    rows = range(page.model.rowCount())
    return [r for r in rows if viewport.contains(page.table.visualRect(page.model.index(r, 0)))]


def test_with_the_banner_and_the_trend_the_list_shows_four_rows_and_the_selected_one_whole(
    qtbot: QtBot, jobs: Jobs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite3"
    ids = store_watch_series(Results(open_store(path)), use_clock(monkeypatch), slower_from=4, count=9)
    page = shown_page(qtbot, jobs, path)
    page.resize(*PAGE_AT_1024)
    page.bottom_tabs.setCurrentWidget(page.trend)
    qtbot.waitUntil(lambda: bool(page.trend.chart.plots) and not jobs.queue.busy(), timeout=10_000)
    assert page.banner.isVisible()
    qtbot.waitUntil(lambda: len(whole_rows(page)) >= 4, timeout=5_000)
    # the oldest session, last in the list (newest first), selected by the program: scrolled to, not left below
    oldest = next(r for r in range(page.model.rowCount()) if page.model.session_at(r).id == ids[0])
    assert oldest not in whole_rows(page)
    # as a selection kept over a read is set: by the selection model, which moves no current row (selectRow would)
    flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
    page.table.selectionModel().select(page.model.index(oldest, 0), flags)
    qtbot.waitUntil(lambda: oldest in whole_rows(page), timeout=5_000)
    assert len(whole_rows(page)) >= 4


def test_every_trend_title_fits_its_chart_at_1024_px(
    qtbot: QtBot, jobs: Jobs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite3"
    store_watch_series(Results(open_store(path)), use_clock(monkeypatch), slower_from=4)
    page = shown_page(qtbot, jobs, path)
    page.resize(1366, 700)  # wide enough for every title on one line first, then narrower: fitted again
    page.bottom_tabs.setCurrentWidget(page.trend)
    chart = page.trend.chart
    qtbot.waitUntil(lambda: len(chart.plots) == 4 and not jobs.queue.busy(), timeout=10_000)
    page.resize(*PAGE_AT_1024)

    def fits() -> bool:
        """Each title within its chart, each chart within the view (not run past its right edge)."""
        view = chart.graphics.viewport().width()
        for plot in chart.plots.values():
            title, bounds = plot.titleLabel.item.sceneBoundingRect(), plot.sceneBoundingRect()
            if not (bounds.left() <= title.left() and title.right() <= bounds.right() <= view):
                return False
        return True

    qtbot.waitUntil(lambda: chart.graphics.viewport().width() < 1024 and fits(), timeout=5_000)
    tips = {workload: plot.titleLabel.toolTip() for workload, plot in chart.plots.items()}
    assert tips["seq-write"] == "seq-write (MB/s; higher is better)"  # the whole title, whatever is drawn
    assert tips["small-files"] == "small-files (s; lower is better)"
