"""Where a series of sessions' figures moved to another level and stayed there: the change-point rule a watch reads
a pair's trend with (docs/DESIGN.md, "A watch over months", says why this rule and not another).

Binary segmentation with a split t-test, as Apache Otava (Hunter) splits a series: in a stretch of points, every
split that leaves at least `min_points` on each side is a candidate; of the candidates that pass all three tests
below, the one with the smallest p-value is a change point, and each side is searched again on its own. A point is
one session: its rounds (one value for a ceiling, measured once a session) are its spread. All on the logarithm of
the figures, so that a change is a ratio whatever the unit.

A candidate is judged on the points next to it, up to `WINDOW` on each side within the stretch (so that a dip that
came back, or a second change further on, does not blur the first), and counts only when
- its size is at least `min_change`: the median of those points' medians after it differs from the one before it
  by that ratio or more (20 %: the session-to-session noise of a NAS on a quiet day stays well under it, and a
  smaller change is not worth an admin's evening);
- those points do not overlap: every one after is above (or below) every one before, so that one odd session
  among ordinary ones is never a change;
- Welch's t-test of their rounds before against their rounds after gives p < `alpha`.
Pure: numbers in, change points out.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from nfstune.statistics.stats import welch_test

MIN_CHANGE = 0.20
ALPHA = 0.01
MIN_POINTS = 2  # on each side: a change is seen once a second session confirms it
WINDOW = 3  # points each side a candidate is judged on


@dataclass(frozen=True)
class ChangePoint:
    index: int  # the first point of the new level
    before: float  # the median of the points' medians from the previous change point (or the start) to this one
    after: float  # the same, from this one to the next (or the end)
    p_value: float  # of the split t-test that found it

    @property
    def ratio(self) -> float:
        return self.after / self.before


def change_points(
    series: Sequence[Sequence[float]],
    *,
    min_change: float = MIN_CHANGE,
    alpha: float = ALPHA,
    min_points: int = MIN_POINTS,
) -> list[ChangePoint]:
    """The change points of `series` (each point's figures, all > 0, oldest first), in order. The levels either
    side of each are those of the stretches between the change points found."""
    if any(not point for point in series):
        raise ValueError("every point needs at least one figure")
    if any(not (v > 0 and math.isfinite(v)) for point in series for v in point):
        raise ValueError("a change point is found on positive, finite figures")
    logs = [[math.log(v) for v in point] for point in series]
    if len(logs) < 2 * min_points:
        return []
    p_values: dict[int, float] = {}
    stretches = [(0, len(logs))]
    while stretches:
        start, end = stretches.pop()
        split = _best_split(logs, start, end, min_change, alpha, min_points)
        if split is not None:
            p_values[split[0]] = split[1]
            stretches += [(start, split[0]), (split[0], end)]
    found = sorted(p_values)
    medians = [statistics.median(point) for point in logs]
    bounds = [0, *found, len(logs)]
    levels = [math.exp(statistics.median(medians[a:b])) for a, b in itertools.pairwise(bounds)]
    return [ChangePoint(index, levels[i], levels[i + 1], p_values[index]) for i, index in enumerate(found)]


def _best_split(
    logs: Sequence[Sequence[float]], start: int, end: int, min_change: float, alpha: float, min_points: int
) -> tuple[int, float] | None:
    """The split of logs[start:end] that passes the three tests with the smallest p-value, and that p-value."""
    medians = [statistics.median(point) for point in logs]
    least = math.log1p(min_change)
    best: tuple[float, float, int] | None = None
    for k in range(start + min_points, end - min_points + 1):
        first, last = max(start, k - WINDOW), min(end, k + WINDOW)
        near_before, near_after = medians[first:k], medians[k:last]
        shift = statistics.median(near_after) - statistics.median(near_before)
        if abs(shift) < least:
            continue
        apart = min(near_after) > max(near_before) if shift > 0 else max(near_after) < min(near_before)
        if not apart:
            continue
        p = _p_value([v for p in logs[first:k] for v in p], [v for p in logs[k:last] for v in p])
        if p < alpha and (best is None or (p, -abs(shift)) < best[:2]):
            best = (p, -abs(shift), k)
    return None if best is None else (best[2], best[0])


def _p_value(before: Sequence[float], after: Sequence[float]) -> float:
    if len(before) < 2 or len(after) < 2:
        return 1.0
    return welch_test(before, after).p_value
