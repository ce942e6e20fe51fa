"""The live plot (bounded buffers, fed from threads, drawn by a timer) and the result chart."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from nfstune.ui.widgets.live_plot import LIVE_SERIES, LivePlot, SeriesBuffer
from nfstune.ui.widgets.result_chart import ResultChart

NETWORK = "network (iperf3, client→server)"


def make_plot(qtbot: QtBot, capacity: int = 3600) -> LivePlot:
    plot = LivePlot(capacity=capacity)
    qtbot.addWidget(plot)
    plot.resize(900, 650)
    return plot


def curve_data(plot: LivePlot, series: str) -> tuple[np.ndarray, np.ndarray]:
    x, y = plot.curves[series].getOriginalDataset()
    return (np.array([]), np.array([])) if x is None or y is None else (x, y)


# --- SeriesBuffer ----------------------------------------------------------------------------------------------


def test_buffer_keeps_the_newest_points_in_order() -> None:
    buffer = SeriesBuffer(capacity=5)
    assert len(buffer) == 0 and [a.tolist() for a in buffer.snapshot()] == [[], []]
    for i in range(8):
        buffer.append(float(i), 10.0 * i)
    t, v = buffer.snapshot()
    assert len(buffer) == 5
    assert t.tolist() == [3, 4, 5, 6, 7] and v.tolist() == [30, 40, 50, 60, 70]
    t[0] = -1  # a snapshot is a copy: the GUI may keep it while workers append
    assert buffer.snapshot()[0][0] == 3
    buffer.clear()
    assert len(buffer) == 0 and buffer.snapshot()[0].size == 0


def test_buffer_takes_appends_from_many_threads() -> None:
    buffer = SeriesBuffer(capacity=100_000)

    def append_many(offset: int) -> None:
        for i in range(5000):
            buffer.append(float(offset + i), 1.0)

    threads = [threading.Thread(target=append_many, args=(n * 10_000,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    t, _ = buffer.snapshot()
    assert len(buffer) == 20_000 and len(set(t.tolist())) == 20_000


def test_buffer_rejects_a_zero_capacity() -> None:
    with pytest.raises(ValueError, match="capacity"):
        SeriesBuffer(capacity=0)


# --- LivePlot --------------------------------------------------------------------------------------------------


def test_live_plot_layout(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    titles = [p.titleLabel.text for p in plot.plots.values()]
    assert titles == ["Client NFS throughput (MB/s)", "Server disk throughput (MB/s)", "Server CPU (%)"]
    client_view = plot.plots["client"].getViewBox()
    assert all(plot.plots[k].getViewBox().linkedView(pg.ViewBox.XAxis) is client_view for k in ("disk", "cpu"))
    assert set(plot.buffers) == set(LIVE_SERIES) >= {"client_read", "client_write", "disk_read", "disk_write"}
    for p in plot.plots.values():
        assert p.legend is not None
        assert p.ctrl.downsampleCheck.isChecked() and p.ctrl.peakRadio.isChecked()
        assert p.ctrl.clipToViewCheck.isChecked()
    for curve in plot.curves.values():
        opts = curve.opts
        assert (opts["autoDownsample"], opts["downsampleMethod"], opts["clipToView"]) == (True, "peak", True)
    assert plot.timer.interval() == 500


def test_push_is_drawn_only_on_a_tick_in_mb_per_s(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    plot.push("client_read", 1000.0, 5_900_000.0)
    plot.push("client_read", 1001.0, 6_100_000.0)
    plot.push("server_cpu", 1001.0, 12.5)
    assert curve_data(plot, "client_read")[0].size == 0  # a worker's push touches no widget
    plot.refresh()
    x, y = curve_data(plot, "client_read")
    assert x.tolist() == [0.0, 1.0]  # seconds since the first point
    assert y.tolist() == pytest.approx([5.9, 6.1])
    assert curve_data(plot, "server_cpu")[1].tolist() == [12.5]


def test_timer_pulls_what_a_thread_pushed(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    plot.start()
    assert plot.timer.isActive()
    worker = threading.Thread(target=lambda: [plot.push("disk_write", float(i), 4e6) for i in range(20)])
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: curve_data(plot, "disk_write")[0].size == 20, timeout=3000)
    plot.stop()
    assert not plot.timer.isActive()


def test_memory_stays_bounded(qtbot: QtBot) -> None:
    plot = make_plot(qtbot, capacity=1000)
    for i in range(10_000):
        plot.push("client_write", float(i), 5.8e6)
    plot.refresh()
    assert len(plot.buffers["client_write"]) <= 1000
    x, _ = curve_data(plot, "client_write")
    assert 0 < x.size <= 1000
    assert x[-1] == 9999.0  # the newest points are the ones kept
    shown, _ = plot.curves["client_write"].getData()  # after clipping and peak downsampling
    assert shown is not None and 0 < shown.size <= 1000


def test_ceiling_is_added_moved_and_removed(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    client = plot.plots["client"]
    plot.set_ceiling("client", NETWORK, 5.88)
    line, _ = plot.ceilings[("client", NETWORK)]
    assert line in client.items and line.value() == pytest.approx(5.88) and line.angle == 0
    assert line.label.toPlainText() == f"{NETWORK} 5.88 MB/s"
    assert line.pen.style() == pg.QtCore.Qt.PenStyle.DashLine
    plot.set_ceiling("client", NETWORK, 11.2)
    moved, _ = plot.ceilings[("client", NETWORK)]
    assert moved.value() == pytest.approx(11.2) and line not in client.items
    assert sum(isinstance(item, pg.InfiniteLine) for item in client.items) == 1
    assert client.getViewBox().viewRange()[1][1] > 11.2  # a ceiling above the data is still in view
    plot.set_ceiling("disk", "server disk", 41.2)
    assert plot.ceilings[("disk", "server disk")][0].label.toPlainText() == "server disk 41.2 MB/s"
    plot.set_ceiling("client", NETWORK, None)
    assert ("client", NETWORK) not in plot.ceilings and moved not in client.items


def test_marker_and_clear(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    plot.push("client_write", 500.0, 5e6)
    plot.set_marker(530.0, "async")
    plot.refresh()
    (_, text, lines), *_ = plot.markers
    assert text == "async" and [line.value() for line in lines] == [30.0, 30.0, 30.0]
    assert lines[0].label.toPlainText() == "async" and lines[0] in plot.plots["client"].items
    plot.set_ceiling("client", NETWORK, 5.88)
    plot.clear()
    assert plot.markers == [] and plot.ceilings == {}
    assert all(len(b) == 0 for b in plot.buffers.values()) and curve_data(plot, "client_write")[0].size == 0
    assert not any(isinstance(i, pg.InfiniteLine) for p in plot.plots.values() for i in p.items)
    plot.push("client_write", 900.0, 5e6)  # a new run starts its own time axis
    plot.refresh()
    assert curve_data(plot, "client_write")[0].tolist() == [0.0]


def test_unknown_series_is_refused(qtbot: QtBot) -> None:
    with pytest.raises(KeyError):
        make_plot(qtbot).push("client_reads", 0.0, 1.0)


def test_live_plot_png(qtbot: QtBot, tmp_path: Path) -> None:
    plot = make_plot(qtbot)
    rng = np.random.default_rng(1)
    for i in range(120):
        plot.push("client_write", 1.7e9 + i, 5.9e6 + rng.normal(0, 0.15e6))
        plot.push("server_cpu", 1.7e9 + i, 15 + rng.normal(0, 2))
    plot.set_ceiling("client", NETWORK, 5.88)
    plot.set_marker(1.7e9 + 60, "async")
    plot.refresh()
    plot.save_png(tmp_path / "live.png")
    image = QImage(str(tmp_path / "live.png"))
    assert (image.width(), image.height()) == (900, 650)


# --- ResultChart -----------------------------------------------------------------------------------------------

BARS = [("baseline (sync)", 5.62, 5.41, 5.80, 5), ("async", 5.86, 5.79, 5.90, 5), ("rsize=1M", 5.70, 5.32, 5.88, 4)]


def test_result_chart_bars_and_whiskers(qtbot: QtBot, tmp_path: Path) -> None:
    chart = ResultChart()
    qtbot.addWidget(chart)
    chart.resize(640, 420)
    chart.set_data("seq-write (64 MiB, fsync)", "MB/s", True, BARS)
    assert chart.bar_item is not None and chart.error_item is not None
    assert list(chart.bar_item.opts["height"]) == [5.62, 5.86, 5.70]
    error = chart.error_item.opts
    assert list(error["y"] + error["top"]) == pytest.approx([5.80, 5.90, 5.88])
    assert list(error["y"] - error["bottom"]) == pytest.approx([5.41, 5.79, 5.32])
    assert [label for _, label in chart.plot.getAxis("bottom")._tickLevels[0]] == [b[0] for b in BARS]
    assert chart.plot.getAxis("left").labelText == "MB/s"
    assert chart.plot.titleLabel.text == "seq-write (64 MiB, fsync)"
    assert chart.note.text().startswith("higher is better")
    assert [label.toPlainText() for label in chart.value_labels] == ["5.62  (n=5)", "5.86  (n=5)", "5.7  (n=4)"]
    chart.save_png(tmp_path / "chart.png")
    assert QImage(str(tmp_path / "chart.png")).width() == 640


def test_result_chart_replaces_its_data(qtbot: QtBot) -> None:
    chart = ResultChart()
    qtbot.addWidget(chart)
    chart.set_data("first", "MB/s", True, BARS)
    chart.set_data("untar", "s", False, [("sync", 41.3, 39.8, 44.0, 3), ("async", 12.1, 11.7, 12.9, 3)])
    assert chart.bar_item is not None and list(chart.bar_item.opts["height"]) == [41.3, 12.1]
    assert sum(isinstance(i, pg.BarGraphItem) for i in chart.plot.items) == 1
    assert len([i for i in chart.plot.items if isinstance(i, pg.TextItem)]) == 2
    assert chart.note.text().startswith("lower is better") and chart.plot.getAxis("left").labelText == "s"
