"""A chart to be read, not explored: one plot on a white ground (the charts keep a light ground in a dark window, so
their colours mean the same on both), fixed axes, no pyqtgraph buttons, the axes' words in one dark colour.
Imported only where a chart is first shown (pyqtgraph is not loaded at the window's start)."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel

TEXT_COLOR = "#202020"
WORDS_PADDING = (2, 8)  # px of a chart's own words (a title above it, a note under it): above and below, the sides


def static_plot(axes: tuple[str, ...] = ("left", "bottom")) -> tuple[pg.GraphicsLayoutWidget, pg.PlotItem]:
    graphics = pg.GraphicsLayoutWidget()
    graphics.setBackground("w")
    plot: pg.PlotItem = graphics.addPlot()
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    for side in axes:
        plot.getAxis(side).setTextPen(TEXT_COLOR)
    return graphics, plot


def chart_words(text: str = "", **options: Any) -> QLabel:
    """A chart's title or note as a label on the chart's white ground: a label, not pyqtgraph's title, wraps what
    is too long rather than cutting it. `options`: QLabel's (wordWrap, textFormat)."""
    label = QLabel(text, **options)
    label.setStyleSheet(f"color: {TEXT_COLOR}; background: white; padding: {WORDS_PADDING[0]}px {WORDS_PADDING[1]}px;")
    return label
