"""The verdict a few bad visits cannot capture (statistics/robust.py), the visits far from the rest that it shows,
and the carry-over between rounds that widens it (statistics/serial.py)."""

from __future__ import annotations

import itertools
import math
import statistics

import pytest

from nfstune.statistics.robust import FAR_ROUND, MIN_ROUNDS, far_visits, paired
from nfstune.statistics.sequential import boundary
from nfstune.statistics.serial import LEVEL, carry_over
from nfstune.statistics.verdict import Question, judge

EFFECT = math.log(1.10)
# a quiet comparison's round-to-round wobble, in an order with no carry-over (it alternates)
WOBBLE = (0.02, -0.015, 0.01, -0.02, 0.015, -0.01, 0.005, -0.005)


def question(logs: dict[int, float], key: str = "q", looks: tuple[int, int] | None = None) -> Question:
    baseline = {r: 100.0 for r in logs}
    other = {r: 100.0 * math.exp(v) for r, v in logs.items()}
    return Question(("recipe", "seq-read", key), baseline, other, True, ("sync", "async"), looks=looks)


def test_one_slow_visit_no_longer_swamps_a_ten_percent_gain() -> None:
    logs = {r: EFFECT + WOBBLE[r - 1] for r in range(1, 7)}
    logs[3] -= math.log(2)  # async's third visit ran 2x slow (a scrub, a backup)
    (verdict,) = judge([question(logs, looks=(3, 8))])
    assert verdict.kind == "faster"
    assert verdict.set_aside == 3
    assert "round 3's ratio, far from the others', counted at its nearest neighbour's" in verdict.text
    # the mean with the slow round counted as measured would say about 1 % slower, and its spread would leave
    # nothing settled: the estimate is that of the other rounds
    assert verdict.ratio is not None and 1.07 < verdict.ratio < 1.13


def test_without_a_far_round_the_statistic_is_students_t() -> None:
    logs = {r: EFFECT + WOBBLE[r - 1] for r in range(1, 7)}
    rounds = paired(logs)
    values = list(logs.values())
    assert rounds.aside is None
    assert rounds.estimate == pytest.approx(statistics.fmean(values))
    assert rounds.se == pytest.approx(statistics.stdev(values) / math.sqrt(len(values)))


def test_below_the_minimum_rounds_nothing_is_set_aside() -> None:
    logs = {r: EFFECT + WOBBLE[r - 1] for r in range(1, MIN_ROUNDS)}
    logs[2] -= math.log(2)
    assert paired(logs).aside is None


def test_a_round_just_inside_the_cut_is_kept() -> None:
    values = [0.01, -0.01, 0.01, -0.01, 0.0]
    others_sd = statistics.stdev(values[:4])
    # externally studentized distance of the last round, just under the cut
    values[4] = 0.9 * FAR_ROUND * others_sd * math.sqrt(1 + 1 / 4)
    assert paired(dict(enumerate(values, start=1))).aside is None
    values[4] = 1.1 * FAR_ROUND * others_sd * math.sqrt(1 + 1 / 4)
    assert paired(dict(enumerate(values, start=1))).aside == 5


def test_a_visit_far_from_the_rest_is_shown_beside_the_verdict() -> None:
    figures = {1: 100.0, 2: 101.0, 3: 99.0, 4: 50.0, 5: 100.5, 6: 99.5}
    found = far_visits(figures)
    assert list(found) == [4] and found[4] == pytest.approx(50.0 / 99.75, rel=1e-3)
    assert far_visits({1: 100.0, 2: 103.0, 3: 97.0, 4: 90.0}) == {}  # some spread, nothing far
    base = {r: 100.0 for r in range(1, 7)}
    other = dict(figures)
    (verdict,) = judge([Question(("r", "w", "q"), base, other, True, ("sync", "async"))])
    assert ("async", 4, pytest.approx(50.0 / 99.75, rel=1e-3)) in verdict.far
    assert "round 4 of async measured 0.501x its usual figure" in verdict.text


