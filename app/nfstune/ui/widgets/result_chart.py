"""The chart of a finished comparison: one bar per configuration (the median of its repeats), with the spread from
the fastest to the slowest repeat, so that a difference smaller than the noise shows as overlapping whiskers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

# label, median, min, max, number of repeats
Bar = tuple[str, float, float, float, int]

TEXT_COLOR = "#202020"
BAR_COLOR = "#8fb3d9"  # light, so that the whisker shows inside the bar
WHISKER_COLOR = "#202020"
BAR_WIDTH = 0.6
HEADROOM = 1.2  # room above the highest whisker for the value labels


class ResultChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.plot: pg.PlotItem = self.graphics.addPlot()
        self.plot.setMouseEnabled(x=False, y=False)  # a result is read, not explored
        self.plot.hideButtons()
        # no grid: with one, pyqtgraph drops the 0 label at the axis' end, and the bars' baseline matters
        for side in ("left", "bottom"):
            self.plot.getAxis(side).setTextPen(TEXT_COLOR)
        self.note = QLabel()
        self.note.setStyleSheet(f"color: {TEXT_COLOR}; background: white; padding: 2px 8px;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.graphics)
        layout.addWidget(self.note)
        self.bar_item: pg.BarGraphItem | None = None
        self.error_item: pg.ErrorBarItem | None = None
        self.value_labels: list[pg.TextItem] = []

    def set_data(self, title: str, unit: str, higher_is_better: bool, bars: list[Bar]) -> None:
        self.plot.clear()
        self.value_labels = []
        self.plot.setTitle(title, color=TEXT_COLOR, size="11pt")
        self.plot.setLabel("left", unit, color=TEXT_COLOR)  # text only: units= would rescale to SI prefixes
        self.note.setText(
            ("higher is better" if higher_is_better else "lower is better")
            + " · bar: median of the repeats · whisker: slowest to fastest repeat"
        )
        x = np.arange(len(bars), dtype=float)
        medians = np.array([b[1] for b in bars], dtype=float)
        lows = np.array([b[2] for b in bars], dtype=float)
        highs = np.array([b[3] for b in bars], dtype=float)
        self.bar_item = pg.BarGraphItem(x=x, height=medians, width=BAR_WIDTH, brush=BAR_COLOR, pen=None)
        # ErrorBarItem takes lengths below and above y, not the ends themselves
        self.error_item = pg.ErrorBarItem(
            x=x, y=medians, top=highs - medians, bottom=medians - lows, beam=BAR_WIDTH / 3, pen=WHISKER_COLOR
        )
        self.plot.addItem(self.bar_item)
        self.plot.addItem(self.error_item)
        top = float(highs.max()) if len(bars) else 1.0
        for i, (_, median, _, high, n) in enumerate(bars):
            label = pg.TextItem(f"{median:.3g}  (n={n})", color=TEXT_COLOR, anchor=(0.5, 1))
            label.setPos(i, high + 0.02 * top)
            self.plot.addItem(label)
            self.value_labels.append(label)
        self.plot.getAxis("bottom").setTicks([[(float(i), b[0]) for i, b in enumerate(bars)]])
        self.plot.setXRange(-0.6, len(bars) - 0.4, padding=0)
        self.plot.setYRange(0, max(top, 1e-9) * HEADROOM, padding=0)

    def save_png(self, path: str | Path) -> None:
        if not self.grab().save(str(path), "PNG"):
            raise OSError(f"could not write the chart image to {path}")
