"""History's trend: one small chart per workload (their units differ: MB/s, ms, s, files/s), two to a row, dates
along the bottom, each session's headline figure as a point on a line, every round of it as a faint dot (their
spread), its 95 % interval as a bar where the rounds give one, a dashed line named for what changed where the
settings in force changed, a solid line lettered for each change point a watch found (results/watch.py) with a
triangle on the point of each workload that moved there, and the session selected in History drawn larger. Fed a
finished results.trend model and its change points; draws nothing else."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from nfstune.report.chart import nice_ticks
from nfstune.results.trend import WorkloadTrend, day_text, figure_text, mark_numbers
from nfstune.results.watch import SessionChange, change_letter
from nfstune.statistics.stats import format_value
from nfstune.ui.widgets.static_plot import TEXT_COLOR

LINE_COLOR = "#1f5fa0"
INTERVAL_COLOR = (31, 95, 160, 90)  # translucent: an interval is the uncertainty, the point is the figure
ROUND_COLOR = (31, 95, 160, 70)  # fainter still: a round is one of the figures the median is made of
SELECTED_COLOR = "#d9480f"
MARK_COLOR = "#6a6a6a"
CHANGE_COLOR = "#b3261e"  # a change point: on the chart's white ground whatever the window's scheme
COLUMN_WIDTH = 230  # px a chart needs at least: as many side by side as fit (4 at 1024 px, the first look's)
ROW_HEIGHT = 180  # px a chart needs for its title, its dates and a readable line; the tab scrolls below that
TICKS = 4
TITLE_SIZE = "9pt"
# px of a chart's share of the width that are not under its title: the left axis (ticks and unit), the margins, and
# the scroll bar; the title is centred over the plot's area and must not run into the next chart (issue 41)
AXIS_ROOM = 64
LONE_SPAN = 86400.0  # the x range around a single session: a day either side


class TrendChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        # room on the right for the last chart's last date, centred on its tick at the plot's edge ("Nov" was cut)
        self.graphics.ci.layout.setContentsMargins(4, 4, 16, 4)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll.setWidget(self.graphics)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll)
        # per workload, for the page and the tests: what is drawn
        self.plots: dict[str, pg.PlotItem] = {}
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.points: dict[str, pg.ScatterPlotItem] = {}
        self.rounds: dict[str, pg.ScatterPlotItem] = {}
        self.intervals: dict[str, pg.ErrorBarItem] = {}
        self.mark_lines: dict[str, list[pg.InfiniteLine]] = {}
        self.highlights: dict[str, pg.ScatterPlotItem] = {}
        self.change_lines: dict[str, list[pg.InfiniteLine]] = {}
        self.change_markers: dict[str, pg.ScatterPlotItem] = {}
        self._change_points: list[SessionChange] = []
        self._trends: list[WorkloadTrend] = []
        self._selected: int | None = None
        self._columns = 0

    def set_trends(
        self,
        trends: Sequence[WorkloadTrend],
        selected: int | None = None,
        change_points: Sequence[SessionChange] = (),
    ) -> None:
        """`selected`: the session History has selected, drawn larger where it has a point; `change_points`: the
        watch's, oldest first, lettered A, B, ... in that order."""
        self.graphics.clear()
        self.plots, self.curves, self.points, self.intervals, self.mark_lines = {}, {}, {}, {}, {}
        self.highlights, self.rounds, self.change_lines, self.change_markers = {}, {}, {}, {}
        self._trends, self._selected, self._change_points = list(trends), selected, list(change_points)
        self._columns = self._fitting_columns()
        numbers = mark_numbers(trends)
        times = [p.started_at for t in trends for p in t.points]
        first, last = (min(times), max(times)) if times else (0.0, 0.0)
        if last - first < 1:
            first, last = first - LONE_SPAN, last + LONE_SPAN
        pad = (last - first) * 0.04
        linked: pg.PlotItem | None = None
        for i, trend in enumerate(trends):
            plot = self.graphics.addPlot(
                row=i // self._columns,
                col=i % self._columns,
                axisItems={"bottom": pg.DateAxisItem(orientation="bottom")},
            )
            self._draw(plot, trend, numbers)
            self._draw_change_points(plot, trend)
            plot.setXRange(first - pad, last + pad, padding=0)
            if linked is None:
                linked = plot
            else:
                plot.setXLink(linked)  # one date range for every chart: a zoom on one moves them all
            self.plots[trend.workload] = plot
        rows = math.ceil(len(trends) / self._columns)
        self.graphics.setMinimumHeight(rows * ROW_HEIGHT)
        self._fit_titles()
        self.set_selected(selected)

    def set_selected(self, session_id: int | None) -> None:
        """Draw `session_id`'s points larger (none: no point stands out); the charts stay as they are."""
        self._selected = session_id
        for trend in self._trends:
            plot = self.plots[trend.workload]
            if trend.workload in self.highlights:
                plot.removeItem(self.highlights.pop(trend.workload))
            chosen = [p for p in trend.points if p.session_id == session_id]
            if not chosen:
                continue
            mark = pg.ScatterPlotItem(
                x=[chosen[0].started_at],
                y=[chosen[0].median],
                size=13,
                brush=pg.mkBrush(SELECTED_COLOR),
                pen=pg.mkPen(TEXT_COLOR),
            )
            mark.setZValue(10)
            plot.addItem(mark)
            self.highlights[trend.workload] = mark

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self._trends and self._fitting_columns() != self._columns:  # another column fits now, or one no more
            self.set_trends(self._trends, self._selected, self._change_points)
        else:
            self._fit_titles()

    def _fitting_columns(self) -> int:
        return max(1, min(len(self._trends), self.width() // COLUMN_WIDTH))

    def _fit_titles(self) -> None:
        """Every title on one line where all fit their charts, else every one on two (the figure, then which way is
        better: charts side by side keep their plots level), a line still too long cut short; the whole title is
        the tooltip. At 1024 px four charts share the width, and "sync-4k (ms, p50; lower is better)" ran into the
        next one."""
        if not self.plots or not self.isVisible():  # measured once shown: a hidden widget's width is not its own
            return
        self._title_lines(self.width() / self._columns - AXIS_ROOM)
        # a title too long for its chart widened the charts past the view, and they stayed so once it was shorter:
        # the view sets the charts' width only as it is resized itself ("Nov" and the last title were cut)
        for item in (*self.plots.values(), self.graphics.ci):  # their least widths as the titles now ask, not before
            item.layout.invalidate()
            item.updateGeometry()
        self.graphics.ci.setGeometry(self.graphics.range)

    def _title_lines(self, room: float) -> None:
        trends = [t for t in self._trends if t.workload in self.plots]
        for split in (False, True):
            for trend in trends:
                self._set_title(trend, chart_title(trend, split))
            if all(self._title_width(t.workload) <= room for t in trends):
                return
        for trend in trends:
            label = self.plots[trend.workload].titleLabel
            metrics = QFontMetricsF(label.item.font())
            margins = 2 * label.item.document().documentMargin()
            lines = chart_title(trend, split=True).split("\n")
            self._set_title(
                trend,
                "\n".join(metrics.elidedText(line, Qt.TextElideMode.ElideRight, room - margins) for line in lines),
            )

    def _set_title(self, trend: WorkloadTrend, text: str) -> None:
        plot = self.plots[trend.workload]
        lines = "<br>".join(html.escape(line) for line in text.split("\n"))
        if plot.titleLabel.text != lines:  # the same text again would ask the layout again, and redraw
            plot.setTitle(lines, color=TEXT_COLOR, size=TITLE_SIZE)
        plot.titleLabel.setToolTip(chart_title(trend, split=False))

    def _title_width(self, workload: str) -> float:
        return float(self.plots[workload].titleLabel.item.boundingRect().width())

    def _draw(self, plot: pg.PlotItem, trend: WorkloadTrend, numbers: Mapping[int, int]) -> None:
        plot.setTitle(html.escape(chart_title(trend, split=False)), color=TEXT_COLOR, size=TITLE_SIZE)
        plot.setMouseEnabled(x=True, y=False)  # months of sessions: the dates may be zoomed, the figures not
        plot.hideButtons()
        for side in ("left", "bottom"):
            plot.getAxis(side).setTextPen(TEXT_COLOR)
        x = np.array([p.started_at for p in trend.points], dtype=float)
        y = np.array([p.median for p in trend.points], dtype=float)
        tips = {
            p.session_id: f"session {p.session_id}, {day_text(p.started_at)}: {figure_text(p, trend.unit)} "
            f"[{p.recipe}: {p.config_label}]"
            for p in trend.points
        }
        rounds = pg.ScatterPlotItem(
            x=np.array([p.started_at for p in trend.points for _ in p.values], dtype=float),
            y=np.array([v for p in trend.points for v in p.values], dtype=float),
            size=4,
            pen=None,
            brush=pg.mkBrush(ROUND_COLOR),
        )
        plot.addItem(rounds)
        self.rounds[trend.workload] = rounds
        curve = pg.PlotDataItem(x, y, pen=pg.mkPen(LINE_COLOR, width=2))
        plot.addItem(curve)
        self.curves[trend.workload] = curve
        points = pg.ScatterPlotItem(
            x=x,
            y=y,
            data=[p.session_id for p in trend.points],
            size=7,
            pen=None,
            brush=pg.mkBrush(LINE_COLOR),
            hoverable=True,
            tip=lambda x, y, data: tips[data],
        )
        points.setZValue(5)
        plot.addItem(points)
        self.points[trend.workload] = points
        with_ci = [p for p in trend.points if p.ci is not None]
        if with_ci:
            bars = pg.ErrorBarItem(
                x=np.array([p.started_at for p in with_ci]),
                y=np.array([p.median for p in with_ci]),
                top=np.array([p.ci[1] - p.median for p in with_ci if p.ci]),
                bottom=np.array([p.median - p.ci[0] for p in with_ci if p.ci]),
                beam=0,
                pen=pg.mkPen(INTERVAL_COLOR, width=4),
            )
            plot.addItem(bars)
            self.intervals[trend.workload] = bars
        lines = []
        for mark in trend.marks:
            line = pg.InfiniteLine(
                pos=mark.started_at,
                angle=90,
                pen=pg.mkPen(MARK_COLOR, width=1, style=Qt.PenStyle.DashLine),
                # its number in the list under the charts: the names of what changed would not fit a small chart
                label=str(numbers[mark.session_id]),
                labelOpts={"position": 0.95, "color": MARK_COLOR, "fill": "w", "anchors": [(-0.2, 0), (-0.2, 0)]},
            )
            line.setToolTip(f"{numbers[mark.session_id]}: session {mark.session_id}: {mark.text}")
            plot.addItem(line)
            lines.append(line)
        self.mark_lines[trend.workload] = lines
        highest = max((v for p in trend.points for v in p.values), default=1.0)
        plot.setYRange(0, nice_ticks(highest, TICKS)[-1], padding=0)
        plot.setLabel("left", trend.unit, color=TEXT_COLOR)

    def _draw_change_points(self, plot: pg.PlotItem, trend: WorkloadTrend) -> None:
        """A solid line at each change point on every chart (a ceiling's change concerns them all), and a
        triangle on the point of this workload where it moved."""
        lines, moved = [], []
        points = {p.session_id: p for p in trend.points}
        for i, change in enumerate(self._change_points):
            letter = change_letter(i)
            line = pg.InfiniteLine(
                pos=change.started_at,
                angle=90,
                pen=pg.mkPen(CHANGE_COLOR, width=2),
                label=letter,
                labelOpts={"position": 0.08, "color": CHANGE_COLOR, "fill": "w", "anchors": [(1.2, 1), (1.2, 1)]},
            )
            line.setToolTip(f"{letter}: {change.headline}")
            plot.addItem(line)
            lines.append(line)
            if change.session_id in points and any(m.name == trend.workload for m in change.workloads):
                moved.append(points[change.session_id])
        self.change_lines[trend.workload] = lines
        if moved:
            markers = pg.ScatterPlotItem(
                x=[p.started_at for p in moved],
                y=[p.median for p in moved],
                symbol="t",
                size=14,
                brush=pg.mkBrush(CHANGE_COLOR),
                pen=pg.mkPen("w"),
            )
            markers.setZValue(8)
            plot.addItem(markers)
            self.change_markers[trend.workload] = markers

    def figures(self, workload: str) -> list[tuple[int, float, float]]:
        """(session, date, figure) of every point drawn for `workload`, in date order: what a reader sees."""
        return [(int(s.data()), float(s.pos().x()), float(s.pos().y())) for s in self.points[workload].points()]

    def summary(self) -> str:
        """One line per chart, for a screen reader (the charts themselves are pictures)."""
        return "\n".join(
            f"{t.workload}: " + ", ".join(f"{format_value(p.median)} {t.unit}" for p in t.points) for t in self._trends
        )


def chart_title(trend: WorkloadTrend, split: bool) -> str:
    """ "sync-4k (ms, p50; lower is better)", or split after the figure: "sync-4k (ms, p50)\nlower is better"."""
    better = f"{'higher' if trend.higher_is_better else 'lower'} is better"
    figure = f"{trend.unit}, {trend.figure_name}" if trend.figure_name else trend.unit  # p50: sync-4k's typical write
    return f"{trend.workload} ({figure})\n{better}" if split else f"{trend.workload} ({figure}; {better})"
