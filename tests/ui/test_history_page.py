"""The history page on a real store: the session list, a session's figures, two sessions compared, the exports."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, QPersistentModelIndex, QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from nfstune.store import Results, SessionRow, open_store
from nfstune.ui.jobs import Job, JobQueue
from nfstune.ui.pages.history import HistoryPage
from nfstune.ui.pages.history_list import COLUMNS, SessionTableModel
from tests.unit.test_summary import FIRST_SESSION, SECOND_SESSION, store_session


class Jobs:
    """What the desktop gives the page to run the HTML report with (the controller's start_job, on no host): a
    real job queue, noting the thread each job's work ran on."""

    def __init__(self) -> None:
        self.queue = JobQueue()
        self.threads: list[threading.Thread] = []
        self.names: list[str] = []  # each job's name, in the order their work began (beside `threads`)
        self._lock = threading.Lock()  # jobs run side by side: a name and its thread are noted together

    def background(
        self, name: str, work: Callable[[Job], Any], done: Callable[[Any], None], failed: Callable[[str], None]
    ) -> Job:
        def traced(job: Job) -> Any:
            with self._lock:
                self.threads.append(threading.current_thread())
                self.names.append(name)
            return work(job)

        job = Job(name, traced)
        job.on_gui_thread(job.finished, done)
        job.on_gui_thread(job.failed, failed)
        return self.queue.add(job)


@pytest.fixture
def jobs(qtbot: QtBot) -> Iterator[Jobs]:
    jobs = Jobs()
    yield jobs
    qtbot.waitUntil(lambda: not jobs.queue.busy(), timeout=10_000)  # no job outlives its test


@pytest.fixture
def page(qtbot: QtBot, tmp_path: Path, jobs: Jobs) -> HistoryPage:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    store_session(results, FIRST_SESSION)
    store_session(results, SECOND_SESSION, status="failed")
    widget = HistoryPage(results, store_path=tmp_path / "s.sqlite3", background=jobs.background)
    # a selection's outcome is judged by a job: it ends, and shows, before the page is closed
    qtbot.addWidget(widget, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    widget.resize(1366, 768)
    with qtbot.waitSignal(widget.sessions_shown, timeout=10_000):  # shown, it reads the list on a worker thread
        widget.show()
    return widget


def cell(page: HistoryPage, row: int, column: str) -> str:
    return str(page.model.index(row, COLUMNS.index(column)).data())


def select_rows(page: HistoryPage, *rows: int) -> None:
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    page.table.clearSelection()
    for row in rows:
        page.table.selectionModel().select(page.model.index(row, 0), flags)


def select_shown(page: HistoryPage, qtbot: QtBot, row: int) -> None:
    """One session selected, and its figures shown once its outcome, worked out on a worker thread, is back."""
    with qtbot.waitSignal(page.details_shown, timeout=10_000):
        select_rows(page, row)


def save_to(page: HistoryPage, path: Path) -> list[str]:
    """Replace the save dialog by one that answers `path`; returns the titles it was asked with."""
    titles: list[str] = []

    def dialog(parent: object, title: str, suggested: str, file_filter: str) -> tuple[str, str]:
        titles.append(title)
        return str(path), file_filter

    page.ask_save_path = dialog
    return titles


def test_lists_the_sessions_newest_first_and_sorts(page: HistoryPage) -> None:
    assert page.model.rowCount() == 2
    assert [cell(page, r, "Session") for r in (0, 1)] == ["2", "1"]
    assert [cell(page, r, "Status") for r in (0, 1)] == ["failed", "completed"]
    assert cell(page, 1, "Server → client") == "nas → client"
    assert cell(page, 1, "Recipes") == "block-size, sync-vs-async"
    page.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert [cell(page, r, "Session") for r in (0, 1)] == ["1", "2"]
    assert not page.compare_button.isEnabled() and not page.export_buttons["csv"].isEnabled()


def click_header(page: HistoryPage, column: str) -> None:
    """A click on a column's header, as the admin sorts the list."""
    header = page.table.horizontalHeader()
    section = COLUMNS.index(column)
    middle = QPoint(header.sectionViewportPosition(section) + header.sectionSize(section) // 2, header.height() // 2)
    QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, middle)


def test_the_header_sorts_with_its_indicator_and_the_selection_follows_its_session(
    page: HistoryPage, qtbot: QtBot
) -> None:
    header = page.table.horizontalHeader()
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (0, Qt.SortOrder.DescendingOrder)
    select_shown(page, qtbot, 0)  # session 2, failed
    page.table.setCurrentIndex(page.model.index(0, 0))
    click_header(page, "Status")
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (2, Qt.SortOrder.AscendingOrder)
    assert [cell(page, r, "Status") for r in (0, 1)] == ["completed", "failed"]
    assert page.selected_ids() == [2]
    assert [i.row() for i in page.table.selectionModel().selectedRows()] == [1]  # the row moved, and its selection
    assert page.table.currentIndex().row() == 1  # the keyboard goes on from it
    click_header(page, "Status")  # again: the other way
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert [cell(page, r, "Session") for r in (0, 1)] == ["2", "1"] and page.selected_ids() == [2]
    assert "Session 2: failed" in page.details.toPlainText()  # still its figures


def session_row(session_id: int, started_at: float, status: str) -> SessionRow:
    return SessionRow(session_id, started_at, None, status, "/export", "small", ["quick-check"], "nas", "pc", None)


def test_the_model_sorts_ids_and_times_as_numbers_and_ties_keep_the_stores_order(qtbot: QtBot) -> None:
    model = SessionTableModel()
    # as the store reads them: newest first; 9 started last (a clock set back), 10 and 11 failed
    model.set_sessions(
        [session_row(11, 1000.0, "failed"), session_row(10, 900.0, "failed"), session_row(9, 9000.0, "completed")]
    )
    ids = lambda: [model.session_at(r).id for r in range(model.rowCount())]  # noqa: E731
    assert ids() == [11, 10, 9]  # not sorted yet: the store's order
    followed = QPersistentModelIndex(model.index(1, 3))  # session 10, as a selection holds it
    model.sort(COLUMNS.index("Session"), Qt.SortOrder.AscendingOrder)
    assert ids() == [9, 10, 11]  # as text, "10" < "11" < "9"
    assert (followed.row(), followed.column()) == (1, 3)
    model.sort(COLUMNS.index("Started"), Qt.SortOrder.AscendingOrder)
    assert ids() == [10, 11, 9]
    assert followed.row() == 0 and model.data(model.index(0, 0)) == "10"
    model.sort(COLUMNS.index("Status"), Qt.SortOrder.DescendingOrder)
    assert ids() == [11, 10, 9]  # the failed ones tie: the store's order, whatever was sorted before
    model.sort(COLUMNS.index("Status"), Qt.SortOrder.AscendingOrder)
    assert ids() == [9, 11, 10]
    model.set_sessions([session_row(12, 1100.0, "completed"), *(model.session_at(r) for r in (1, 2, 0))])
    assert ids() == [12, 9, 11, 10]  # a refresh: the rows read sorted as the header says


def test_one_selected_session_shows_its_figures(page: HistoryPage, qtbot: QtBot, jobs: Jobs) -> None:
    select_rows(page, 1)  # session 1
    assert page.details.toPlainText() == "Reading session 1…"  # judged on a worker thread, not here
    qtbot.waitUntil(lambda: "Session 1: completed" in page.details.toPlainText(), timeout=10_000)
    judged = [t for t, name in zip(jobs.threads, jobs.names, strict=True) if name.startswith("history-session-")]
    assert judged and all(t is not threading.main_thread() for t in judged)
    text = page.details.toPlainText()
    assert "Session 1: completed" in text
    assert "8.95 s" in text and "2.05 s" in text  # the small-files medians of sync and async
    # the kind in words, then the verdict's sentence with its CI
    assert "faster: async is 4.3x faster than sync (95 % CI " in text
    assert "no difference that matters: async: no difference that matters against sync (within \u00b15 %" in text
    assert "significant" not in text
    assert "requested vers=4.2,rsize=8192,wsize=8192 · negotiated vers=4.2,rsize=8192,wsize=8192" in text
    assert "rsize=32K (failed)" in text and "no completed repeats" in text
    assert not page.compare_button.isEnabled() and page.export_buttons["html"].isEnabled()


def test_the_last_session_selected_is_the_one_shown_and_a_refresh_keeps_it(
    page: HistoryPage, qtbot: QtBot, jobs: Jobs
) -> None:
    select_rows(page, 0)  # session 2: judged on a worker thread...
    select_rows(page, 1)  # ...while the admin moves on to session 1
    with qtbot.waitSignal(page.details_shown, timeout=10_000) as shown:
        pass
    assert shown.args == [1] and "Session 1: completed" in page.details.toPlainText()
    assert [name for name in jobs.names if name.startswith("history-session-")] == [
        "history-session-1",
        "history-session-2",
    ]  # one at a time: session 2's, then the one asked last
    with qtbot.waitSignal(page.sessions_shown, timeout=10_000):
        page.refresh_button.click()
    # judged again (the store may have changed), its figures shown meanwhile rather than a blank
    assert "Session 1: completed" in page.details.toPlainText()
    with qtbot.waitSignal(page.details_shown, timeout=10_000):
        pass
    assert "Session 1: completed" in page.details.toPlainText()


def test_two_selected_sessions_compare(page: HistoryPage, qtbot: QtBot) -> None:
    select_rows(page, 0, 1)
    assert page.compare_button.isEnabled()
    assert not page.export_buttons["json"].isEnabled()  # an export is of one session
    qtbot.mouseClick(page.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Session 1 (A) and session 2 (B)" in page.details.toPlainText(), timeout=10_000)
    text = page.details.toPlainText()
    assert "Session 1 (A) and session 2 (B)" in text  # the older one is A
    # the speed column and the sentence quote one estimate
    assert "2.05 s\t1.80 s\t14 % faster\tB is 14 % faster than A (95 % CI " in text.replace("\n", "\t")
    assert "B against A: not settled" in text  # sync's small-files, 0.6 % apart with a CI of about +-6 %
    assert "only in B" in text and "only in A" in text
    select_rows(page, 0)
    assert not page.compare_button.isEnabled()


def test_refresh_shows_a_new_session_and_keeps_the_selection(page: HistoryPage, qtbot: QtBot) -> None:
    select_rows(page, 0)
    store_session(page._results, SECOND_SESSION)
    with qtbot.waitSignal(page.sessions_shown, timeout=10_000):
        page.refresh_button.click()
    assert [cell(page, r, "Session") for r in range(3)] == ["3", "2", "1"]
    assert page.selected_ids() == [2]
    assert "3 sessions" in page.status.text()


@pytest.mark.parametrize(
    ("kind", "check"),
    [
        ("csv", lambda text: text.startswith("session,recipe,config,workload,")),
        # the document `nfstune report 1 --json` writes, answer included
        ("json", lambda text: json.loads(text)["session"]["id"] == 1 and "change" in json.loads(text)["answer"]),
        ("html", lambda text: "<h1>nfstune session 1</h1>" in text and "async is 4.3x faster than sync" in text),
    ],
)
def test_exports_write_the_selected_session(
    page: HistoryPage, qtbot: QtBot, tmp_path: Path, kind: str, check: object
) -> None:
    select_rows(page, 1)
    out = tmp_path / f"out.{kind}"
    titles = save_to(page, out)
    page.export_buttons[kind].click()
    qtbot.waitUntil(lambda: page.status.text() == f"Wrote {out}", timeout=30_000)  # the HTML report: a job
    assert out.stat().st_size > 0 and callable(check) and check(out.read_text())
    assert titles and "session 1" in titles[0]


def test_cancelling_the_dialog_writes_nothing(page: HistoryPage, tmp_path: Path) -> None:
    select_rows(page, 1)
    before, said = set(tmp_path.iterdir()), page.status.text()
    page.ask_save_path = lambda *args: ("", "")
    page.export_buttons["csv"].click()
    assert set(tmp_path.iterdir()) == before and page.status.text() == said  # nothing written, nothing said


@pytest.mark.parametrize("kind", ["csv", "json", "html"])
def test_an_unwritable_path_is_named_in_an_error_box(
    page: HistoryPage, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    from PySide6.QtWidgets import QMessageBox

    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text, *rest: shown.append((title, text)))
    select_rows(page, 1)
    out = tmp_path / "no-such-folder" / f"out.{kind}"
    save_to(page, out)
    page.export_buttons[kind].click()
    qtbot.waitUntil(lambda: shown != [], timeout=30_000)
    ((title, text),) = shown
    assert title == "Export failed"
    assert str(out) in text and "No such file or directory" in text
    assert not out.exists()


def next_tab_stop(widget: QWidget) -> QWidget:
    """The widget Tab moves to from `widget` when all are enabled (the chain includes widgets Tab skips)."""
    following = widget.nextInFocusChain()
    while not following.focusPolicy() & Qt.FocusPolicy.TabFocus:
        following = following.nextInFocusChain()
    return following


def test_keyboard_reaches_everything_in_order(page: HistoryPage) -> None:
    # the last stop before the figures is the bar of their tabs (Details, Trend)
    chain = [
        page.table,
        page.refresh_button,
        page.compare_button,
        page.check_button,  # Check it held, for a session whose recommendation is applied
        *page.export_buttons.values(),
        page.bottom_tabs.tabBar(),
        page.session_view.details_button,  # the words behind a session's pictures
        page.details,
    ]
    assert [next_tab_stop(w) for w in chain[:-1]] == chain[1:]
    buttons = [page.refresh_button, page.compare_button, page.check_button, *page.export_buttons.values()]
    mnemonics = [b.text()[b.text().index("&") + 1].lower() for b in buttons]
    assert len(set(mnemonics)) == len(mnemonics)  # one Alt+letter each


def test_the_html_report_is_written_by_a_job_on_its_own_thread(
    page: HistoryPage, qtbot: QtBot, tmp_path: Path, jobs: Jobs
) -> None:
    """In the desktop the report is a job (the controller's queue): the GUI thread only asks for the path. (An
    unwritable path, which the job fails on, is in test_an_unwritable_path_is_named_in_an_error_box.)"""
    select_rows(page, 1)
    out = tmp_path / "report.html"
    save_to(page, out)
    page.export_buttons["html"].click()
    assert page.status.text() == f"Writing {out}…"
    qtbot.waitUntil(lambda: page.status.text() == f"Wrote {out}", timeout=30_000)
    assert "<h1>nfstune session 1</h1>" in out.read_text()
    assert jobs.threads and jobs.threads[0] is not threading.main_thread()


def test_the_html_export_is_the_file_nfstune_report_writes(page: HistoryPage, qtbot: QtBot, tmp_path: Path) -> None:
    from nfstune.recipes.loader import recipes_by_id
    from nfstune.report.html import session_html

    select_rows(page, 1)
    out = tmp_path / "desktop.html"
    save_to(page, out)
    page.export_buttons["html"].click()
    qtbot.waitUntil(lambda: page.status.text() == f"Wrote {out}", timeout=30_000)
    expected = session_html(page._results, 1, recipes_by_id())  # what `nfstune report 1 --html` writes
    assert out.read_text() == expected
    assert "<h2>Recommendation</h2>" in expected
