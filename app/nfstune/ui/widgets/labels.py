"""Small label helpers shared by the pages."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def wrapped_label(text: str = "", *, rich: bool = False) -> QLabel:
    """A word-wrapped label whose text can be selected (and so copied) with the mouse."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label
