"""The live plot of a running measurement: client NFS (bytes a second, and requests a second on the right-hand
axis, which is what small files and sync writes move), server disk and server CPU on one time axis. A pause in
the samples (the export being changed between configurations) breaks the lines instead of drawing a ramp across it.

Sampler threads call `LivePlot.push`, which only appends to a bounded ring buffer under a lock; a QTimer on the GUI
thread pulls snapshots and hands them to pyqtgraph. Workers never touch a widget, and memory stays bounded however
long a run lasts.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QVBoxLayout, QWidget

from nfstune.ui.widgets.static_plot import TEXT_COLOR

DEFAULT_CAPACITY = 3600  # one hour at one sample a second
TICK_MS = 500
BYTES_PER_MB = 1e6
HEADROOM = 1.45  # room above the highest point for the legend and the ceiling labels
RIGHT_HEADROOM = 1.8
GAP_S = 2.5  # samples come a second apart: a longer pause is a gap, drawn as one
AXIS_WIDTH = 52  # px, left and right on every plot, so that the linked x axes stay aligned


class SeriesBuffer:
    """A bounded ring buffer of (t seconds, value) points; `append` from any thread, `snapshot` on the GUI thread."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self._t = np.empty(capacity, dtype=np.float64)
        self._v = np.empty(capacity, dtype=np.float64)
        self._next = 0  # where the next point goes
        self._count = 0
        self._lock = threading.Lock()

    def append(self, t: float, value: float) -> None:
        with self._lock:
            self._t[self._next] = t
            self._v[self._next] = value
            self._next = (self._next + 1) % self.capacity
            self._count = min(self._count + 1, self.capacity)

    def snapshot(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the points, oldest first."""
        with self._lock:
            if self._count < self.capacity:
                return self._t[: self._count].copy(), self._v[: self._count].copy()
            order = np.r_[self._next : self.capacity, 0 : self._next]
            return self._t[order], self._v[order]  # fancy indexing already copies

    def clear(self) -> None:
        with self._lock:
            self._next = self._count = 0

    def __len__(self) -> int:
        with self._lock:
            return self._count


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
PLOT_TITLES = {
    "client": "Client NFS: MB/s, and requests/s on the right",
    "disk": "Server disk throughput (MB/s)",
    "cpu": "Server CPU (%)",
}
MIN_TOP = {"client": 1.0, "disk": 1.0, "cpu": 10.0, "right": 10.0}  # an idle run still gets a readable axis
CEILING_COLOR = "#7f3fbf"
MARKER_COLOR = "#606060"


def with_gaps(t: np.ndarray, v: np.ndarray, gap_s: float = GAP_S) -> tuple[np.ndarray, np.ndarray]:
    """The points with a NaN between two that are more than `gap_s` apart, which a curve drawn with
    connect="finite" leaves unjoined."""
    if len(t) < 2:
        return t, v
    after = np.flatnonzero(np.diff(t) > gap_s) + 1
    if not len(after):
        return t, v
    return np.insert(t, after, (t[after - 1] + t[after]) / 2), np.insert(v, after, np.nan)


def literal(text: str) -> str:
    """`text` as an InfiniteLine's label shows it: pyqtgraph formats the label (str.format with the line's value)."""
    return text.replace("{", "{{").replace("}", "}}")


class LivePlot(QWidget):
    """Three stacked plots with linked x axes. Times are plotted as seconds since the first point pushed."""

    def __init__(self, parent: QWidget | None = None, capacity: int = DEFAULT_CAPACITY) -> None:
        super().__init__(parent)
        self.buffers = {name: SeriesBuffer(capacity) for name in LIVE_SERIES}
        self._origin: float | None = None  # first time pushed: x = t - origin keeps the axis in small numbers
        self._origin_lock = threading.Lock()
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)

        self.plots: dict[str, pg.PlotItem] = {}
        for row, (key, title) in enumerate(PLOT_TITLES.items()):
            plot = self.graphics.addPlot(row=row, col=0)
            plot.setTitle(title, color=TEXT_COLOR, size="10pt")
            plot.setDownsampling(auto=True, mode="peak")  # without auto (or ds) pyqtgraph leaves it off
            plot.setClipToView(True)
            plot.showGrid(x=True, y=True, alpha=0.15)
            plot.setMouseEnabled(x=True, y=False)  # y is managed in _rescale_y
            for side in ("left", "bottom"):
                plot.getAxis(side).setTextPen(TEXT_COLOR)
            plot.showAxis("right")
            for side in ("left", "right"):
                plot.getAxis(side).setWidth(AXIS_WIDTH)  # equal widths keep the linked x axes aligned
            if key != "client":
                plot.setXLink(self.plots["client"])
                plot.getAxis("right").setStyle(showValues=False)
            self.plots[key] = plot
        self.plots["cpu"].setLabel("bottom", "time since start (s)", color=TEXT_COLOR)
        # the client's requests a second on a scale of their own (pyqtgraph's MultiplePlotAxes example)
        client = self.plots["client"]
        self.right_view = pg.ViewBox()
        client.scene().addItem(self.right_view)
        client.getAxis("right").linkToView(self.right_view)
        client.getAxis("right").setTextPen(LIVE_SERIES["client_ops"].color)
        self.right_view.setXLink(client)
        self.right_view.setMouseEnabled(x=False, y=False)
        client.vb.sigResized.connect(self._place_right_view)

        self.legends: dict[str, pg.LegendItem] = {}
        self.curves: dict[str, pg.PlotDataItem] = {}
        for name, spec in LIVE_SERIES.items():
            if spec.lazy:
                continue  # _draw_lazy adds it with its first data
            if spec.plot not in self.legends:
                count = sum(s.plot == spec.plot and not s.lazy for s in LIVE_SERIES.values())
                # one row at the top-right, where HEADROOM keeps the data out of its way
                self.legends[spec.plot] = self.plots[spec.plot].addLegend(
                    offset=(-8, 4), colCount=count, labelTextColor=TEXT_COLOR, brush=(255, 255, 255, 210)
                )
            if spec.right:
                curve = pg.PlotDataItem(
                    pen=pg.mkPen(spec.color, width=1.5, style=Qt.PenStyle.DashLine),
                    connect="finite",
                    autoDownsample=True,
                    downsampleMethod="peak",
                    clipToView=True,
                )
                self.right_view.addItem(curve)
                self.legends[spec.plot].addItem(curve, spec.label)
                self.curves[name] = curve
            else:
                pen = pg.mkPen(spec.color, width=2)
                self.curves[name] = self.plots[spec.plot].plot(name=spec.label, pen=pen, connect="finite")

        self.ceilings: dict[tuple[str, str], tuple[pg.InfiniteLine, float]] = {}
        self.markers: list[tuple[float, str, list[pg.InfiniteLine]]] = []  # (absolute t, text, one line per plot)

        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._on_tick)

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

    def _draw_lazy(self) -> None:
        for name, spec in LIVE_SERIES.items():
            if spec.lazy and name not in self.curves and len(self.buffers[name]):
                pen = pg.mkPen(spec.color, width=1.5, style=Qt.PenStyle.DashDotLine)
                self.curves[name] = self.plots[spec.plot].plot(name=spec.label, pen=pen, connect="finite")

    def _on_tick(self) -> None:
        origin = self._current_origin()
        self._draw_lazy()
        for name, spec in LIVE_SERIES.items():
            if name not in self.curves:
                continue
            t, v = self.buffers[name].snapshot()
            if origin is not None:
                t = t - origin
            self.curves[name].setData(*with_gaps(t, v / spec.scale))
        self._rescale_y()
        self._label_markers_in_view()

    def _label_markers_in_view(self) -> None:
        """A marker's label only while its line is in view: pyqtgraph would otherwise keep it at the view's edge."""
        (left, right), _ = self.plots["client"].viewRange()
        origin = self._current_origin()
        for t, _text, lines in self.markers:
            x = t - (origin or t)
            label = getattr(lines[0], "label", None)
            if label is not None:
                label.setVisible(left <= x <= right)

    def _current_origin(self) -> float | None:
        with self._origin_lock:
            return self._origin

    def _rescale_y(self) -> None:
        """y from 0 to a little above the data and the ceilings, so that a ceiling is always in view and the legend
        at the top has room (pyqtgraph's auto range ignores InfiniteLines and hugs the data)."""
        for key, plot in self.plots.items():
            top = MIN_TOP[key]
            for name, spec in LIVE_SERIES.items():
                if spec.plot == key and not spec.right and name in self.curves:
                    _, y = self.curves[name].getOriginalDataset()
                    if y is not None and len(y) and np.isfinite(y).any():
                        top = max(top, float(np.nanmax(y)))
            for (plot_key, _), (_, value) in self.ceilings.items():
                if plot_key == key:
                    top = max(top, value)
            # a little below 0 so that idle lines do not hide in the axis and the 0 tick label fits (with a grid,
            # pyqtgraph drops a label that would cross the axis' end)
            plot.setYRange(-0.07 * top, top * HEADROOM, padding=0)
        top = MIN_TOP["right"]
        _, y = self.curves["client_ops"].getOriginalDataset()
        if y is not None and len(y) and np.isfinite(y).any():
            top = max(top, float(np.nanmax(y)))
        # more headroom than the left: the legend's row, now three entries long, sits over this curve's top
        self.right_view.setYRange(-0.07 * top, top * RIGHT_HEADROOM, padding=0)

    def set_ceiling(self, plot: str, name: str, value_mb_s: float | None) -> None:
        """A dashed horizontal line labelled "<name> <value> MB/s" on plot "client" or "disk"; the same name again
        moves it, None removes it."""
        key = (plot, name)
        if key in self.ceilings:
            line, _ = self.ceilings.pop(key)
            self.plots[plot].removeItem(line)
        if value_mb_s is not None:
            # two ceilings of one plot are often close (iperf3 both ways): their labels go side by side
            index = sum(1 for p, _n in self.ceilings if p == plot)
            text = literal(f"{name} {value_mb_s:.3g} MB/s")
            line = pg.InfiniteLine(
                pos=value_mb_s,
                angle=0,
                pen=pg.mkPen(CEILING_COLOR, width=1.5, style=Qt.PenStyle.DashLine),
                label=text,
                # left-hand end, above the line: the newest data and the legend are on the right; the fill keeps
                # the text legible when the data runs along the ceiling (the interesting case)
                labelOpts={
                    "position": min(0.02 + 0.36 * index, 0.74),
                    "anchors": [(0, 1), (0, 1)],
                    "color": CEILING_COLOR,
                    "fill": (255, 255, 255, 200),
                },
            )
            line.setZValue(10)  # above the curves, so that its label stays readable over data along the ceiling
            self.plots[plot].addItem(line, ignoreBounds=True)
            self.ceilings[key] = (line, value_mb_s)
        self._rescale_y()

    def set_marker(self, t: float, text: str) -> None:
        """A vertical line at time t (same clock as push) on every plot, labelled on the top one."""
        with self._origin_lock:
            if self._origin is None:
                self._origin = t
            x = t - self._origin
        lines = []  # (pyqtgraph labels the line at a fraction of the view's height: below the legend's row)
        for key, plot in self.plots.items():
            label = literal(text) if key == "client" else None
            line = pg.InfiniteLine(
                pos=x,
                angle=90,
                pen=pg.mkPen(MARKER_COLOR, width=1, style=Qt.PenStyle.DotLine),
                label=label,
                labelOpts={
                    "position": 0.6,
                    "anchors": [(0, 0.5), (0, 0.5)],
                    "color": MARKER_COLOR,
                    "fill": (255, 255, 255, 200),
                },
            )
            plot.addItem(line, ignoreBounds=True)
            lines.append(line)
        self.markers.append((t, text, lines))

    def clear(self) -> None:
        """Forget the data, the markers and the ceilings: ready for the next run."""
        with self._origin_lock:
            for buffer in self.buffers.values():
                buffer.clear()
            self._origin = None
        for _, _, lines in self.markers:
            for plot, line in zip(self.plots.values(), lines, strict=True):
                plot.removeItem(line)
        self.markers.clear()
        for plot_key, name in list(self.ceilings):
            self.set_ceiling(plot_key, name, None)
        for name, spec in LIVE_SERIES.items():  # a run from one client shows no lines of the last run's others
            if spec.lazy and name in self.curves:
                curve = self.curves.pop(name)
                self.plots[spec.plot].removeItem(curve)
                self.legends[spec.plot].removeItem(curve)
        # a new run starts at 0 s, not where the admin left the last one's axis
        self.plots["client"].enableAutoRange(axis=pg.ViewBox.XAxis)
        self._on_tick()

    def save_png(self, path: str | Path) -> None:
        if not self.grab().save(str(path), "PNG"):
            raise OSError(f"could not write the plot image to {path}")
