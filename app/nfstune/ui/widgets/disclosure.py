"""A "Details" disclosure: a flat arrow button that shows or hides what is under it, closed to begin with (the long
sentences a page keeps for whoever asks, as GNOME Disks keeps a drive's details)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget


class Disclosure(QWidget):
    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.button = QToolButton(text=text, checkable=True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setArrowType(Qt.ArrowType.RightArrow)
        self.button.setAutoRaise(True)
        self.button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # Tab reaches it, Space opens it
        self.body = QWidget()
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(22, 0, 0, 0)  # under the text, past the arrow
        self.body.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.body)
        self.button.toggled.connect(self._on_toggled)

    def add(self, widget: QWidget) -> None:
        self.body_layout.addWidget(widget)

    def set_open(self, shown: bool) -> None:
        self.button.setChecked(shown)

    def is_open(self) -> bool:
        return self.button.isChecked()

    @Slot(bool)
    def _on_toggled(self, shown: bool) -> None:
        self.body.setVisible(shown)
        self.button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
