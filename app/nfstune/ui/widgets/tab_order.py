"""A widget made after its page (a chart made when first shown) goes to the end of the keyboard's Tab order; this
puts it back where it belongs on the page."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget


def insert_in_tab_order(first: QWidget, widget: QWidget, last: QWidget) -> None:
    """Tab goes from `first` to `widget`'s stops (it and its children that take focus by Tab, in their own order),
    then on to `last`. (QWidget.setTabOrder moves the widget alone: a chart's view inside it would stay at the end.)"""
    stops = []
    candidate = widget
    while True:
        inside = candidate is widget or widget.isAncestorOf(candidate)
        if inside and candidate.focusPolicy() & Qt.FocusPolicy.TabFocus:
            stops.append(candidate)
        candidate = candidate.nextInFocusChain()
        if candidate is widget:
            break
    previous = first
    for stop in [*stops, last]:
        QWidget.setTabOrder(previous, stop)
        previous = stop
