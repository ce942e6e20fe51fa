"""The check's picture: a row per workload, its speed now against the session's (then) on a log axis, as the verdict
plot draws a comparison. The band is what the session predicted, from its baseline's level (no gain) to the
recommended level (1x, "as then"); the tick inside it is the line the check decides against; the bar is the
interval of now, coloured by what it decided, and the diamond its estimate. Whether the bar lies right of the tick
is the answer, at a glance. Only draws results/held.Held rows."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from nfstune.results.held import Held
from nfstune.statistics.verdict import format_change
from nfstune.ui.widgets.static_plot import TEXT_COLOR, chart_words, static_plot
from nfstune.ui.widgets.verdict_plot import FRAME_HEIGHT, ROW_HEIGHT

WORD_COLOURS = {"held": "#1b7f2a", "did not hold": "#b3261e", "not settled": "#8a8a8a"}
BAND_COLOUR = (31, 95, 160, 40)
LINE_COLOUR = "#1f5fa0"
CHECK_ROW_HEIGHT = ROW_HEIGHT + 14  # a little more than a verdict's: the band and the bar are both read
NOTE = (
    "Each row: the speed measured now against session {session}'s, on the applied settings. Shaded: the gain the "
    "session predicted, from its baseline (left edge) to its recommended figure (1x). Tick: halfway, what the check "
    "decides against. Bar: the interval of now (unpaired, from two times); green held, red did not hold, grey not "
    "settled."
)


class CheckPlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.graphics, self.plot = static_plot()
        self.plot.setLabel("bottom", "← slower than then  |  speed now against then  |  faster →", color=TEXT_COLOR)
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.note = chart_words(wordWrap=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.graphics)
        layout.addWidget(self.note)
        self.rows: list[Held] = []

    def set_rows(self, rows: Sequence[Held], session_id: int) -> None:
        """The workloads the check decided (those with nothing to check are left out: the words say them)."""
        self.plot.clear()
        self.rows = [h for h in rows if h.gain is not None and h.word != "nothing to check"]
        self.note.setText(NOTE.format(session=session_id))
        ys = [-float(i) for i in range(len(self.rows))]
        lows = [math.log10(1 / (h.gain or 1.0)) for h in self.rows]
        if self.rows:
            self.plot.addItem(
                pg.BarGraphItem(
                    x0=lows, x1=[0.0] * len(lows), y=ys, height=0.8, brush=pg.mkBrush(BAND_COLOUR), pen=None
                )
            )
            ticks = [math.log10(h.midpoint or 1.0) for h in self.rows]
            self.plot.addItem(
                pg.ScatterPlotItem(
                    x=ticks,
                    y=ys,
                    symbol="|",
                    size=30,
                    pen=pg.mkPen(LINE_COLOUR, width=1),
                    brush=pg.mkBrush(LINE_COLOUR),
                )
            )
        self.plot.addItem(
            pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen("#707070", width=1, style=Qt.PenStyle.DashLine))
        )
        shown = [(y, h) for y, h in zip(ys, self.rows, strict=True) if h.ci is not None and h.ratio is not None]
        for y, h in shown:
            assert h.ci is not None and h.ratio is not None
            colour = WORD_COLOURS.get(h.word, "#8a8a8a")
            self.plot.addItem(
                pg.BarGraphItem(
                    x0=[math.log10(h.ci[0])],
                    x1=[math.log10(h.ci[1])],
                    y=[y],
                    height=0.3,
                    brush=pg.mkBrush(colour),
                    pen=None,
                )
            )
            self.plot.addItem(
                pg.ScatterPlotItem(
                    x=[math.log10(h.ratio)],
                    y=[y],
                    symbol="d",
                    size=12,
                    brush=pg.mkBrush("white"),
                    pen=pg.mkPen(colour, width=2),
                )
            )
        self._axes()
        self.graphics.setFixedHeight(FRAME_HEIGHT + CHECK_ROW_HEIGHT * max(1, len(self.rows)))

    def _axes(self) -> None:
        xs = [0.0]
        for h in self.rows:
            xs.append(math.log10(1 / (h.gain or 1.0)))
            if h.ci is not None:
                xs += [math.log10(h.ci[0]), math.log10(h.ci[1])]
        low, high = min(xs) - 0.05, max(xs) + 0.05
        self.plot.setXRange(low, high, padding=0)
        self.plot.setYRange(-len(self.rows) + 0.5, 0.5, padding=0)
        ratios = sorted({0.25, 0.5, 2 / 3, 0.8, 1.0, 1.25, 1.5, 2.0, 4.0})
        words = [
            (math.log10(r), "as then" if r == 1 else format_change(r)) for r in ratios if low <= math.log10(r) <= high
        ]
        self.plot.getAxis("bottom").setTicks([words])
        self.plot.getAxis("left").setTicks([[(-float(i), h.workload) for i, h in enumerate(self.rows)]])
