"""The median's interval from its rounds' order statistics: the published sign-test table, none from too few
rounds, and its coverage checked by simulation on skewed figures through the real function."""

from __future__ import annotations

import random
import statistics

import pytest

from nfstune.statistics.median_interval import median_interval


@pytest.mark.parametrize(
    ("n", "ranks"),
    [
        # the ranks (1-based) of the 95 % distribution-free interval for the median as tabled by Campbell & Gardner,
        # "Calculating confidence intervals for some non-parametric analyses", BMJ 1988 (and in Altman et al.,
        # Statistics with Confidence)
        (6, (1, 6)),
        (7, (1, 7)),
        (8, (1, 8)),
        (9, (2, 8)),
        (10, (2, 9)),
        (12, (3, 10)),
        (15, (4, 12)),
        (20, (6, 15)),
    ],
)
def test_the_ranks_of_the_sign_test_table(n: int, ranks: tuple[int, int]) -> None:
    values = [float(10 * i) for i in range(n, 0, -1)]  # given unsorted
    assert median_interval(values) == (10.0 * ranks[0], 10.0 * ranks[1])


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_too_few_rounds_give_none(n: int) -> None:
    assert median_interval([1.0] * n) is None


def test_it_covers_the_median_of_skewed_figures_at_least_95_percent_of_the_time() -> None:
    rng = random.Random(7)
    truth = statistics.median(rng.lognormvariate(0, 0.6) for _ in range(200_001))  # exp(0) = 1 in theory
    for n in (6, 9, 14):
        trials, covered = 4000, 0
        for _ in range(trials):
            interval = median_interval([rng.lognormvariate(0, 0.6) for _ in range(n)])
            assert interval is not None
            covered += interval[0] <= truth <= interval[1]
        assert covered / trials >= 0.94, (n, covered / trials)  # at least 95 % but for the simulation's own error