def test_critical_and_nominal_p_agree() -> None:
    looks = boundary(3, 8)
    for n in range(3, 9):
        for nominal in (0.05, 0.01, 0.05 / 6, 0.0017):
            c = looks.critical(n, nominal)
            assert looks.nominal_p(c * 1.0001, n) < nominal <= looks.nominal_p(c * 0.9999, n)


def test_the_boundary_is_wider_than_students_t_where_a_round_may_be_set_aside() -> None:
    looks = boundary(6, 6)
    from scipy import stats  # type: ignore[import-untyped]

    # calibrated on its own draws, the statistic that may set a round aside needs a larger |t| than Student's t
    assert looks.critical(6, 0.05) > stats.t.ppf(0.975, 5)
    assert looks.critical(6, 0.05) < 1.3 * stats.t.ppf(0.975, 5)


# --- carry-over between rounds ---------------------------------------------------------------------------------------


def _own_lag1(rows: list[list[float]]) -> float:
    centred = [[v - statistics.fmean(row) for v in row] for row in rows]
    products = sum(a * b for row in centred for a, b in itertools.pairwise(row))
    return products / sum(v * v for row in centred for v in row)


def test_carry_over_p_value_counts_every_order() -> None:
    rows = [[0.0, 0.1, 0.2, 0.3, 0.25], [0.05, 0.1, 0.3, 0.35, 0.3]]
    found = carry_over(rows)
    assert found is not None
    observed = _own_lag1(rows)
    orders = list(itertools.permutations(range(5)))
    higher = sum(_own_lag1([[row[i] for i in order] for row in rows]) >= observed - 1e-12 for order in orders)
    assert found.correlation == pytest.approx(observed)
    assert found.p_value == pytest.approx(higher / len(orders))
    assert found.found == (found.p_value < LEVEL)


def test_rounds_that_carry_over_widen_every_interval_and_say_so() -> None:
    # six comparisons whose ratios climb round after round (a state that builds up), and the same values in an
    # order that alternates: the estimates are the same, only the order differs
    climbing = [[0.00, 0.03, 0.05, 0.08, 0.10, 0.12], [0.01, 0.02, 0.05, 0.07, 0.09, 0.13]] * 3
    alternating = [[row[i] for i in (0, 5, 1, 4, 2, 3)] for row in climbing]

    def family(rows: list[list[float]]) -> list[Question]:
        return [question(dict(enumerate(row, start=1)), key=str(k), looks=(3, 8)) for k, row in enumerate(rows)]

    widened, plain = judge(family(climbing)), judge(family(alternating))
    assert all(v.carry_over is not None and v.carry_over.factor > 1 for v in widened)
    assert all(v.carry_over is None for v in plain)
    for a, b in zip(widened, plain, strict=True):
        assert a.ratio == pytest.approx(b.ratio)
        assert a.ci is not None and b.ci is not None
        assert a.ci[1] / a.ci[0] > b.ci[1] / b.ci[0]
        assert "the rounds carry over into each other" in a.text


def test_a_comparison_that_left_the_rounds_still_counts_in_the_check() -> None:
    # one comparison settled after 4 rounds (session/skipping.py) beside five measured for 6: all six are pooled,
    # and the climbing rows are found whether or not the short one is there
    long_rows = [[0.00, 0.03, 0.05, 0.08, 0.10, 0.12], [0.01, 0.02, 0.05, 0.07, 0.09, 0.13]] * 2 + [[0.0] * 5 + [0.1]]
    short_row = [0.02, 0.04, 0.05, 0.07]
    found = carry_over([*long_rows, short_row])
    alone = carry_over(long_rows)
    assert found is not None and alone is not None
    assert found.comparisons == 6 and alone.comparisons == 5
    assert found.found and alone.found
    assert carry_over([[0.1, 0.2, 0.3]]) is None  # three rounds: too few to tell
