"""The boundary of a comparison that a session may stop on at any of several looks (statistics/verdict.py says why).

A paired comparison looked at after rounds first..last (the recipe's rounds.min and rounds.max) has at look k the
nominal two-sided t-test p-value p_k (df = k - 1). With i.i.d. Gaussian log ratios and no difference, the sequence
(p_first, ..., p_last) does not depend on the variance (each t is scale-free), so the distribution of
P_min = min_k p_k is one distribution per (first, last): drawn here once by Monte Carlo (DRAWS sessions, a fixed
seed, so a session judged again gets the same verdicts) and kept for the process.

- sequential_p(p): P(P_min <= p), a p-value valid at whatever look the session stopped: {F(p_tau) <= u} lies
  inside {F(P_min) <= u}, whose chance is u.
- nominal_level(L): the nominal level whose t intervals cover the truth at every look at once with chance >= 1 - L
  (the L-quantile of P_min): Pocock's (1977) constant nominal boundary, calibrated for t tests (Jennison & Turnbull
  2000, ch. 2-3). p < nominal_level(L) exactly when sequential_p(p) <= L, so an interval drawn at it and a test at
  L always agree.

Cost: about 0.5-1 s per (first, last) on a 2-core machine (rounds 3-20), once per process.
"""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

DRAWS = 400_000  # the tail a Holm level of 0.05/30 asks for holds about 670 of them
SEED = 28  # issue 28: the same draws in every process, so the engine, the report and History agree
_CHUNK = 25_000  # draws at a time: (last x chunk) arrays stay in the cache, large ones cost page faults
# each look's p is tabulated at |t| = expm1(u), u on an even grid (so a |t|'s place in it is one division)
_STEPS = 2048
_U_TOP = math.log1p(1e6)


class Boundary:
    """The distribution of P_min for looks first..last (first >= 2: a t test needs two pairs)."""

    def __init__(self, first: int, last: int, p_min: np.ndarray) -> None:
        self.first, self.last = first, last
        self.p_min = p_min  # sorted ascending

    def sequential_p(self, nominal: float) -> float:
        """The chance, with no difference, that some look's nominal p is at most `nominal`."""
        import numpy as np  # imported by boundary(), which made this

        count = int(np.searchsorted(self.p_min, nominal, side="right"))
        return count / len(self.p_min)

    def nominal_level(self, level: float) -> float:
        """The nominal level that a sequential level `level` allows at each look: a nominal p below it is
        significant at `level` (sequential_p(p) <= level), one at or above it is not."""
        draws = len(self.p_min)
        allowed = math.floor(level * draws)  # the most draws at or below p that sequential_p(p) <= level allows
        while (allowed + 1) / draws <= level:
            allowed += 1
        while allowed > 0 and allowed / draws > level:
            allowed -= 1
        return float(self.p_min[allowed]) if allowed < draws else 1.0


@cache
def boundary(first: int, last: int) -> Boundary:
    """The boundary for a session that may stop after any round from `first` to `last` (both counted from 1)."""
    # here, not at the top: the desktop imports this module (through verdict.py) at start, and numpy and scipy
    # only when a verdict is judged (issue 31)
    import numpy as np
    from scipy import special  # type: ignore[import-untyped]

    grid = np.expm1(np.linspace(0.0, _U_TOP, _STEPS + 1))

    first = max(first, 2)
    last = max(last, first)
    rng = np.random.default_rng(SEED)
    looks = np.arange(first, last + 1, dtype=float)
    dfs = looks - 1
    # each look's two-sided p at the grid's |t|, as log p: np.interp between them orders the looks of a draw;
    # the p of the look found smallest is then computed exactly
    tables = np.log(np.maximum(2 * special.stdtr(dfs[:, None], -grid[None, :]), 1e-300))
    found = []
    for start in range(0, DRAWS, _CHUNK):
        size = min(_CHUNK, DRAWS - start)
        z = rng.standard_normal((last, size))
        sums, squares = np.cumsum(z, axis=0)[first - 1 :], np.cumsum(z * z, axis=0)[first - 1 :]
        n = looks[:, None]
        variance = np.maximum(squares - sums * sums / n, 0.0) / (n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(sums / n) / np.sqrt(variance / n)
        t = np.minimum(np.nan_to_num(t, nan=0.0, posinf=grid[-1]), grid[-1])
        place = np.log1p(t) * (_STEPS / _U_TOP)
        index = np.minimum(place.astype(np.intp), _STEPS - 1)
        weight = place - index
        rows = np.arange(len(looks))[:, None]
        log_p = tables[rows, index] * (1 - weight) + tables[rows, index + 1] * weight
        smallest = np.argmin(log_p, axis=0)
        columns = np.arange(size)
        found.append(2 * special.stdtr(dfs[smallest], -t[smallest, columns]))
    return Boundary(first, last, np.sort(np.concatenate(found)))
