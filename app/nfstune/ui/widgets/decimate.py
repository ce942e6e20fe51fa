"""What the live plot hands to pyqtgraph: a pause in the samples as a break in the line, and an hour of samples cut
to what the plot's width can show, keeping every peak.

A pixel column can show no more than the lowest and the highest value that falls in it, so each bucket of time
(about a pixel wide) keeps its lowest and its highest sample, in the order they came: a one-second spike still
reaches its height, and the redraw handles a few hundred points a series instead of thousands.
"""

from __future__ import annotations

import numpy as np

GAP_S = 2.5  # samples come a second apart: a longer pause is a gap, drawn as one


def with_gaps(t: np.ndarray, v: np.ndarray, gap_s: float = GAP_S) -> tuple[np.ndarray, np.ndarray]:
    """The points with a NaN between two that are more than `gap_s` apart, which a curve drawn with
    connect="finite" leaves unjoined."""
    if len(t) < 2:
        return t, v
    after = np.flatnonzero(np.diff(t) > gap_s) + 1
    if not len(after):
        return t, v
    return np.insert(t, after, (t[after - 1] + t[after]) / 2), np.insert(v, after, np.nan)


def bucket_width(span: float, pixels: float) -> float:
    """Buckets of a power of two seconds, at least `span / pixels` wide: at most one a pixel, and the same width
    (so the same points drawn, no flicker) while a run's axis grows by up to half again."""
    if span <= 0 or pixels < 1:
        return 0.0
    return float(2.0 ** np.ceil(np.log2(span / pixels)))


def min_max(t: np.ndarray, v: np.ndarray, width: float, gap_s: float = GAP_S) -> tuple[np.ndarray, np.ndarray]:
    """Per bucket of `width` seconds (from t = 0: the buckets stay put as points come in), its lowest and its
    highest point at their own times, oldest first (and the first and the last point, where the line begins and
    ends); a bucket of one point keeps it. A pause longer than `gap_s` ends a bucket and is drawn as a gap, as
    `with_gaps` does. `t` is ascending; width 0 decimates nothing."""
    keep = np.isfinite(v)
    if not keep.all():  # no value to show (the line simply skips it)
        t, v = t[keep], v[keep]
    if width <= 0 or len(t) < 3:
        return with_gaps(t, v, gap_s)
    segment = np.zeros(len(t), dtype=np.int64)
    np.cumsum(np.diff(t) > gap_s, out=segment[1:])
    bucket = np.floor(t / width).astype(np.int64)
    new = np.empty(len(t), dtype=bool)
    new[0] = True
    new[1:] = (np.diff(bucket) != 0) | (np.diff(segment) != 0)
    group = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    counts = np.diff(np.r_[starts, len(t)])
    # in one pass each (no sort): the bucket's first sample at its lowest, its last at its highest (a flat
    # bucket keeps both ends)
    at_low = np.flatnonzero(v == np.repeat(np.minimum.reduceat(v, starts), counts))
    at_high = np.flatnonzero(v == np.repeat(np.maximum.reduceat(v, starts), counts))
    lowest = at_low[np.r_[True, group[at_low][1:] != group[at_low][:-1]]]
    highest = at_high[np.r_[group[at_high][1:] != group[at_high][:-1], True]]
    picked = np.unique(np.concatenate((lowest, highest, (0, len(t) - 1))))  # and where the line begins and ends
    x, y = t[picked], v[picked]
    after = np.flatnonzero(np.diff(segment[picked])) + 1  # picked points may lie further apart than gap_s
    if not len(after):
        return x, y
    return np.insert(x, after, (x[after - 1] + x[after]) / 2), np.insert(y, after, np.nan)
