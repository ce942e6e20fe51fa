"""The live plot (bounded buffers, fed from threads, drawn by a timer) and the result chart."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from nfstune.report.chart import nice_ticks
from nfstune.ui.widgets.live_plot import CEILING_COLOR, LIVE_SERIES, LivePlot, SeriesBuffer
from nfstune.ui.widgets.result_chart import TICK_TARGET, ResultChart

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
    titles = [header.title.text() for header in plot.headers.values()]
    assert titles == ["Client NFS (MB/s)", "Server disk (MB/s)", "Server CPU (%)"]
    assert all(p.titleLabel.text == "" for p in plot.plots.values())  # the titles are in the headers, not the plots
    client_view = plot.plots["client"].getViewBox()
    assert all(plot.plots[k].getViewBox().linkedView(pg.ViewBox.XAxis) is client_view for k in ("disk", "cpu"))
    assert set(plot.buffers) == set(LIVE_SERIES) >= {"client_read", "client_write", "disk_read", "disk_write"}
    keys = {key: [label.text for _, label in header.items] for key, header in plot.legends.items()}
    assert keys == {"client": ["read", "write", "requests/s (right)"], "disk": ["read", "write"], "cpu": ["busy"]}
    for p in plot.plots.values():
        assert p.legend is None  # nothing of pyqtgraph's drawn over the data
        assert p.ctrl.clipToViewCheck.isChecked()
    assert all(curve.opts["clipToView"] for curve in plot.curves.values())
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
    shown, _ = plot.curves["client_write"].getData()  # after clipping
    assert shown is not None and 0 < shown.size <= 1000


def ceiling_keys(plot: LivePlot, key: str) -> list[str]:
    return [entry.text for entry in plot.headers[key].entries if entry.colour == CEILING_COLOR]


def test_ceiling_is_added_moved_and_removed(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    client = plot.plots["client"]
    plot.set_ceiling("client", NETWORK, 5.88)
    line, _ = plot.ceilings[("client", NETWORK)]
    assert line in client.items and line.value() == pytest.approx(5.88) and line.angle == 0
    assert not hasattr(line, "label")  # its words are in the header, not over the data
    assert ceiling_keys(plot, "client") == ["network client→server 5.88 MB/s"]
    assert line.pen.style() == pg.QtCore.Qt.PenStyle.DashLine
    plot.set_ceiling("client", NETWORK, 11.2)
    moved, _ = plot.ceilings[("client", NETWORK)]
    assert moved.value() == pytest.approx(11.2) and line not in client.items
    assert sum(isinstance(item, pg.InfiniteLine) for item in client.items) == 1
    assert ceiling_keys(plot, "client") == ["network client→server 11.2 MB/s"]
    assert client.getViewBox().viewRange()[1][1] > 11.2  # a ceiling above the data is still in view
    plot.set_ceiling("disk", "server disk", 41.2)
    assert ceiling_keys(plot, "disk") == ["server disk 41.2 MB/s"]
    plot.set_ceiling("client", NETWORK, None)
    assert ("client", NETWORK) not in plot.ceilings and moved not in client.items
    assert ceiling_keys(plot, "client") == []


def test_marker_and_clear(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    plot.push("client_write", 500.0, 5e6)
    plot.set_marker(530.0, "async")
    plot.refresh()
    (marker,) = plot.markers
    assert marker.text == "async" and [line.value() for line in marker.lines] == [30.0, 30.0, 30.0]
    assert marker.label.toPlainText() == "async" and marker.label in plot.plots["client"].items
    plot.set_ceiling("client", NETWORK, 5.88)
    plot.clear()
    assert plot.markers == [] and plot.ceilings == {} and ceiling_keys(plot, "client") == []
    assert all(len(b) == 0 for b in plot.buffers.values()) and curve_data(plot, "client_write")[0].size == 0
    assert not any(isinstance(i, pg.InfiniteLine | pg.TextItem) for p in plot.plots.values() for i in p.items)
    plot.push("client_write", 900.0, 5e6)  # a new run starts its own time axis
    plot.refresh()
    assert curve_data(plot, "client_write")[0].tolist() == [0.0]


def test_a_pause_in_the_samples_breaks_the_line(qtbot: QtBot) -> None:
    """The export changes between configurations for ~25 s: no ramp from the last figure to the next."""
    plot = make_plot(qtbot)
    for t, mb in ((0, 15), (1, 15), (2, 15), (28, 3), (29, 3)):
        plot.push("disk_write", 1000.0 + t, mb * 1e6)
    plot.refresh()
    x, y = curve_data(plot, "disk_write")
    assert x.tolist()[:3] == [0, 1, 2] and x.tolist()[-2:] == [28, 29]
    assert np.isnan(y).sum() == 1 and 2 < x[np.isnan(y)][0] < 28  # one break, inside the pause
    assert plot.curves["disk_write"].opts["connect"] == "finite"


def test_requests_a_second_have_their_own_axis(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    plot.show()
    qtbot.waitExposed(plot)
    for t in range(5):
        plot.push("client_write", 10.0 + t, 0.2e6)  # small files: a sliver of MB/s
        plot.push("client_ops", 10.0 + t, 850.0)  # but 850 requests a second
    plot.refresh()
    assert curve_data(plot, "client_ops")[1].tolist() == [850.0] * 5  # not scaled as bytes
    (_, top) = plot.right_view.viewRange()[1]
    assert top > 850 and plot.plots["client"].viewRange()[1][1] < 10  # each on its own scale
    assert plot.plots["client"].getAxis("right").linkedView() is plot.right_view


def test_a_new_run_starts_from_zero_whatever_the_last_ones_axis(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    for t in range(600):
        plot.push("client_write", 5000.0 + t, 5e6)
    plot.refresh()
    plot.plots["client"].setXRange(400, 600)  # the admin looked at the end of the last run
    plot.clear()
    for t in range(10):
        plot.push("client_write", 9000.0 + t, 5e6)
    plot.refresh()
    plot.plots["client"].getViewBox().updateAutoRange()
    left, right = plot.plots["client"].viewRange()[0]
    assert left <= 0 and right < 100


def test_a_marker_out_of_view_keeps_no_label_at_the_edge(qtbot: QtBot) -> None:
    plot = make_plot(qtbot)
    for t in range(300):
        plot.push("client_write", 1000.0 + t, 5e6)
    plot.set_marker(1010.0, "sync")
    plot.set_marker(1250.0, "async")
    plot.plots["client"].setXRange(200, 300, padding=0)
    plot.refresh()
    old, new = plot.markers
    assert not old.label.isVisible() and new.label.isVisible()


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

# seq-write in MB/s, round -> figure; vers=3 missed round 2 (a failed visit)
STRIPS = [
    ("baseline", {1: 5.41, 2: 5.62, 3: 5.80, 4: 5.55, 5: 5.70}),
    ("async", {1: 5.86, 2: 5.79, 3: 5.90, 4: 5.81, 5: 6.02}),
    ("vers=3", {1: 6.40, 3: 6.10, 4: 6.55, 5: 6.20}),
]


def dots_of(chart: ResultChart, column: int) -> list[tuple[float, float, int]]:
    return [(p.pos().x(), p.pos().y(), p.data()) for p in chart.dots[column].points()]


def test_result_chart_is_a_strip_plot_with_a_dot_per_round(qtbot: QtBot, tmp_path: Path) -> None:
    chart = ResultChart()
    qtbot.addWidget(chart)
    chart.resize(640, 420)
    chart.set_data("seq-write (64 MiB, fsync)", "MB/s", True, STRIPS)
    assert len(chart.dots) == 3
    for column, (_label, rounds) in enumerate(STRIPS):
        dots = dots_of(chart, column)
        assert len(dots) == len(rounds)  # one dot per round, no more
        assert {(data, y) for _x, y, data in dots} == set(rounds.items())
        xs = [x for x, _y, _data in dots]
        assert all(column - 0.3 < x < column + 0.3 for x in xs)  # inside its own column
        assert len(set(xs)) == len(xs)  # jittered: no two rounds on one vertical line
    # the median mark of each column: 5.62 (of 5.41 5.55 5.62 5.70 5.80), 5.86, (6.20 + 6.40) / 2
    assert chart.medians == pytest.approx([5.62, 5.86, 6.30])
    for column, item in enumerate(chart.median_items):
        x, y = item.getData()
        assert list(y) == pytest.approx([chart.medians[column]] * 2) and x[0] < column < x[1]
    assert [label for _, label in chart.plot.getAxis("bottom")._tickLevels[0]] == ["baseline", "async", "vers=3"]
    assert chart.plot.getAxis("left").labelText == "MB/s"
    assert chart.plot.titleLabel.text == "seq-write (64 MiB, fsync)"
    assert chart.note.text().startswith("higher is better")
    assert [label.toPlainText() for label in chart.value_labels] == ["5.62", "5.86", "6.30"]
    chart.save_png(tmp_path / "chart.png")
    assert QImage(str(tmp_path / "chart.png")).width() == 640


def test_result_chart_jitter_is_the_same_on_every_draw(qtbot: QtBot) -> None:
    first, second = ResultChart(), ResultChart()
    qtbot.addWidget(first)
    qtbot.addWidget(second)
    first.set_data("a", "MB/s", True, STRIPS)
    second.set_data("a", "MB/s", True, STRIPS)
    first.set_data("a", "MB/s", True, STRIPS)  # drawn again
    assert [dots_of(first, c) for c in range(3)] == [dots_of(second, c) for c in range(3)]


def test_result_chart_value_axis_has_round_ticks(qtbot: QtBot) -> None:
    chart = ResultChart()
    qtbot.addWidget(chart)
    chart.set_data("seq-write", "MB/s", True, STRIPS)  # highest dot 6.55
    (major, _minor) = chart.plot.getAxis("left")._tickLevels
    assert [text for _, text in major] == ["0", "2", "4", "6", "8"]
    chart.set_data("sync-4k", "ms", False, [("baseline", {1: 0.61, 2: 0.64}), ("async", {1: 0.09, 2: 0.11})])
    (major, _minor) = chart.plot.getAxis("left")._tickLevels
    assert [text for _, text in major] == ["0", "0.2", "0.4", "0.6", "0.8"]


@pytest.mark.parametrize(
    ("top", "ticks"),
    [
        (7.83, [0, 2, 4, 6, 8]),
        (10.0, [0, 2, 4, 6, 8, 10]),
        (11.0, [0, 2.5, 5, 7.5, 10, 12.5]),
        (0.07, [0, 0.02, 0.04, 0.06, 0.08]),
        (523.0, [0, 200, 400, 600]),
        (0.0, [0, 1]),
    ],
)
def test_nice_ticks(top: float, ticks: list[float]) -> None:
    assert nice_ticks(top, TICK_TARGET) == pytest.approx(ticks)


def test_result_chart_replaces_its_data(qtbot: QtBot) -> None:
    chart = ResultChart()
    qtbot.addWidget(chart)
    chart.set_data("first", "MB/s", True, STRIPS)
    chart.set_data("untar", "s", False, [("sync", {1: 41.3, 2: 39.8, 3: 44.0}), ("async", {1: 12.1, 2: 11.7})])
    assert chart.medians == pytest.approx([41.3, 11.9])
    assert sum(isinstance(i, pg.ScatterPlotItem) for i in chart.plot.items) == 2
    assert len([i for i in chart.plot.items if isinstance(i, pg.TextItem)]) == 2
    assert chart.note.text().startswith("lower is better") and chart.plot.getAxis("left").labelText == "s"
