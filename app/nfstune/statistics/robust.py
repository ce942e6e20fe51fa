"""The paired statistic a few bad visits cannot capture: the mean of the rounds' log ratios with one round far from
the others counted at its neighbour's value (winsorized), and its standard error; and the visits far from the rest
that a verdict shows (a modified z-score, as hyperfine warns of).

Why this and not a rank method (docs/DESIGN.md, docs/bench/verdict-simulation.md): a Wilcoxon signed-rank interval or
any sign-flip test cannot reject below 2 / 2^n; with 6 rounds that is 3.1 %, more than the 0.8 % Holm asks of the
first of 6 comparisons, so quick-check could never find an effect. A studentized statistic calibrated by simulation
(statistics/sequential.py) can, and the round set aside keeps a 2x-slow visit from swamping the spread.

A round is set aside only when its ratio is far from the mean of the others in units of their spread (the externally
studentized residual, > FAR_ROUND), and only from MIN_ROUNDS rounds on: with fewer, the others' spread is too unsure
to tell a bad visit from chance. At most one round is set aside; it is not dropped but counted at the nearest
other round's value, so the rounds counted stay n. With no round set aside the statistic is Student's t exactly.

Written once, on arrays: the simulation that calibrates the boundary (sequential.py) and the verdict of one
comparison (verdict.py, a 1 x n array) run the same code, so they cannot drift apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

MIN_ROUNDS = 5  # from this many rounds on, one round far from the others may be set aside
# in units of the other rounds' spread; chosen by simulation (docs/bench/verdict-simulation.md): lower cuts set
# aside chance rounds, which widens every interval at Holm's small levels; higher ones miss a 2x-slow visit
FAR_ROUND = 10.0
FAR_VISIT = 10.0  # a visit's modified z-score above which it is shown as far from the rest (hyperfine's warning)
_TINY = 1e-300
ALIKE = 1e-12  # a spread below this share of the ratios' size is rounding


def studentized(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of `x` (draws x rounds, the rounds' log ratios): the estimate, its standard error and the index of the
    round set aside (-1: none)."""
    mean, se, aside, _ = _counted(x)
    return mean, se, aside


def _counted(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """studentized(), and the values counted (the round set aside at its neighbour's)."""
    import numpy as np

    draws, n = x.shape
    aside = np.full(draws, -1, dtype=np.intp)
    if n >= MIN_ROUNDS:
        total, squares = x.sum(1, keepdims=True), (x * x).sum(1, keepdims=True)
        others_mean = (total - x) / (n - 1)
        others_var = np.maximum((squares - x * x - (n - 1) * others_mean**2) / (n - 2), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.abs(x - others_mean) / np.sqrt(others_var * (1 + 1 / (n - 1)))
        z = np.nan_to_num(z, nan=0.0, posinf=np.inf)
        farthest = z.argmax(1)
        rows = np.flatnonzero(z[np.arange(draws), farthest] > FAR_ROUND)
        if rows.size:
            x = x.copy()
            ordered = np.sort(x[rows], axis=1)
            high = x[rows, farthest[rows]] >= ordered[:, -1]
            x[rows, farthest[rows]] = np.where(high, ordered[:, -2], ordered[:, 1])
            aside[rows] = farthest[rows]
    mean = x.mean(1)
    se = x.std(1, ddof=1) / math.sqrt(n)
    # rounds alike but for the last bits of their logs: one ratio, as exact arithmetic would find it (so a
    # comparison and its mirror image agree)
    se[se <= ALIKE * np.abs(x).max(1)] = 0.0
    return mean, se, aside, x


def t_values(x: np.ndarray) -> np.ndarray:
    """|estimate| / standard error per row (inf where the rounds are all alike and the estimate is not 0)."""
    import numpy as np

    mean, se, _ = studentized(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean) / se
    found: np.ndarray = np.nan_to_num(t, nan=0.0, posinf=np.inf)
    return found


@dataclass(frozen=True)
class Rounds:
    """One comparison's rounds as the verdict counts them."""

    estimate: float  # the mean log ratio, the round set aside counted at its neighbour's value
    se: float
    n: int
    aside: int | None  # the round (as numbered in the session) set aside, if any
    counted: tuple[float, ...]  # the log ratios in round order as counted (the one set aside at its neighbour's)


def paired(log_ratios: Mapping[int, float]) -> Rounds:
    """The statistic of one comparison: round number -> its log speed ratio (at least 2 rounds)."""
    import numpy as np

    numbers = sorted(log_ratios)
    mean, se, aside, counted = _counted(np.array([[log_ratios[r] for r in numbers]], dtype=float))
    index = int(aside[0])
    return Rounds(
        float(mean[0]), float(se[0]), len(numbers), numbers[index] if index >= 0 else None, tuple(counted[0].tolist())
    )


def far_visits(figures: Mapping[int, float]) -> dict[int, float]:
    """The visits far from the rest of the same configuration and workload: round -> how many times its figure is
    the median's (2.0: twice the median). By the modified z-score of the log figures (Iglewicz & Hoaglin 1993:
    0.6745 x the distance from the median / the median absolute deviation) above FAR_VISIT; none below 3 visits."""
    if len(figures) < 3:
        return {}
    logs = {r: math.log(v) for r, v in figures.items()}
    middle = _median(list(logs.values()))
    spread = _median([abs(v - middle) for v in logs.values()])
    if spread <= _TINY:
        return {}
    return {r: math.exp(v - middle) for r, v in sorted(logs.items()) if 0.6745 * abs(v - middle) / spread > FAR_VISIT}


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
