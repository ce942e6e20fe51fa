"""The boundary of a comparison that a session may stop on at any of several looks (statistics/verdict.py says why).

A paired comparison looked at after rounds first..last (the recipe's rounds.min and rounds.max) has at look k a
statistic T_k (statistics/robust.py: Student's t of the rounds' log ratios, with one round far from the others
counted at its neighbour's value from robust.MIN_ROUNDS rounds on) and its nominal two-sided p-value p_k: from the t
distribution (df = k - 1) where T_k is Student's t, else from the draws' own distribution of T_k. With i.i.d.
Gaussian log ratios and no difference neither depends on the variance (each T is scale-free), so the distribution
of P_min = min_k p_k is one distribution per (first, last): drawn here once by Monte Carlo (DRAWS sessions, a fixed
seed, so a session judged again gets the same verdicts) and kept for the process. Under heavier tails and
contaminated visits the error stays within its level (docs/bench/verdict-simulation.md).

- sequential_p(p): P(P_min <= p), a p-value valid at whatever look the session stopped: {F(p_tau) <= u} lies
  inside {F(P_min) <= u}, whose chance is u.
- nominal_level(L): the nominal level whose intervals cover the truth at every look at once with chance >= 1 - L
  (the L-quantile of P_min): Pocock's (1977) constant nominal boundary, calibrated by simulation (Jennison &
  Turnbull 2000, ch. 2-3). p < nominal_level(L) exactly when sequential_p(p) <= L, and |T_k| > critical(k, a)
  exactly when p_k < a, so an interval drawn at it and a test at L always agree.

Cost: about 1-3 s per (first, last) on a 2-core machine (rounds 3-20), once per process.
"""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING

from nfstune.statistics.robust import MIN_ROUNDS, t_values
from nfstune.statistics.stats import t_quantile, t_two_sided_p

if TYPE_CHECKING:
    import numpy as np

DRAWS = 400_000  # the tail a Holm level of 0.05/30 asks for holds about 670 of them
SEED = 28  # issue 28: the same draws in every process, so the engine, the report and History agree
_CHUNK = 25_000  # draws at a time: (last x chunk) arrays stay in the cache, large ones cost page faults


class Boundary:
    """The null distribution of the statistic over looks first..last (first >= 2: a spread needs two pairs): each
    look's own (its nominal p) and that of P_min, the smallest nominal p of a session's looks."""

    def __init__(self, first: int, last: int, p_min: np.ndarray, marginals: dict[int, np.ndarray]) -> None:
        self.first, self.last = first, last
        self.p_min = p_min  # sorted ascending
        # look -> the draws' |statistic| sorted ascending, for the looks from robust.MIN_ROUNDS on (below, the
        # statistic is Student's t, whose distribution is exact)
        self.marginals = marginals

    def nominal_p(self, t: float, n: int) -> float:
        """The chance, with no difference, that look n's |statistic| is at least `t` (its nominal two-sided p)."""
        import numpy as np

        if n not in self.marginals:
            return t_two_sided_p(t, n - 1)
        draws = self.marginals[n]
        return float(len(draws) - np.searchsorted(draws, t, side="left")) / len(draws)

    def critical(self, n: int, nominal: float) -> float:
        """The |statistic| look n must exceed to be significant at the nominal level (the interval's half width, in
        standard errors): |t| > critical(n, a) exactly when nominal_p(t, n) < a."""
        if n not in self.marginals:
            return t_quantile(1 - nominal / 2, n - 1)
        draws = self.marginals[n]
        beyond = max(math.ceil(nominal * len(draws)) - 1, 0)  # draws at or above the value that a p < nominal allows
        return float(draws[len(draws) - beyond - 1]) if beyond < len(draws) else 0.0

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

    first = max(first, 2)
    last = max(last, first)
    rng = np.random.default_rng(SEED)
    looks = list(range(first, last + 1))
    statistic = np.empty((len(looks), DRAWS))
    for start in range(0, DRAWS, _CHUNK):
        size = min(_CHUNK, DRAWS - start)
        z = rng.standard_normal((size, last))
        for row, n in enumerate(looks):
            statistic[row, start : start + size] = t_values(z[:, :n])
    marginals = {n: np.sort(statistic[row]) for row, n in enumerate(looks) if n >= MIN_ROUNDS}
    p_min = np.ones(DRAWS)
    for row, n in enumerate(looks):
        if n in marginals:
            nominal = (DRAWS - np.searchsorted(marginals[n], statistic[row], side="left")) / DRAWS
        else:
            nominal = np.minimum(2 * special.stdtr(n - 1, -statistic[row]), 1.0)
        np.minimum(p_min, nominal, out=p_min)
    return Boundary(first, last, np.sort(p_min), marginals)
