"""A chart to be read, not explored: one plot on a white ground (the charts keep a light ground in a dark window, so
their colours mean the same on both), fixed axes, no pyqtgraph buttons, the axes' words in one dark colour.
Imported only where a chart is first shown (pyqtgraph is not loaded at the window's start)."""

from __future__ import annotations

import pyqtgraph as pg

TEXT_COLOR = "#202020"


def static_plot(axes: tuple[str, ...] = ("left", "bottom")) -> tuple[pg.GraphicsLayoutWidget, pg.PlotItem]:
    graphics = pg.GraphicsLayoutWidget()
    graphics.setBackground("w")
    plot: pg.PlotItem = graphics.addPlot()
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    for side in axes:
        plot.getAxis(side).setTextPen(TEXT_COLOR)
    return graphics, plot
