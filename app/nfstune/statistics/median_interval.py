"""A confidence interval for the median of a few rounds, from their order statistics (the sign-test interval).

Why this one where a median is the figure shown (the trend of a pair's sessions): it assumes nothing of the
distribution (a round disturbed by a neighbour's backup is one more value, not a shifted mean), its ends are rounds
that were measured, so it never leaves the range the figure can take (a t interval of the mean over 2 rounds runs
below 0 MB/s), and it says honestly when the rounds are too few: with 5 or fewer, even the lowest and the highest
round cover the median with less than 95 % (1 - 2 / 2^5 = 93.75 %), so there is none.

The interval [x(k), x(n+1-k)] of the sorted values covers the median with probability
1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2): the largest k that keeps this at the confidence or above is taken.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

CONFIDENCE = 0.95


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """(low, high) covering the median with at least `confidence`; None when the values are too few for it."""
    ordered = sorted(values)
    n = len(ordered)
    chosen = None
    below = 0  # P(B <= k - 1) * 2^n, grown one k at a time
    for k in range(1, n // 2 + 1):
        below += math.comb(n, k - 1)
        if 1 - 2 * below / 2**n < confidence:
            break
        chosen = k
    if chosen is None:
        return None
    return ordered[chosen - 1], ordered[n - chosen]
