"""Whether a session's visits carry over from one round to the next, and by how much its intervals widen for it.

The verdicts assume that one round's ratio says nothing of the next. A visit that leaves state behind for the same
configuration's next visit (dirty data still being written back, a cache, a file laid out by the visit before)
breaks that: the rounds' ratios then follow each other, their spread understates the error of their mean, and the
false positives grow past the level (15-28 % with a lag-1 correlation of 0.6: docs/bench/verdict-simulation.md).

The check: the lag-1 correlation of the comparisons' round ratios (each about its own mean), pooled over the
family's comparisons, tested against every reordering of the rounds (one order for all comparisons, so that
comparisons sharing a baseline stay as alike as they are): its p is the share of orders with a correlation at least
as high. Where it finds one (p < LEVEL), every interval of the checked comparisons is widened by
sqrt((1 + r) / (1 - r)), the factor by which a lag-1 correlation r inflates the variance of a mean, with r the pooled
correlation corrected for its bias in few rounds (about -(1 + 4r) / n: Marriott & Pope 1954). Why not refuse
outright (widen by the most, 4.4x): among 6 comparisons that left 5.5 % false positives under a correlation of 0.6
against 9 %, but left a 3x effect unsettled in 1 session of 20 (false alarms are 10 % of clean sessions), and a
clear 3x gain called "not settled" is a wrong answer too (docs/bench/verdict-simulation.md).

With one or two comparisons and a handful of rounds the check cannot see a correlation of 0.6 (its estimate is biased
down by about as much); the verdicts then claim no bound under carry-over, the simulation says how far off they are,
and the remedy is at the source: writeback idle before every timed run. A session that finds it says so beside its
verdicts.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from nfstune.words import count

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
            f"{count(self.comparisons, 'comparison')}, p = {self.p_value:.2g}): "
            f"every interval is widened {self.factor:.1f}x for it"
        )


def carry_over(rows: Sequence[Sequence[float]]) -> Serial | None:
    """`rows`: per comparison, its rounds' log ratios in the order measured. None when too few rounds or no spread
    to tell. Comparisons measured over the same number of rounds are reordered together; a comparison that
    settled and left the rounds (session/skipping.py) has fewer, and is reordered on its own."""
    import numpy as np

    groups: dict[int, list[Sequence[float]]] = {}
    for row in rows:
        if len(row) >= MIN_ROUNDS:
            groups.setdefault(len(row), []).append(row)
    if not groups:
        return None
    several = len(groups) > 1  # then every group takes the same number of sampled orders
    products, squares = np.zeros(1), np.zeros(1)
    observed_products = observed_squares = 0.0
    for n, members in sorted(groups.items()):
        values = np.array(members, dtype=float)
        values -= values.mean(axis=1, keepdims=True)
        reordered = values[:, _orders(n, several)].transpose(1, 0, 2)  # orders x comparisons x rounds
        products = products + (reordered[:, :, 1:] * reordered[:, :, :-1]).sum(axis=(1, 2))
        squares = squares + (reordered * reordered).sum(axis=(1, 2))
        observed_products += float((values[:, 1:] * values[:, :-1]).sum())
        observed_squares += float((values * values).sum())
    if observed_squares <= 1e-24:
        return None
    observed = observed_products / observed_squares
    correlations = products / np.maximum(squares, 1e-300)
    p = float(np.mean(correlations >= observed - 1e-12))
    factor = 1.0
    if p < LEVEL:
        n = max(groups)  # the bias correction of the longest rows: the smallest, so the widening is not overdone
        r = min(MOST_CORRELATION, max(0.0, observed + (1 + 4 * observed) / n))
        factor = math.sqrt((1 + r) / (1 - r))
    return Serial(observed, p, sum(len(m) for m in groups.values()), factor)


@cache
def _orders(n: int, sampled: bool = False) -> np.ndarray:
    """Every order of n rounds, or (sampled, or too many) MOST_ORDERS of them drawn with a fixed seed."""
    import numpy as np

    if not sampled and math.factorial(n) <= MOST_ORDERS:
        return np.array(list(itertools.permutations(range(n))))
    rng = np.random.default_rng([SEED, n])
    return np.array([rng.permutation(n) for _ in range(MOST_ORDERS)])
