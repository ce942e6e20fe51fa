"""History's list of sessions is read on a worker thread when the page is shown, never as the window is built
(issue 31: with 10,000 sessions the window waited seconds for it). Real SQLite files throughout."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from nfstune.store import Results, open_store
from nfstune.ui.main_window import MainWindow
from nfstune.ui.pages.history import READING, HistoryPage
from tests.ui.test_history_page import Jobs
from tests.unit.test_summary import FIRST_SESSION, SECOND_SESSION, store_session


@pytest.fixture
def jobs(qtbot: QtBot) -> Iterator[Jobs]:
    jobs = Jobs()
    yield jobs
    qtbot.waitUntil(lambda: not jobs.queue.busy(), timeout=10_000)  # no job outlives its test


def stored(path: Path, count: int) -> Results:
    results = Results(open_store(path))
    for number in range(count):
        store_session(results, FIRST_SESSION if number % 2 == 0 else SECOND_SESSION)
    return results


def test_the_page_reads_nothing_until_it_is_shown(qtbot: QtBot, tmp_path: Path, jobs: Jobs) -> None:
    results = stored(tmp_path / "s.sqlite3", 2)
    page = HistoryPage(results, store_path=tmp_path / "s.sqlite3", background=jobs.background)
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    page.refresh()  # a run ended while the page was on a hidden tab: nothing to read yet
    assert page.model.rowCount() == 0 and not jobs.queue.busy()
    with qtbot.waitSignal(page.sessions_shown, timeout=10_000):
        page.show()
        # the loading state, until the worker's rows reach the GUI thread's event loop
        assert page.status.text() == READING and page.model.rowCount() == 0
        assert jobs.queue.running() == ["history-read-1"]
    assert page.model.rowCount() == 2 and page.status.text().startswith("2 sessions, read ")
    reads = [t for t, name in zip(jobs.threads, jobs.names, strict=True) if name.startswith("history-read")]
    assert len(reads) == 1 and reads[0] is not threading.main_thread()


def test_a_refresh_asked_during_a_read_reads_again(qtbot: QtBot, tmp_path: Path, jobs: Jobs) -> None:
    results = stored(tmp_path / "s.sqlite3", 2)
    page = HistoryPage(results, store_path=tmp_path / "s.sqlite3", background=jobs.background)
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    page.show()  # the first read starts
    store_session(results, FIRST_SESSION)  # it may or may not see this one
    page.refresh()
    qtbot.waitUntil(lambda: not jobs.queue.busy() and page.model.rowCount() == 3, timeout=10_000)
    # the second read began after the first had shown its rows (each then reads the pairs' regressions)
    assert [n for n in jobs.names if n.startswith("history-read")] == ["history-read-1", "history-read-2"]


def test_a_store_that_cannot_be_read_is_said_on_the_page(qtbot: QtBot, tmp_path: Path, jobs: Jobs) -> None:
    (tmp_path / "a-file").write_text("")
    results = stored(tmp_path / "s.sqlite3", 1)
    unreadable = tmp_path / "a-file" / "s.sqlite3"  # its folder is a file: opening the store fails
    page = HistoryPage(results, store_path=unreadable, background=jobs.background)
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    page.show()
    qtbot.waitUntil(lambda: not jobs.queue.busy(), timeout=10_000)
    said = page.status.text()
    assert said.startswith(f"Could not read the stored sessions: cannot make the folder {unreadable.parent}")
    assert page.model.rowCount() == 0
    page.refresh()  # and a refresh tries again
    assert jobs.queue.running() == ["history-read-2"] and page.status.text() == READING
    qtbot.waitUntil(lambda: not jobs.queue.busy(), timeout=10_000)
    assert page.status.text().startswith("Could not read the stored sessions: ")


def test_the_window_reads_history_when_its_tab_opens(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "window.sqlite3"
    stored(path, 2)._conn.close()
    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_path=path, scale="small", settings=settings)
    qtbot.addWidget(window)
    history, queue = window.history_page, window.controller.queue
    window.show()
    assert history.model.rowCount() == 0 and not queue.busy()  # built and shown: History not read
    with qtbot.waitSignal(history.sessions_shown, timeout=10_000):
        window.tabs.setCurrentIndex(1)
        assert queue.running() == ["history-read-1"] and history.status.text() == READING
    assert history.model.rowCount() == 2
    window.tabs.setCurrentIndex(0)
    store_session(window.results_store, FIRST_SESSION)
    with qtbot.waitSignal(history.sessions_shown, timeout=10_000):
        window.tabs.setCurrentIndex(1)  # read again each time it is opened
    assert history.model.rowCount() == 3
    qtbot.waitUntil(lambda: not queue.busy(), timeout=10_000)
