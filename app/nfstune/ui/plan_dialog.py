"""The plan of a run, before it runs: what `nfstune run --dry-run` prints (every visit in its round's order, the
exact command on each host, how each change is undone, the estimated time), in a scrollable monospace text that
can be selected and copied."""

from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

WIDTH, HEIGHT = 1200, 800  # wished for (the argv lines are long); a smaller screen gets less (_fit_screen)
SCREEN_MARGIN = 40
NOTE_STYLE = "background: #fff4e5; border: 1px solid #d9480f; border-radius: 4px; padding: 6px; color: #202020;"


class PlanDialog(QDialog):
    def __init__(
        self,
        title: str,
        text: str,
        parent: QWidget | None = None,
        *,
        note: str | None = None,
        heading: str | None = None,
    ) -> None:
        """`note`: what the plan stands on, when not the hosts' own facts (placeholders before connecting);
        `heading`: what is planned, in words, above the rest (a window title is not always shown, or read)."""
        super().__init__(parent)
        self.setWindowTitle(title)
        self.heading = QLabel(heading or "")
        self.heading.setWordWrap(True)
        self.heading.setStyleSheet("font-size: 13pt; font-weight: bold;")
        self.heading.setVisible(heading is not None)
        self.intro = QLabel(
            "Nothing has been changed yet. This is what a run would do, in this order; the commands are the exact "
            "ones each host would run. Each round visits the configurations in a new order, so that a drift of "
            "the hosts falls on all of them alike."
        )
        self.intro.setWordWrap(True)
        self.note = QLabel(note or "")
        self.note.setWordWrap(True)
        self.note.setVisible(note is not None)
        self.note.setStyleSheet(NOTE_STYLE)
        self.text = QPlainTextEdit(text)
        self.text.setReadOnly(True)
        # read-only text is selectable by the mouse only; the keyboard too, so that Ctrl+A, Ctrl+C work without one
        self.text.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)  # an argv cut across lines would mislead
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setAccessibleName("The plan")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton("&Copy all")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.close_button = buttons.button(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addWidget(self.note)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self._fit_screen()

    def _fit_screen(self) -> None:
        screen = (self.parentWidget().screen() if self.parentWidget() else None) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry() if screen is not None else None
        if area is None:
            self.resize(WIDTH, HEIGHT)
            return
        self.resize(min(WIDTH, area.width() - SCREEN_MARGIN), min(HEIGHT, area.height() - SCREEN_MARGIN))

    def plain_text(self) -> str:
        return self.text.toPlainText()

    @Slot()
    def _on_copy_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.plain_text())
        self.copy_button.setText("&Copied")
