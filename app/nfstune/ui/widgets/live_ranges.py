"""The live plot's axes move in steps, not with every sample: the time axis ends at the next round length of a run
(a minute, two, five, ten, ... an hour) and each plot's top at the next round figure. A steady axis reads better
than one that creeps, and its ticks, grid and the decimation's buckets are worked out again only when it moves."""

from __future__ import annotations

import math

HEADROOM = 1.08  # above the highest point or ceiling: the top tick's figure and the peak clear of the frame
BELOW_ZERO = 0.07  # of the top, below 0: idle lines do not hide in the axis and the 0 tick's figure fits
ROUND_TOPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
RUN_LENGTHS_S = (60, 120, 180, 300, 600, 900, 1200, 1800, 2400, 3600)
LONG_STEP_S = 600  # past an hour, the axis grows ten minutes at a time
LEFT_STEP_S = 60  # once the oldest samples are dropped, the axis' start moves a minute at a time


def round_up(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is at least `value` (> 0)."""
    scale = 10.0 ** math.floor(math.log10(value))
    return next(m * scale for m in ROUND_TOPS if m * scale >= value * (1 - 1e-12))


def y_range(top: float, strip: float = 0.0) -> tuple[float, float]:
    """The view's (bottom, top) for data and ceilings up to `top` (> 0): the top rounded up, with HEADROOM, and
    `top` below a strip of that fraction of the height kept free at the top (the marker labels')."""
    needed = max(top * HEADROOM, top / (1 - (1 + BELOW_ZERO) * min(strip, 0.5)))
    upper = round_up(needed)
    return -BELOW_ZERO * upper, upper


def time_range(first: float, last: float) -> tuple[float, float]:
    """The time axis' (start, end) in seconds since the run's start for samples from `first` to `last`: from 0 to
    the next round length while the buffers hold the whole run, then from the last whole minute before the oldest
    sample kept."""
    start = 0.0 if first < LEFT_STEP_S else math.floor(first / LEFT_STEP_S) * LEFT_STEP_S
    length = last - start + 1  # the newest point a little inside the frame
    fits = next((n for n in RUN_LENGTHS_S if n >= length), None)
    return start, start + (fits if fits is not None else math.ceil(length / LONG_STEP_S) * LONG_STEP_S)
