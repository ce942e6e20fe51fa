"""History's Details of a session with a run that started before the hosts had finished writing back (the wait
before each run hit its limit, bench/writeback.py): said under that workload's table, as the report says it."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from nfstune.ui.pages.history import HistoryPage
from tests.ui.test_history_page import Jobs, select_shown
from tests.unit.test_writeback_record import SENTENCE, stored_with_waits


def test_a_run_started_at_the_limit_is_said_under_its_workload(qtbot: QtBot, tmp_path: Path) -> None:
    results, _ = stored_with_waits(tmp_path)
    jobs = Jobs()
    page = HistoryPage(results, store_path=tmp_path / "s.sqlite3", background=jobs.background)
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    with qtbot.waitSignal(page.sessions_shown, timeout=10_000):
        page.show()
    select_shown(page, qtbot, 0)
    text = page.details.toPlainText()
    sync = text[text.index("quick-check: 4 KiB synchronous writes") :]
    sync = sync[: sync.index("quick-check:", 1)] if "quick-check:" in sync[1:] else sync
    assert "Started before the hosts had finished writing back (a run; the figure may be slower for it):" in sync
    assert SENTENCE in sync
    assert text.count(SENTENCE) == 1
