"""The Run page's log: tall enough for a cancel's undo step by step, following its last line through a resize
until the admin scrolls up to read, and the outcome said once."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from nfstune.ui.controller import Controller, RunOutcome
from nfstune.ui.jobs import Prompter
from nfstune.ui.pages.run import LOG_MIN_LINES, RunPage


def page(qtbot: QtBot, tmp_path: Path) -> RunPage:
    widget = RunPage(Controller(Prompter(), store_path=tmp_path / "s.sqlite3"))
    qtbot.addWidget(widget)
    widget.resize(1024, 700)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_the_log_follows_its_last_line_through_a_resize_until_scrolled_up(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    assert run.log.height() >= run.log.fontMetrics().lineSpacing() * LOG_MIN_LINES
    bar = run.log.verticalScrollBar()
    for n in range(200):
        run._append(f"line {n}")
    assert bar.value() == bar.maximum() > 0
    run.resize(1024, 500)  # a smaller window: more to scroll, still the last line in view
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    bar.setValue(0)  # the admin scrolls up to read: the log stays where they are
    run._append("one more")
    assert bar.value() == 0
    bar.setValue(bar.maximum())
    run._append("and another")
    assert bar.value() == bar.maximum()


def test_a_cancelled_run_says_cancelled_once(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    run._on_run_done(RunOutcome(7, "cancelled", "cancelled: every change was undone"))
    last = run.log.toPlainText().splitlines()[-1]
    assert last.endswith("session 7: Cancelled: every change was undone") and last.lower().count("cancelled") == 1
