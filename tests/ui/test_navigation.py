"""The step list: a step that cannot be reached now is greyed out and cannot be picked, so that it never shows
highlighted over another page (a cancelled session has results but no recommendation)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from nfstune.session.script import RunOutcome
from nfstune.ui.main_window import STEPS, MainWindow


def enabled(window: MainWindow) -> list[str]:
    items = [window.steps.item(row) for row in range(window.steps.count())]
    return [STEPS[row] for row, item in enumerate(items) if item.flags() & Qt.ItemFlag.ItemIsEnabled]


def test_unreachable_steps_are_greyed_out_and_cannot_be_picked(qtbot: QtBot, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_path=tmp_path / "s.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(window)
    window.show()
    assert enabled(window) == ["Connect", "Recipes"]  # nothing connected yet: the recipes can be read, no more
    window.steps.setCurrentRow(STEPS.index("Results"))
    assert window.stack.currentIndex() == 0 and window.steps.currentRow() == 0
    # a cancelled session: its results can be shown, but there is no recommendation to go to
    window.controller.outcome = RunOutcome(1, "cancelled", "cancelled: every change was undone")
    window.stack.setCurrentIndex(STEPS.index("Results"))
    window._update_nav()
    assert "Recommendation" not in enabled(window) and "Results" in enabled(window)
    window.steps.setCurrentRow(STEPS.index("Recommendation"))
    assert window.stack.currentIndex() == STEPS.index("Results")
    assert window.steps.currentRow() != STEPS.index("Recommendation")
