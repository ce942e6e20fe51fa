"""The live plot's decimation: each bucket of time keeps its lowest and its highest sample, in the order they came,
and a pause in the samples stays a break in the line."""

from __future__ import annotations

import numpy as np

from nfstune.ui.widgets.decimate import bucket_width, min_max, with_gaps


def points(x: np.ndarray, y: np.ndarray) -> list[tuple[float, float | None]]:
    return [(float(a), None if np.isnan(b) else float(b)) for a, b in zip(x, y, strict=True)]


def test_each_bucket_keeps_its_lowest_and_highest_in_time_order() -> None:
    t = np.arange(10.0)
    v = np.array([1, 5, 2, 2, 9, 0, 3, 3, 4, 1], dtype=float)
    # buckets of 4 s: t 0-3 (low 1 at 0, high 5 at 1), t 4-7 (high 9 at 4 before low 0 at 5), t 8-9 (4 then 1)
    assert points(*min_max(t, v, 4.0)) == [(0, 1), (1, 5), (4, 9), (5, 0), (8, 4), (9, 1)]


def test_a_one_second_spike_in_an_hour_keeps_its_height() -> None:
    t = np.arange(3600.0)
    v = np.full(3600, 10.0)
    v[1234] = 80.0
    width = bucket_width(3600, 560)  # an hour across 560 pixels: 6.4 s a pixel, so buckets of 8 s
    assert width == 8.0
    x, y = min_max(t, v, width)
    assert len(x) <= 2 * 3600 / 8 + 2  # two points a bucket at most (450 buckets), and the line's ends
    assert y.max() == 80.0 and x[y.argmax()] == 1234.0
    assert y.min() == 10.0 and x[0] == 0.0 and x[-1] == 3599.0  # the line still spans the hour


def test_a_pause_inside_one_bucket_is_still_a_break() -> None:
    # one bucket of 100 s, but the samples pause from 2 s to 10 s: two runs of samples, each its own low and high
    t = np.array([0, 1, 2, 10, 11, 12], dtype=float)
    v = np.array([1, 3, 2, 5, 4, 6], dtype=float)
    assert points(*min_max(t, v, 100.0)) == [(0, 1), (1, 3), (6, None), (11, 4), (12, 6)]


def test_buckets_far_apart_make_no_false_breaks() -> None:
    # 1 s samples in 8 s buckets: the points kept lie up to 15 s apart, yet no sample paused
    t = np.arange(64.0)
    v = np.sin(t)
    x, y = min_max(t, v, 8.0)
    assert np.isfinite(y).all()
    assert len(x) == 8 * 2 + 2  # 8 buckets, their lows and highs, and the line's own ends (sin 0 and sin 63)
    assert x[0] == 0.0 and x[-1] == 63.0


def test_nothing_is_cut_without_a_width_or_with_one_point_a_bucket() -> None:
    t = np.array([0, 1, 2, 20, 21], dtype=float)
    v = np.array([3, 1, 2, 7, 8], dtype=float)
    expected = points(*with_gaps(t, v))
    assert expected[3] == (11.0, None)  # the pause from 2 s to 20 s
    assert points(*min_max(t, v, 0.0)) == expected
    assert points(*min_max(t, v, 1.0)) == expected


def test_bucket_width_is_a_power_of_two_at_least_a_pixel() -> None:
    assert bucket_width(600, 500) == 2.0  # 1.2 s a pixel
    assert bucket_width(100, 800) == 0.125  # zoomed in: 1 s samples are far apart, nothing is merged
    assert bucket_width(600, 0) == 0.0 and bucket_width(0, 500) == 0.0  # not laid out yet: no cutting
