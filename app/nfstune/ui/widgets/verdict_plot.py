"""The verdict plot: a row per comparison, its speed ratio on a log axis ("2x slower", "same", "2x faster"), the
band within its margin where a difference does not matter shaded, its interval a bar coloured by its verdict and its
estimate a diamond; a comparison expected to measure the same (an A/A check) is marked. As Pinpoint and criterion
draw an interval against no change: whether the bar leaves the band is the verdict, at a glance. The rows come from
results.verdict_rows; this only draws them."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QHelpEvent, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QToolTip, QVBoxLayout, QWidget

from nfstune.results.verdict_rows import SHOWN_RANGE, VerdictRow, corrected_for, ratio_span, ratio_ticks
from nfstune.ui.verdicts import KIND_WORDS
from nfstune.ui.widgets.static_plot import TEXT_COLOR, WORDS_PADDING, chart_words, static_plot

KIND_PLOT_COLOURS = {
    "faster": "#1b7f2a",
    "slower": "#b3261e",
    "same": "#1f5fa0",
    "not settled": "#8a8a8a",
    "unreliable": "#a33c00",
}
BAND_COLOUR = (31, 95, 160, 40)
ROW_HEIGHT = 26  # px a comparison
FRAME_HEIGHT = 64  # px of the axis, its words and the margins
INTERVAL_HEIGHT = 0.34  # of a row
BAND_HEIGHT = 0.84
LABEL_SHARE = 0.45  # of the widget's width at most for the rows' names (longer ones are elided in the middle)
TICK_GAP = 12  # px at least between two ticks' words
EXPECTED_SAME = "  [A/A]"  # the legend says what it means
NO_ESTIMATE = "no estimate yet"  # under two rounds; short enough for the Run page's narrow plot
AXIS_WORDS = "← x slower  |  x faster →"


def _x(ratio: float) -> float:
    return math.log10(min(max(ratio, SHOWN_RANGE[0]), SHOWN_RANGE[1]))


def spaced(
    ticks: Sequence[tuple[float, str]],
    px_per_decade: float,
    width_of: Callable[[str], int],
    half_width: float = math.inf,
) -> list[tuple[float, str]]:
    """The ticks whose words do not touch and fit in `half_width` px each side of "same": "same" first, then from
    the axis' ends in. pyqtgraph drops a tick's words that would cross the axis' end, so a tick kept here but cut
    there would leave its neighbours out for nothing (a 390 px plot read only "same")."""
    order = sorted(ticks, key=lambda t: (t[0] != 1, -abs(math.log10(t[0]))))
    kept: list[tuple[float, str]] = []
    for ratio, words in order:
        x = math.log10(ratio) * px_per_decade
        if abs(x) + width_of(words) / 2 > half_width:
            continue
        if all(
            abs(x - math.log10(other) * px_per_decade) >= (width_of(words) + width_of(near)) / 2 + TICK_GAP
            for other, near in kept
        ):
            kept.append((ratio, words))
    return sorted(kept)


class VerdictPlot(QWidget):
    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        name_of: Callable[[VerdictRow], str] | None = None,
        tip_of: Callable[[VerdictRow], str] | None = None,
    ) -> None:
        """`name_of`: a row's name on the axis (its title: recipe, workload, configuration and what it is compared
        with); the Run page, which shows one recipe, leaves the recipe out. `tip_of`: the row's name in full, its
        tooltip and accessible text (the Run page adds "by hand, 5 blocks" there: the axis has no room for it)."""
        super().__init__(parent)
        self.name_of = name_of or (lambda row: row.title)
        self.tip_of = tip_of or self.name_of
        self.graphics, self.plot = static_plot()  # a verdict is read, not explored
        self.plot.setLabel("bottom", AXIS_WORDS, color=TEXT_COLOR)
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)  # the axis is log10 of a ratio: no "(x0.001)"
        self.note = chart_words(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.graphics)
        layout.addWidget(self.note)
        self.rows: list[VerdictRow] = []
        self.names: list[str] = []  # each row's name as the axis shows it
        self.shown_names: list[str] = []  # as drawn at the present width (elided in the middle when too long)
        self.tips: list[str] = []  # each row's name in full, over its name on the axis
        self.graphics.viewport().installEventFilter(self)
        self.estimates: pg.ScatterPlotItem | None = None
        self.band: pg.BarGraphItem | None = None  # the margins, a row each
        self.intervals: pg.BarGraphItem | None = None  # the rows with an interval
        self.x_ticks: list[tuple[float, str]] = []  # (ratio, words)
        self._x_range = (-1.0, 1.0)  # log10 of the ratios shown

    def set_rows(self, rows: Sequence[VerdictRow]) -> None:
        self.plot.clear()
        self.rows = list(rows)
        self.names = [self.name_of(r) + (EXPECTED_SAME if r.expected_same else "") for r in self.rows]
        self.tips = [self.tip_of(r) for r in self.rows]
        self.setAccessibleDescription(
            "; ".join(f"{tip}: {r.text}" for tip, r in zip(self.tips, self.rows, strict=True))
        )
        ys = [-float(i) for i in range(len(self.rows))]
        margins = [math.log10(1 + r.margin_percent / 100) for r in self.rows]
        if self.rows:
            band = self.band = pg.BarGraphItem(
                x0=[-m for m in margins], x1=margins, y=ys, height=BAND_HEIGHT, brush=pg.mkBrush(BAND_COLOUR), pen=None
            )
            self.plot.addItem(band)
        self.plot.addItem(
            pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen("#707070", width=1, style=Qt.PenStyle.DashLine))
        )
        shown = [(y, r) for y, r in zip(ys, self.rows, strict=True) if r.low is not None and r.high is not None]
        if shown:
            bars = self.intervals = pg.BarGraphItem(
                x0=[_x(r.low or 1) for _, r in shown],
                x1=[_x(r.high or 1) for _, r in shown],
                y=[y for y, _ in shown],
                height=INTERVAL_HEIGHT,
                brushes=[pg.mkBrush(KIND_PLOT_COLOURS.get(r.kind, TEXT_COLOR)) for _, r in shown],
                pens=[pg.mkPen(KIND_PLOT_COLOURS.get(r.kind, TEXT_COLOR)) for _, r in shown],
            )
            self.plot.addItem(bars)
        estimated = [(y, r) for y, r in zip(ys, self.rows, strict=True) if r.ratio is not None]
        self.estimates = pg.ScatterPlotItem(
            x=np.array([_x(r.ratio or 1) for _, r in estimated], dtype=float),
            y=np.array([y for y, _ in estimated], dtype=float),
            data=[r.text for _, r in estimated],
            symbol="d",
            size=12,
            pen=pg.mkPen(TEXT_COLOR, width=1),
            # the verdict's colour on the estimate too: a settled interval is often narrower than the diamond
            brush=[pg.mkBrush(KIND_PLOT_COLOURS.get(r.kind, TEXT_COLOR)) for _, r in estimated],
            hoverable=True,
            tip=lambda x, y, data: data,
        )
        self.plot.addItem(self.estimates)
        for y, row in zip(ys, self.rows, strict=True):
            if row.ratio is None:  # under two rounds: no estimate, and the row says why
                text = pg.TextItem(NO_ESTIMATE, color="#505050", anchor=(0.5, 0.5))
                text.setPos(0, y)
                self.plot.addItem(text)
        low, high = ratio_span(self.rows)
        # as wide each way, "same" in the middle: slower and faster read at the same scale, and both sides get words
        reach = 1.08 * max(-math.log10(low), math.log10(high))
        self._x_range = (-reach, reach)
        self.plot.setXRange(*self._x_range, padding=0)
        self.plot.setYRange(-len(self.rows) + 0.5, 0.5, padding=0)
        self.note.setText(self._legend())
        self._fit_height()
        self._set_axes()

    def _legend(self) -> str:
        kinds = dict.fromkeys(r.kind for r in self.rows)
        items = [
            f"<span style='color: {KIND_PLOT_COLOURS.get(k, TEXT_COLOR)}'>■</span> {html.escape(KIND_WORDS.get(k, k))}"
            for k in kinds
        ]
        margins = sorted({r.margin_percent for r in self.rows})
        within = f"±{margins[0]:g} %" if len(margins) == 1 else "each recipe's margin"
        if any(r.expected_same for r in self.rows):
            items.append("[A/A]: expected to measure the same")
        return (
            " &nbsp; ".join(items)
            + f" · shaded: within {within}, no difference that matters · ◆ the estimate, bar: its 95 % CI"
            + f" (corrected for {corrected_for(self.rows)})"
        )

    def _note_height(self) -> int:
        """The legend's height at the present width: at least two lines, more where it wraps (the Run page's
        narrow column)."""
        two_lines = 2 * QFontMetrics(self.note.font()).lineSpacing() + 8
        text = QTextDocument()
        text.setDefaultFont(self.note.font())
        text.setDocumentMargin(0)
        text.setHtml(self.note.text())
        text.setTextWidth(max(1, self.width() - WORDS_PADDING[1] * 2))
        return max(two_lines, math.ceil(text.size().height()) + WORDS_PADDING[0] * 2 + 4)

    def _fit_height(self) -> None:
        self.setFixedHeight(FRAME_HEIGHT + ROW_HEIGHT * max(1, len(self.rows)) + self._note_height())

    def _set_axes(self) -> None:
        self._set_names()
        low, high = 10 ** self._x_range[0], 10 ** self._x_range[1]
        # the plot's width in px: the axis' words must not touch at the present width
        width = max(1.0, self.width() - self.plot.getAxis("left").width() - 30)
        laid_out = self.plot.getViewBox().width()
        if laid_out > 1:  # once laid out, the view's own width: the estimate was wider, and an end tick was cut
            width = min(width, laid_out)
        per_unit = width / (self._x_range[1] - self._x_range[0])
        metrics = QFontMetrics(self.plot.getAxis("bottom").style["tickFont"] or QFont())
        self.x_ticks = spaced(ratio_ticks(low, high), per_unit, metrics.horizontalAdvance, width / 2)
        if len(self.x_ticks) < 3:  # a narrow plot: the ratios alone, the axis' title says which side is faster
            self.x_ticks = spaced(ratio_ticks(low, high, short=True), per_unit, metrics.horizontalAdvance, width / 2)
        self.plot.getAxis("bottom").setTicks([[(math.log10(t), words) for t, words in self.x_ticks], []])

    def _set_names(self) -> None:
        """The rows' names on the left axis, as wide as the longest needs up to LABEL_SHARE of the width: pyqtgraph
        would widen the axis only after a first, clipped paint."""
        axis = self.plot.getAxis("left")
        metrics = QFontMetrics(axis.style["tickFont"] or QFont())
        room = max(120, int(self.width() * LABEL_SHARE))
        names = self.shown_names = [metrics.elidedText(n, Qt.TextElideMode.ElideMiddle, room) for n in self.names]
        axis.setWidth(min(room, max((metrics.horizontalAdvance(n) for n in names), default=0)) + 14)
        axis.setTicks([[(-float(i), name) for i, name in enumerate(names)], []])

    def tip_at(self, pos: QPointF) -> str | None:
        """The full name of the row whose name on the axis is at `pos` (the graphics view's coordinates)."""
        axis = self.plot.getAxis("left")
        scene = self.graphics.mapToScene(pos.toPoint())
        if not axis.sceneBoundingRect().contains(scene):
            return None  # over the plot the estimate's own tooltip says the verdict
        index = round(-self.plot.getViewBox().mapSceneToView(scene).y())
        return self.tips[index] if 0 <= index < len(self.tips) else None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            tip = self.tip_at(QPointF(event.pos()))
            if tip is not None:
                QToolTip.showText(event.globalPos(), tip, self.graphics)
                return True
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.rows:
            if event.size().width() != event.oldSize().width():
                self._fit_height()
            self._set_axes()
