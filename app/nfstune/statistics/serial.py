"""Whether a session's visits carry over from one round to the next, and by how much its intervals widen for it.

The verdicts assume that one round's ratio says nothing of the next. A visit that leaves state behind for the same
configuration's next visit (dirty data still being written back, a cache, a file laid out by the visit before)
breaks that: the rounds' ratios then follow each other, their spread understates the error of their mean, and the
false positives grow past the level (15-28 % with a lag-1 correlation of 0.6: docs/bench/verdict-simulation.md).

The check: the lag-1 correlation of the comparisons' round ratios (each about its own mean), pooled over the
family's comparisons, tested against every reordering of the rounds (one order for all comparisons, so that
comparisons sharing a baseline stay as alike as they are): its p is the share of orders with a correlation at least
as high. Where it finds one (p < LEVEL), every interval of the family is widened by sqrt((1 + r) / (1 - r)), the
factor by which a lag-1 correlation r inflates the variance of a mean, with r the pooled correlation corrected for
its bias in few rounds (about -(1 + 4r) / n: Marriott & Pope 1954).

With few rounds and comparisons the check sees only strong dependence; the simulation says how often it misses
it, and a session that finds it says so beside its verdicts.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

LEVEL = 0.10  # a false alarm only widens the intervals; a miss lets carried-over visits pass as an effect
MIN_ROUNDS = 4  # three lag pairs a comparison at least
MOST_ORDERS = 1000  # every order of up to 6 rounds (720); a fixed sample of 1000 orders beyond
SEED = 40  # the same orders in every process, so that every view of a session agrees
MOST_CORRELATION = 0.9  # the widening is at most sqrt(19) = 4.4x


@dataclass(frozen=True)
class Serial:
    correlation: float  # the pooled lag-1 correlation as measured
    p_value: float
    comparisons: int  # pooled over
    factor: float  # the intervals' widening: 1.0 when no carry-over is found

    @property
    def found(self) -> bool:
        return self.factor > 1.0

    def text(self) -> str:
        """What a session says beside its verdicts when it finds carry-over."""
        return (
            f"the rounds carry over into each other (lag-1 correlation {self.correlation:.2f} over "
            f"{self.comparisons} comparison{'s' if self.comparisons != 1 else ''}, p = {self.p_value:.2g}): "
            f"every interval is widened {self.factor:.1f}x for it"
        )


def carry_over(rows: Sequence[Sequence[float]]) -> Serial | None:
    """`rows`: per comparison, its rounds' log ratios in the order measured, all over the same rounds. None when
    too few rounds or no spread to tell."""
    import numpy as np

    rows = [row for row in rows if len(row) >= MIN_ROUNDS]
    if not rows:
        return None
    n = min(len(row) for row in rows)  # the rounds all have measured (a settled comparison stops being measured)
    values = np.array([row[:n] for row in rows], dtype=float)
    values -= values.mean(axis=1, keepdims=True)
    if not np.any(np.abs(values) > 1e-12):
        return None
    observed = _lag1(values[None, :, :])[0]
    orders = _orders(n)
    correlations = _lag1(values[:, orders].transpose(1, 0, 2))
    p = float(np.mean(correlations >= observed - 1e-12))
    factor = 1.0
    if p < LEVEL:
        r = min(MOST_CORRELATION, max(0.0, observed + (1 + 4 * observed) / n))
        factor = math.sqrt((1 + r) / (1 - r))
    return Serial(float(observed), p, len(rows), factor)


def _lag1(array: np.ndarray) -> np.ndarray:
    """Pooled lag-1 correlation per leading index of (orders x comparisons x rounds) centred values."""
    import numpy as np

    products = (array[:, :, 1:] * array[:, :, :-1]).sum(axis=(1, 2))
    squares = (array * array).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        found: np.ndarray = np.where(squares > 0, products / squares, 0.0)
    return found


@cache
def _orders(n: int) -> np.ndarray:
    import numpy as np

    if math.factorial(n) <= MOST_ORDERS:
        return np.array(list(itertools.permutations(range(n))))
    rng = np.random.default_rng(SEED)
    return np.array([rng.permutation(n) for _ in range(MOST_ORDERS)])
