"""A page's content in a scroll area: on a small screen (1024x700) a page scrolls rather than cutting its text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


def scrolled(content: QWidget, *, wraps: bool = False) -> QScrollArea:
    """`content` given the area's whole width, without a frame of its own (the page has one). `wraps`: its text
    wraps to any width, so the area never scrolls sideways."""
    area = QScrollArea()
    area.setWidget(content)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    if wraps:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area
