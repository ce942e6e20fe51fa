"""What limits each workload, as bars: the baseline's figure against each ceiling it was judged by (MB/s: the network
that way and the server's disk, which it cannot pass) or each floor (ms each: the round trips and the disk's flush it
waits for at least), a small chart per workload side by side, as KDiskMark shows its figures at a glance. The data
come from results.limit_bars; this only draws them."""

from __future__ import annotations

import html
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QGridLayout, QVBoxLayout, QWidget

from nfstune.results.limit_bars import LimitBars
from nfstune.statistics.stats import format_value
from nfstune.ui.widgets.static_plot import TEXT_COLOR, chart_words, static_plot

FIGURE_COLOUR = "#1f5fa0"
BOUND_COLOUR = "#a0a0a0"
LIMIT_COLOUR = "#d9480f"  # the bound the diagnosis names as the limit
BAR_ROW = 24  # px a bar
FRAME = 20  # px of the margins
MIN_CHART_WIDTH = 330  # px: narrower, the names and the values crowd the bars
VALUE_ROOM = 1.6  # the x axis runs this far past the longest bar, for its value's words
BAR_HEIGHT = 0.62


class LimitChart(QWidget):
    """One workload: its figure's bar on top, each bound's below, each with its value (or "not measured")."""

    def __init__(self, data: LimitBars) -> None:
        super().__init__()
        self.data = data
        self.graphics, self.plot = static_plot(("left",))
        self.plot.hideAxis("bottom")  # every bar says its value
        held = f": held by the {html.escape(data.bottleneck)}" if data.bottleneck else ""
        unit = "MB/s" if data.ceiling else "ms each"
        # a label, not the plot's title: pyqtgraph centres a title over the bars and cuts what overflows
        self.title = chart_words(f"<b>{html.escape(data.workload)}</b> ({unit}){held}", wordWrap=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.title)
        layout.addWidget(self.graphics)
        self.names = [f"{data.label} (median)", *(b.name for b in data.bars)]
        self.values = [data.figure, *(b.value for b in data.bars)]
        self.texts: list[str] = []
        limit = self._limit_index()
        top = max((v for v in self.values if v is not None), default=1.0)
        for i, value in enumerate(self.values):
            y = -float(i)
            if value is None:
                text = "not measured"
            else:
                colour = FIGURE_COLOUR if i == 0 else (LIMIT_COLOUR if i == limit else BOUND_COLOUR)
                bar = pg.BarGraphItem(x0=[0], x1=[value], y=[y], height=BAR_HEIGHT, brush=colour, pen=None)
                self.plot.addItem(bar)
                text = f"{format_value(value)} {data.unit}"
            self.texts.append(text)
            item = pg.TextItem(text, color=TEXT_COLOR, anchor=(0, 0.5))
            item.setPos(value or 0.0, y)
            self.plot.addItem(item)
        self.plot.setXRange(0, top * VALUE_ROOM, padding=0)
        self.plot.setYRange(-len(self.values) + 0.5, 0.5, padding=0)
        axis = self.plot.getAxis("left")
        metrics = QFontMetrics(axis.style["tickFont"] or QFont())
        axis.setWidth(max(metrics.horizontalAdvance(n) for n in self.names) + 12)
        axis.setTicks([[(-float(i), n) for i, n in enumerate(self.names)], []])
        self.graphics.setFixedHeight(FRAME + BAR_ROW * len(self.values))
        self.setToolTip(data.text)

    def _limit_index(self) -> int | None:
        """The bound the diagnosis names as the limit: the lowest ceiling, or the highest floor."""
        if self.data.bottleneck is None:
            return None
        measured = [(v, i) for i, v in enumerate(self.values) if i and v is not None]
        if not measured:
            return None
        return (min(measured) if self.data.ceiling else max(measured))[1]


class LimitBarsView(QWidget):
    """The workloads' charts in a grid as wide as the page allows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.charts: list[LimitChart] = []
        self._columns = 0

    def set_bars(self, bars: Sequence[LimitBars]) -> None:
        for chart in self.charts:
            self.grid.removeWidget(chart)
            chart.deleteLater()
        self.charts = [LimitChart(b) for b in bars]
        self._columns = 0
        self._place()

    def _place(self) -> None:
        columns = max(1, min(len(self.charts), self.width() // MIN_CHART_WIDTH)) if self.charts else 1
        if columns == self._columns:
            return
        self._columns = columns
        for chart in self.charts:
            self.grid.removeWidget(chart)
        for i, chart in enumerate(self.charts):
            self.grid.addWidget(chart, i // columns, i % columns)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place()
