"""The live plot at the sizes the Run page gives it: each plot keeps room for its data, no word is drawn over the
data or over another word, marker labels that would touch are left out, and a redraw hands pyqtgraph only the
series that changed, cut to about two points a pixel with their peaks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from nfstune.ui.widgets.live_plot import LivePlot
from nfstune.ui.widgets.time_axis import tick_step, tick_words

T0 = 1.7e9
SIZES = [(600, 420), (900, 520)]  # the Run page's share of a 1024x700 window, and of a larger one
MARKERS = [(5, "baseline"), (230, "rsize=1M,wsize=1M"), (236, "async"), (242, "vers=4.2,nconnect=4")]


def settle(plot: LivePlot) -> None:
    """Until the layout stands: a header that wraps onto a new line asks for another pass."""
    for _ in range(4):
        QApplication.processEvents()
        plot.graphics.ci.layout.activate()
    QApplication.processEvents()


def shown(qtbot: QtBot, size: tuple[int, int]) -> LivePlot:
    plot = LivePlot()
    qtbot.addWidget(plot)
    plot.resize(*size)
    plot.show()
    qtbot.waitExposed(plot)
    return plot


def a_run(plot: LivePlot, seconds: int = 600) -> None:
    """Ten minutes running along the ceilings: network 39.8 and 41.2 MB/s, the server disk's 120 MB/s; a pause
    from 200 s to 225 s while the export is changed, and three configurations starting a few seconds apart."""
    rng = np.random.default_rng(7)
    for i in range(seconds):
        if 200 <= i < 225:
            continue
        plot.push("client_write", T0 + i, 40.5e6 + rng.normal(0, 1.0e6))
        plot.push("client_read", T0 + i, 39.0e6 + rng.normal(0, 1.0e6))
        plot.push("client_ops", T0 + i, 620 + rng.normal(0, 30))
        plot.push("disk_write", T0 + i, 118e6 + rng.normal(0, 3e6))
        plot.push("server_cpu", T0 + i, 40 + 10 * np.sin(i / 17))
    plot.set_ceiling("client", "network (iperf3, client → server)", 39.8)
    plot.set_ceiling("client", "network (iperf3, server → client)", 41.2)
    plot.set_ceiling("disk", "server disk write", 120.0)
    for at, text in MARKERS:
        plot.set_marker(T0 + at, text)
    plot.refresh()
    settle(plot)
    plot.refresh()  # now cut to the width the layout gave the views
    settle(plot)


def views(plot: LivePlot) -> list[QRectF]:
    return [p.vb.sceneBoundingRect() for p in plot.plots.values()] + [plot.right_view.sceneBoundingRect()]


@pytest.mark.parametrize("size", [(560, 380), *SIZES], ids=lambda s: f"{s[0]}x{s[1]}")
def test_each_plot_keeps_room_for_its_data(qtbot: QtBot, size: tuple[int, int]) -> None:
    plot = shown(qtbot, size)
    a_run(plot)
    heights = {key: p.vb.height() for key, p in plot.plots.items()}
    assert min(heights.values()) >= 90, heights
    assert all(p.vb.width() >= 0.8 * size[0] for p in plot.plots.values())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_word_covers_the_data_or_another_word(qtbot: QtBot, size: tuple[int, int]) -> None:
    plot = shown(qtbot, size)
    a_run(plot)
    words = [(key, rect) for key, header in plot.headers.items() for rect in header.text_rects()]
    ceilings = [e.text for e in plot.headers["client"].entries if e.text.startswith("network")]
    assert ceilings == ["network client → server 39.8 MB/s", "network server → client 41.2 MB/s"]
    assert len(words) == 3 + (3 + 2) + (2 + 1) + 1  # the titles; each plot's series and ceilings
    for key, rect in words:
        assert not any(rect.intersects(view) for view in views(plot)), (key, rect)
        assert plot.headers[key].sceneBoundingRect().contains(rect), (key, rect)  # not cut off
    for (one, a), (other, b) in itertools.combinations(words, 2):
        assert not a.intersects(b), (one, a, other, b)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_marker_labels_shown_never_touch_and_stay_above_the_data(qtbot: QtBot, size: tuple[int, int]) -> None:
    plot = shown(qtbot, size)
    a_run(plot)
    client = plot.plots["client"].vb
    shown_labels = {m.text: m.label.sceneBoundingRect() for m in plot.markers if m.label.isVisible()}
    # the newest (the configuration running now) and the one far from the others have room; 6 s apart do not
    assert {"baseline", "vers=4.2,nconnect=4"} <= set(shown_labels) and len(shown_labels) < len(MARKERS)
    for a, b in itertools.combinations(shown_labels.values(), 2):
        assert not a.intersects(b)
    highest = min(
        view.mapViewToScene(QPointF(0, float(np.nanmax(plot.curves[name].getOriginalDataset()[1])))).y()
        for name, view in (("client_write", client), ("client_read", client), ("client_ops", plot.right_view))
    )
    for text, rect in shown_labels.items():
        assert client.sceneBoundingRect().contains(rect), text  # whole, inside the plot
        assert rect.bottom() <= highest, text  # the data peaks below the labels


def test_a_series_that_did_not_change_is_not_handed_to_pyqtgraph_again(qtbot: QtBot) -> None:
    plot = shown(qtbot, SIZES[0])
    for i in range(10):
        plot.push("client_write", T0 + i, 5e6)
        plot.push("disk_write", T0 + i, 9e6)
    plot.refresh()
    settle(plot)
    plot.refresh()
    draws = dict(plot.draws)
    disk_x = plot.curves["disk_write"].getOriginalDataset()[0]
    plot.push("client_write", T0 + 10, 6e6)
    plot.refresh()
    assert plot.draws["client_write"] == draws["client_write"] + 1
    assert plot.draws["disk_write"] == draws["disk_write"]
    assert plot.curves["disk_write"].getOriginalDataset()[0] is disk_x  # the very array drawn before
    assert curve_top(plot, "client_write") == 6.0


def curve_top(plot: LivePlot, name: str) -> float:
    return float(np.nanmax(plot.curves[name].getOriginalDataset()[1]))


def test_an_hour_is_drawn_at_two_points_a_pixel_with_its_peaks(qtbot: QtBot) -> None:
    plot = shown(qtbot, SIZES[0])
    for i in range(3600):
        plot.push("client_write", T0 + i, 80e6 if i == 1801 else 30e6 + 1e6 * (i % 7))
    plot.refresh()
    settle(plot)
    qtbot.waitUntil(lambda: len(plot.curves["client_write"].getOriginalDataset()[0]) < 3600)  # cut to the view
    x, y = plot.curves["client_write"].getOriginalDataset()
    assert len(x) <= 2 * plot.plots["client"].vb.width()
    assert y.max() == 80.0 and x[y.argmax()] == 1801.0  # a one-second spike still reaches its height
    assert y.min() == 30.0 and x[-1] == 3599.0
    plot.plots["client"].setXRange(1790, 1810, padding=0)  # zoomed in: every sample again, also with no timer
    qtbot.waitUntil(lambda: 1800.0 in plot.curves["client_write"].getOriginalDataset()[0].tolist())


def test_the_time_axis_counts_in_seconds_then_minutes() -> None:
    assert tick_step(3600, 500) == 600  # an hour across 500 px: a tick every 10 minutes, 83 px apart
    assert tick_step(120, 800) == 15
    assert [tick_words(v, 600) for v in (0, 600, 1800)] == ["0 min", "10 min", "30 min"]
    assert [tick_words(v, 30) for v in (30, 90)] == ["30 s", "90 s"]
    assert tick_words(-30, 30) == ""  # left of the start


def test_the_time_axis_follows_the_run_in_steps_until_the_admin_zooms(qtbot: QtBot) -> None:
    plot = shown(qtbot, SIZES[0])
    view = plot.plots["client"].vb

    def run_to(seconds: int) -> tuple[float, float]:
        for i in range(len(plot.buffers["client_write"]), seconds):
            plot.push("client_write", T0 + i, 5e6)
        plot.refresh()
        left, right = view.viewRange()[0]
        return left, right

    left, right = run_to(90)
    assert left <= 0 < 89 < right <= 125  # 0 to two minutes (and a little padding)
    assert run_to(100) == (left, right)  # ten seconds on: the axis stands still
    assert 119 < run_to(150)[1] <= 190  # three minutes
    view.setXRange(20, 40, padding=0)  # the admin looks closer
    run_to(200)
    assert view.viewRange()[0] == pytest.approx([20, 40])
    view.enableAutoRange(x=True)  # the plot menu's "Auto": following the run again
    assert run_to(210)[1] == pytest.approx(300, rel=0.02)
