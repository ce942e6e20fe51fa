"""The plan dialog: the plan's text in a monospace, scrollable, selectable view, copied whole by a button."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontInfo, QGuiApplication
from PySide6.QtWidgets import QPlainTextEdit
from pytestqt.qtbot import QtBot

from nfstune.ui.plan_dialog import PlanDialog

LONG_ARGV = "server: sudo sh -c 'cp /etc/exports /var/lib/nfstune/journal/exports.1 && " + "x" * 300 + "'"
TEXT = "\n".join(["plan: quick-check, seed 7", LONG_ARGV, *(f"round {n}: baseline, async" for n in range(200))])


def make_dialog(qtbot: QtBot) -> PlanDialog:
    dialog = PlanDialog("The plan", TEXT)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_the_text_is_monospace_read_only_and_scrolls_without_wrapping(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    assert dialog.plain_text() == TEXT
    assert dialog.text.isReadOnly()
    assert QFontInfo(dialog.text.font()).fixedPitch()
    assert dialog.text.lineWrapMode() is QPlainTextEdit.LineWrapMode.NoWrap  # an argv stays on its line
    qtbot.waitUntil(lambda: dialog.text.horizontalScrollBar().maximum() > 0)  # laid out after the first paint
    assert dialog.text.verticalScrollBar().maximum() > 0
    flags, selectable = dialog.text.textInteractionFlags(), Qt.TextInteractionFlag
    assert flags & selectable.TextSelectableByMouse and flags & selectable.TextSelectableByKeyboard


def test_copy_all_puts_the_whole_plan_on_the_clipboard_and_close_closes(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    QGuiApplication.clipboard().setText("something else")
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == TEXT
    assert dialog.copy_button.text() == "&Copied"
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
