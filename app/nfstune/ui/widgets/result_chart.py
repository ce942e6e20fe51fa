"""The chart of a finished comparison, a strip plot: every round's figure as a dot beside a median mark for each
configuration (the baseline first), so that the spread of the rounds shows next to the difference between the
configurations: a difference smaller than the round-to-round noise shows as overlapping dots."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

from nfstune.report.chart import nice_ticks, tick_text
from nfstune.statistics.stats import format_value
from nfstune.ui.widgets.static_plot import TEXT_COLOR, chart_words, static_plot

# a configuration's label and its figure in each round (round number -> figure)
Strip = tuple[str, Mapping[int, float]]

DOT_COLOR = (31, 95, 160, 170)  # translucent, so that rounds with the same figure darken where they overlap
BASELINE_DOT_COLOR = (90, 90, 90, 170)
MEDIAN_COLOR = "#d9480f"
DOT_SIZE = 7
MEDIAN_WIDTH = 0.56  # of a column's width (1.0)
SPREAD = 0.36  # the dots of a column lie within +-SPREAD/2 of its centre
HEADROOM = 1.15  # room above the highest dot for the median labels
TICK_TARGET = 5  # about this many labelled ticks on the value axis


def jitter(count: int) -> list[float]:
    """The horizontal offsets of a column's dots, in round order: spread evenly across the column, left to right
    (so that a drift over the rounds shows as a slope), the same offsets on every draw."""
    if count <= 1:
        return [0.0] * count
    return [SPREAD * (i / (count - 1) - 0.5) for i in range(count)]


class ResultChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # a result is read, not explored; no grid: with one, pyqtgraph drops the 0 label at the axis' end, and the
        # dots' distance from 0 matters
        self.graphics, self.plot = static_plot()
        self.note = chart_words()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.graphics)
        layout.addWidget(self.note)
        self.dots: list[pg.ScatterPlotItem] = []  # one per configuration, in column order
        self.medians: list[float] = []
        self.median_items: list[pg.PlotDataItem] = []
        self.value_labels: list[pg.TextItem] = []
        self.y_ticks: list[float] = []
        self._labels: list[str] = []

    def set_data(self, title: str, unit: str, higher_is_better: bool, strips: Sequence[Strip]) -> None:
        """`strips`: the configurations in column order (the baseline first), each with its rounds' figures."""
        self.plot.clear()
        self.dots, self.medians, self.median_items, self.value_labels = [], [], [], []
        self.plot.setTitle(title, color=TEXT_COLOR, size="11pt")
        self.plot.setLabel("left", unit, color=TEXT_COLOR)  # text only: units= would rescale to SI prefixes
        self.note.setText(
            ("higher is better" if higher_is_better else "lower is better")
            + " · a dot per round, in order · bar: median"
        )
        top = max((v for _, rounds in strips for v in rounds.values()), default=0.0)
        for column, (label, rounds) in enumerate(strips):
            ordered = [rounds[r] for r in sorted(rounds)]
            xs = np.array([column + dx for dx in jitter(len(ordered))], dtype=float)
            colour = BASELINE_DOT_COLOR if column == 0 else DOT_COLOR
            dots = pg.ScatterPlotItem(
                x=xs,
                y=np.array(ordered, dtype=float),
                data=sorted(rounds),
                size=DOT_SIZE,
                pen=None,
                brush=pg.mkBrush(colour),
                hoverable=True,
                tip=lambda x, y, data, label=label: f"{label}, round {data}: {format_value(y)} {unit}",
            )
            self.plot.addItem(dots)
            self.dots.append(dots)
            if not ordered:
                continue
            median = statistics.median(ordered)
            self.medians.append(median)
            mark = pg.PlotDataItem(
                [column - MEDIAN_WIDTH / 2, column + MEDIAN_WIDTH / 2],
                [median, median],
                pen=pg.mkPen(MEDIAN_COLOR, width=3),
            )
            self.plot.addItem(mark)
            self.median_items.append(mark)
            text = pg.TextItem(format_value(median), color=TEXT_COLOR, anchor=(0.5, 1))
            text.setPos(column, max(ordered) + 0.02 * max(top, 1e-9))
            self.plot.addItem(text)
            self.value_labels.append(text)
        self._labels = [label for label, _ in strips]
        self._set_bottom_ticks()
        self.y_ticks = nice_ticks(top * HEADROOM, TICK_TARGET)
        step = self.y_ticks[1] - self.y_ticks[0]
        self.plot.getAxis("left").setTicks([[(t, tick_text(t, step)) for t in self.y_ticks], []])
        self.plot.setXRange(-0.6, len(strips) - 0.4, padding=0)
        self.plot.setYRange(0, self.y_ticks[-1], padding=0)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._set_bottom_ticks()  # labels that collided at one width may not at another

    def _set_bottom_ticks(self) -> None:
        labels = list(self._labels)
        bottom = self.plot.getAxis("bottom")
        if self._labels_collide(labels):
            # every other label a line lower, so that long neighbours ("no_wdelay", "rsize=128K") do not overlap;
            # the axis is made two lines high at once (pyqtgraph would grow it only after a first, clipped paint)
            labels = [("\n" + label) if i % 2 else label for i, label in enumerate(labels)]
            metrics = QFontMetrics(bottom.style["tickFont"] or QFont())
            bottom.setHeight(2 * metrics.lineSpacing() + bottom.style["tickTextOffset"][1] + 6)
        else:
            bottom.setHeight(None)
        bottom.setTicks([[(float(i), label) for i, label in enumerate(labels)]])

    def _labels_collide(self, labels: Sequence[str]) -> bool:
        """Whether two neighbouring labels would touch at the chart's present width (the page fixes it first)."""
        if len(labels) < 2:
            return False
        axis = self.plot.getAxis("left")
        column = max(1.0, (self.width() - axis.width() - 20) / len(labels))  # 20: the plot's own margins
        metrics = QFontMetrics(self.plot.getAxis("bottom").style["tickFont"] or QFont())
        widths = [metrics.horizontalAdvance(label) for label in labels]
        return any((a + b) / 2 + 8 > column for a, b in itertools.pairwise(widths))

    def save_png(self, path: str | Path) -> None:
        if not self.grab().save(str(path), "PNG"):
            raise OSError(f"could not write the chart image to {path}")
