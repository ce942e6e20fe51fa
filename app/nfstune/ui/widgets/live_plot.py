"""The live plot of a running measurement: client NFS (bytes a second, and requests a second on the right-hand
axis, which is what small files and sync writes move), server disk and server CPU on one time axis. A pause in
the samples (the export being changed between configurations) breaks the lines instead of drawing a ramp across it.

Sampler threads call `LivePlot.push`, which only appends to a bounded ring buffer under a lock; a QTimer on the GUI
thread pulls snapshots, cut to about two points a pixel (decimate.py, every peak kept), and hands pyqtgraph those of
the series that changed. Workers never touch a widget, and memory stays bounded however long a run lasts.

Words never cover the data: each plot's title and key (its series, its ceilings with their figures) are in a
header row above it, and the markers' labels sit in a strip kept free at the top of the client plot.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QVBoxLayout, QWidget

from nfstune.ui.widgets.chart_header import ChartHeader
from nfstune.ui.widgets.decimate import bucket_width, min_max
from nfstune.ui.widgets.live_ranges import time_range, y_range
from nfstune.ui.widgets.series_buffer import DEFAULT_CAPACITY, SeriesBuffer
from nfstune.ui.widgets.static_plot import TEXT_COLOR
from nfstune.ui.widgets.time_axis import TimeAxis

TICK_MS = 500
BYTES_PER_MB = 1e6
AXIS_WIDTH = 46  # px, left and right on every plot, so that the linked x axes stay aligned
AXIS_FONT_PT = 8
MARKER_FONT_PT = 8
MARKER_MARGIN_PX = 1  # around a marker label's words (Qt's 4 would take the data's room)
MARKER_GAP_PX = 6  # between two marker labels shown side by side


@dataclass(frozen=True)
class SeriesSpec:
    plot: str  # key in LivePlot.plots
    label: str  # legend text
    color: str
    scale: float  # pushed value / scale = plotted value
    right: bool = False  # on the plot's right-hand axis (its own scale)
    lazy: bool = False  # drawn (and in the legend) only once it has data: the lines of a load from several clients


# Throughput is pushed in bytes/s (what the samplers measure) and shown in MB/s; CPU is pushed and shown in %.
LIVE_SERIES: dict[str, SeriesSpec] = {
    "client_read": SeriesSpec("client", "read", "#1f77b4", BYTES_PER_MB),
    "client_write": SeriesSpec("client", "write", "#d62728", BYTES_PER_MB),
    "client_ops": SeriesSpec("client", "requests/s (right)", "#8c6d00", 1.0, right=True),
    "disk_read": SeriesSpec("disk", "read", "#1f77b4", BYTES_PER_MB),
    "disk_write": SeriesSpec("disk", "write", "#d62728", BYTES_PER_MB),
    "server_cpu": SeriesSpec("cpu", "busy", "#2ca02c", 1.0),
    # several clients at once: each client's NFS traffic (read + write) and theirs together
    "clients_all": SeriesSpec("client", "all clients", "#000000", BYTES_PER_MB, lazy=True),
    "client_total": SeriesSpec("client", "client", "#9467bd", BYTES_PER_MB, lazy=True),
    "client2_total": SeriesSpec("client", "client2", "#e377c2", BYTES_PER_MB, lazy=True),
    "client3_total": SeriesSpec("client", "client3", "#17becf", BYTES_PER_MB, lazy=True),
    "client4_total": SeriesSpec("client", "client4", "#bcbd22", BYTES_PER_MB, lazy=True),
}
PLOT_TITLES = {"client": "Client NFS (MB/s)", "disk": "Server disk (MB/s)", "cpu": "Server CPU (%)"}
# the plots' data areas about as tall as each other: the bottom plot's share also holds the time axis (about a sixth
# of it at 380-520 px), which keeps each of the three at 90 px or more down to a 380 px tall live plot
ROW_STRETCH = {"client": 5, "disk": 5, "cpu": 6}
MIN_TOP = {"client": 1.0, "disk": 1.0, "cpu": 10.0, "right": 10.0}  # an idle run still gets a readable axis
CEILING_COLOR = "#7f3fbf"
MARKER_COLOR = "#606060"


def ceiling_words(name: str, value_mb_s: float) -> str:
    """'network (iperf3, client → server)' 39.8 -> 'network client → server 39.8 MB/s': the tool's name is in the
    log, the header has room for what the line means."""
    short = re.sub(r" \(iperf3, ([^)]*)\)", r" \1", name)
    return f"{short} {value_mb_s:.3g} MB/s"


@dataclass(eq=False)
class Marker:
    t: float  # on the clock of push
    text: str
    lines: list[pg.InfiniteLine]  # one a plot, in the order of LivePlot.plots
    label: pg.TextItem  # at the top of the client plot, shown where it has room


class LivePlot(QWidget):
    """Three stacked plots with linked x axes, each under a header with its title and key. Times are plotted as
    seconds since the first point pushed."""

    def __init__(self, parent: QWidget | None = None, capacity: int = DEFAULT_CAPACITY) -> None:
        super().__init__(parent)
        self.buffers = {name: SeriesBuffer(capacity) for name in LIVE_SERIES}
        self._origin: float | None = None  # first time pushed: x = t - origin keeps the axis in small numbers
        self._origin_lock = threading.Lock()
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.graphics.ci.setContentsMargins(2, 4, 4, 2)
        self.graphics.ci.layout.setVerticalSpacing(0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)

        tick_font = QFont()
        tick_font.setPointSizeF(AXIS_FONT_PT)
        self.headers: dict[str, ChartHeader] = {}
        self.plots: dict[str, pg.PlotItem] = {}
        for index, (key, title) in enumerate(PLOT_TITLES.items()):
            self.headers[key] = ChartHeader(title)
            self.graphics.addItem(self.headers[key], row=2 * index, col=0)
            plot = self.graphics.addPlot(row=2 * index + 1, col=0, axisItems={"bottom": TimeAxis("bottom")})
            self.graphics.ci.layout.setRowStretchFactor(2 * index + 1, ROW_STRETCH[key])
            plot.hideButtons()
            plot.setClipToView(True)
            # a grid of the left axis' round figures only: the markers are the vertical guides, and grid lines
            # cost most of a redraw (issue 39: the GUI thread's lateness)
            plot.showGrid(x=False, y=True, alpha=0.15)
            plot.getAxis("right").setGrid(False)  # showGrid gives it the left's lines again, at most of a redraw's cost
            plot.setMouseEnabled(x=True, y=False)  # y is managed in _rescale_y
            plot.enableAutoRange(x=False, y=False)  # x follows the run in _follow_run, in steps
            plot.showAxis("right")
            for side in ("left", "bottom", "right"):
                axis = plot.getAxis(side)
                axis.setTextPen(TEXT_COLOR)
                axis.setStyle(tickFont=tick_font, tickLength=-4)
            for side in ("left", "right"):
                plot.getAxis(side).setWidth(AXIS_WIDTH)  # equal widths keep the linked x axes aligned
            plot.getAxis("left").setStyle(maxTickLevel=0)
            if key != "client":
                plot.setXLink(self.plots["client"])
                plot.getAxis("right").setStyle(showValues=False)
            if key != "cpu":  # the time's figures once, under the bottom plot
                plot.getAxis("bottom").setStyle(showValues=False)
            else:  # "0 min" and the end's figure reach under the side axes' empty corners rather than go missing
                plot.getAxis("bottom").setStyle(hideOverlappingLabels=False)
            self.plots[key] = plot
        self.legends = self.headers  # each plot's key (pyqtgraph's name): in the header above it
        # the client's requests a second on a scale of their own (pyqtgraph's MultiplePlotAxes example)
        client = self.plots["client"]
        self.right_view = pg.ViewBox()
        client.scene().addItem(self.right_view)
        client.getAxis("right").linkToView(self.right_view)
        client.getAxis("right").setTextPen(LIVE_SERIES["client_ops"].color)
        self.right_view.setXLink(client)
        self.right_view.setMouseEnabled(x=False, y=False)
        client.vb.sigResized.connect(self._place_right_view)

        self.curves: dict[str, pg.PlotDataItem] = {}
        self._drawn: dict[str, tuple[int, float | None, float]] = {}  # what each curve shows: _on_tick's key
        self._tops: dict[str, float] = {}  # the highest point of each curve drawn
        self.draws: dict[str, int] = dict.fromkeys(LIVE_SERIES, 0)  # setData calls a series (skipped ones not)
        self._marker_px = QFontMetrics(self._marker_font()).height() + 2 * MARKER_MARGIN_PX  # a label's height
        self._width_drawn = 0.0
        self._redraw_due = False
        self._following = True  # the time axis follows the run (_follow_run)
        self._x_range: tuple[float, float] | None = None  # the one _follow_run asked for
        self._x_set = tuple(self.plots["client"].viewRange()[0])  # what pyqtgraph made of it (with its padding)
        for name, spec in LIVE_SERIES.items():
            if not spec.lazy:  # _draw_lazy adds it with its first data
                self._add_curve(name, spec)

        self.ceilings: dict[tuple[str, str], tuple[pg.InfiniteLine, float]] = {}
        self.markers: list[Marker] = []
        for plot in self.plots.values():
            plot.vb.sigResized.connect(self._on_view_changed)
        self.plots["client"].vb.sigXRangeChanged.connect(self._on_view_changed)

        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._on_tick)

    def _add_curve(self, name: str, spec: SeriesSpec) -> None:
        # one pixel wide: Qt's raster engine draws wider lines through its stroker, at twice the cost of the whole
        # redraw (issue 39: the GUI thread's lateness)
        if spec.right:
            pen = pg.mkPen(spec.color, width=1, style=Qt.PenStyle.DashLine)
        elif spec.lazy:
            pen = pg.mkPen(spec.color, width=1, style=Qt.PenStyle.DashDotLine)
        else:
            pen = pg.mkPen(spec.color, width=1)
        # decimated in _on_tick already: pyqtgraph's own downsampling would only cost time; clipping to the view
        # still helps when the admin zooms in
        curve = pg.PlotDataItem(pen=pen, connect="finite", clipToView=True)
        (self.right_view if spec.right else self.plots[spec.plot]).addItem(curve)
        self.headers[spec.plot].add_series(name, spec.label, pen)
        self.curves[name] = curve

    # --- any thread ---------------------------------------------------------------------------------------------

    def push(self, series: str, t: float, value: float) -> None:
        """Thread-safe: throughput in bytes/s, CPU in %. Unknown series names raise KeyError."""
        buffer = self.buffers[series]
        with self._origin_lock:  # one lock with clear(), so no point lands between a clear and its new origin
            if self._origin is None:
                self._origin = t
            buffer.append(t, value)

    # --- GUI thread ---------------------------------------------------------------------------------------------

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def refresh(self) -> None:
        """Draw what the buffers hold now, without waiting for the timer."""
        self._on_tick()

    def _place_right_view(self) -> None:
        client = self.plots["client"]
        self.right_view.setGeometry(client.vb.sceneBoundingRect())
        self.right_view.linkedViewChanged(client.vb, self.right_view.XAxis)

    def _on_view_changed(self) -> None:
        self._rescale_y()  # the room kept for the marker labels is in pixels
        self._place_marker_labels()
        if self._width_drawn != self._bucket_width() and not self._redraw_due:
            # zoomed, resized or grown: cut to the new pixel width, also once the run is over and the timer stopped
            # (soon, not inside pyqtgraph's range signal)
            self._redraw_due = True
            QTimer.singleShot(0, self, self._on_tick)

    def _draw_lazy(self) -> None:
        for name, spec in LIVE_SERIES.items():
            if spec.lazy and name not in self.curves and len(self.buffers[name]):
                self._add_curve(name, spec)

    def _bucket_width(self) -> float:
        """Seconds a bucket of decimate.min_max: about a pixel of the view (which with auto range spans the data)."""
        view = self.plots["client"].vb
        (left, right), _ = view.viewRange()
        return bucket_width(right - left, view.width())

    def _on_tick(self) -> None:
        self._redraw_due = False
        origin = self._current_origin()
        self._follow_run(origin)
        self._draw_lazy()
        width = self._width_drawn = self._bucket_width()
        drawn = False
        for name, curve in self.curves.items():
            buffer = self.buffers[name]
            key = (buffer.version, origin, width)
            if self._drawn.get(name) == key:
                continue  # nothing new: pyqtgraph would redo its bounds, clipping and path for the same line
            self._drawn[name] = key
            t, v = buffer.snapshot()
            x, y = min_max(t - (origin or 0.0), v / LIVE_SERIES[name].scale, width)
            curve.setData(x, y)
            self.draws[name] += 1
            finite = y[np.isfinite(y)]
            self._tops[name] = float(finite.max()) if len(finite) else 0.0
            drawn = True
        if drawn:
            self._rescale_y()
        self._place_marker_labels()

    def _current_origin(self) -> float | None:
        with self._origin_lock:
            return self._origin

    def _marker_strip(self, view: pg.ViewBox) -> float:
        """The part of the client view's height kept free above the data for the marker labels."""
        height = view.height()
        if height <= 0:
            return 0.0
        return min(0.4, (self._marker_px + 2) / height)

    @staticmethod
    def _marker_font() -> QFont:
        font = QFont()
        font.setPointSizeF(MARKER_FONT_PT)
        return font

    def _rescale_y(self) -> None:
        """y from a little below 0 to a little above the data and the ceilings, so that a ceiling is always in view;
        on the client plot, the data stays below the marker labels (pyqtgraph's auto range ignores InfiniteLines
        and hugs the data)."""
        for key, plot in self.plots.items():
            tops = [self._tops[n] for n, s in LIVE_SERIES.items() if s.plot == key and not s.right and n in self._tops]
            tops += [value for (plot_key, _), (_, value) in self.ceilings.items() if plot_key == key]
            top = max([MIN_TOP[key], *tops])
            strip = self._marker_strip(plot.vb) if key == "client" else 0.0
            plot.setYRange(*y_range(top, strip), padding=0)
        top = max(MIN_TOP["right"], self._tops.get("client_ops", 0.0))
        self.right_view.setYRange(*y_range(top, self._marker_strip(self.plots["client"].vb)), padding=0)

    def _follow_run(self, origin: float | None) -> None:
        """The time axis from the start to the next round length, until the admin zooms or pans (pyqtgraph's own
        "Auto" in the plot's menu follows the run again)."""
        view = self.plots["client"].vb
        if view.autoRangeEnabled()[0]:
            view.enableAutoRange(x=False)
            self._following, self._x_range = True, None
        elif not np.allclose(view.viewRange()[0], self._x_set):
            self._following = False  # moved by someone else than us
        if not self._following:
            return
        bounds = [b for b in (buffer.bounds() for buffer in self.buffers.values()) if b is not None]
        first = min((b[0] for b in bounds), default=origin or 0.0) - (origin or 0.0)
        last = max((b[1] for b in bounds), default=origin or 0.0) - (origin or 0.0)
        start, end = time_range(first, last)
        if self._x_range != (start, end):
            self._x_range = (start, end)
            view.setXRange(start, end, padding=0.01)
            self._x_set = tuple(view.viewRange()[0])

    def set_ceiling(self, plot: str, name: str, value_mb_s: float | None) -> None:
        """A dashed horizontal line on plot "client" or "disk", its name and value in the plot's header (never over
        the data); the same name again moves it, None removes it."""
        key = (plot, name)
        if key in self.ceilings:
            line, _ = self.ceilings.pop(key)
            self.plots[plot].removeItem(line)
        pen = pg.mkPen(CEILING_COLOR, width=1.5, style=Qt.PenStyle.DashLine)
        if value_mb_s is None:
            self.headers[plot].set_ceiling(name, None, pen, CEILING_COLOR)
        else:
            line = pg.InfiniteLine(pos=value_mb_s, angle=0, pen=pen)
            line.setZValue(10)  # above the curves: the data running along its ceiling is the interesting case
            self.plots[plot].addItem(line, ignoreBounds=True)
            self.ceilings[key] = (line, value_mb_s)
            self.headers[plot].set_ceiling(name, ceiling_words(name, value_mb_s), pen, CEILING_COLOR)
        self._rescale_y()

    def set_marker(self, t: float, text: str) -> None:
        """A vertical line at time t (same clock as push) on every plot, labelled at the top of the client plot."""
        with self._origin_lock:
            if self._origin is None:
                self._origin = t
            x = t - self._origin
        lines = []
        for plot in self.plots.values():
            line = pg.InfiniteLine(pos=x, angle=90, pen=pg.mkPen(MARKER_COLOR, width=1, style=Qt.PenStyle.DotLine))
            plot.addItem(line, ignoreBounds=True)
            lines.append(line)
        label = pg.TextItem(text, color=MARKER_COLOR, fill=(255, 255, 255, 210))
        label.setFont(self._marker_font())
        label.textItem.document().setDocumentMargin(MARKER_MARGIN_PX)
        label.setZValue(20)
        self.plots["client"].addItem(label, ignoreBounds=True)
        self.markers.append(Marker(t, text, lines, label))
        self._place_marker_labels()

    def _place_marker_labels(self) -> None:
        """Each label at the top of its line, right of it where there is room (else left of it), shown only while
        the line is in view and where it touches no label already shown: the newest first, the configuration that
        is running now."""
        view = self.plots["client"].vb
        (left, right), (_, top) = view.viewRange()
        frame = view.sceneBoundingRect()
        origin = self._current_origin()
        shown: list[tuple[float, float]] = []  # scene x spans of the labels shown
        for marker in reversed(self.markers):
            x = marker.t - (origin if origin is not None else marker.t)
            width = marker.label.textItem.boundingRect().width()
            at = view.mapViewToScene(QPointF(x, top)).x()
            span = (at, at + width) if at + width <= frame.right() else (at - width, at)
            fits = left <= x <= right and span[0] >= frame.left()
            fits = fits and all(span[1] + MARKER_GAP_PX <= a or b + MARKER_GAP_PX <= span[0] for a, b in shown)
            marker.label.setVisible(fits)
            if fits:
                marker.label.setAnchor((0, 0) if span[0] == at else (1, 0))
                marker.label.setPos(x, top)
                shown.append(span)

    def clear(self) -> None:
        """Forget the data, the markers and the ceilings: ready for the next run."""
        with self._origin_lock:
            for buffer in self.buffers.values():
                buffer.clear()
            self._origin = None
        for marker in self.markers:
            for plot, line in zip(self.plots.values(), marker.lines, strict=True):
                plot.removeItem(line)
            self.plots["client"].removeItem(marker.label)
        self.markers.clear()
        for plot_key, name in list(self.ceilings):
            self.set_ceiling(plot_key, name, None)
        for name, spec in LIVE_SERIES.items():  # a run from one client shows no lines of the last run's others
            if spec.lazy and name in self.curves:
                self.plots[spec.plot].removeItem(self.curves.pop(name))
                self.headers[spec.plot].remove(name)
                self._drawn.pop(name, None)
                self._tops.pop(name, None)
        # a new run starts at 0 s, not where the admin left the last one's axis
        self._following, self._x_range = True, None
        self._x_set = tuple(self.plots["client"].viewRange()[0])
        self._on_tick()

    def save_png(self, path: str | Path) -> None:
        if not self.grab().save(str(path), "PNG"):
            raise OSError(f"could not write the plot image to {path}")
