"""Verdicts of a session that may stop at any of several looks (statistics/sequential.py, statistics/verdict.py
`looks`): the boundary reduces to the fixed t test with one look, tightens as the looks grow, keeps the false effects
of an A/A session that stops at its first settled look near 5 %, and its intervals agree with its verdicts."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from nfstune.statistics.sequential import DRAWS, boundary
from nfstune.statistics.verdict import Question, Verdict, judge

MC = 4 * math.sqrt(0.05 * 0.95 / DRAWS)  # four Monte Carlo standard errors of a tail chance near 0.05


def question(logs: list[float], looks: tuple[int, int] | None, key: str = "q", margin: float = 5.0) -> Question:
    baseline = {number: 100.0 for number in range(1, len(logs) + 1)}
    other = {number: 100.0 * math.exp(log) for number, log in zip(baseline, logs, strict=True)}
    return Question(("r", "w", key), baseline, other, True, ("A", "B"), margin_percent=margin, looks=looks)


def excludes_one(verdict: Verdict) -> bool:
    assert verdict.ci is not None
    return verdict.ci[0] > 1 or verdict.ci[1] < 1


def test_one_look_is_the_fixed_t_test_within_monte_carlo_error() -> None:
    one = boundary(3, 3)
    for level in (0.05, 0.01):
        assert one.nominal_level(level) == pytest.approx(level, abs=MC)
    assert one.sequential_p(0.03) == pytest.approx(0.03, abs=MC)
    # a question with one look (rounds.min = rounds.max) is the fixed design itself, not its simulation
    logs = [0.10, 0.12, 0.15]
    fixed, looked = judge([question(logs, None)])[0], judge([question(logs, (3, 3))])[0]
    assert fixed == looked and fixed.kind == "faster" and "stopping" not in fixed.text
    # with a second look the interval widens
    twice = judge([question(logs, (3, 4))])[0]
    assert twice.ci is not None and fixed.ci is not None
    assert twice.ci[0] < fixed.ci[0] and fixed.ci[1] < twice.ci[1]
    assert twice.text.endswith("corrected for stopping at any of rounds 3-4)")


def test_the_nominal_level_falls_as_the_looks_grow() -> None:
    levels = [boundary(3, last).nominal_level(0.05) for last in (3, 6, 10, 20)]
    assert levels == sorted(levels, reverse=True)
    # Pocock's constant nominal level for about 20 looks is near 0.007 (normal data; Jennison & Turnbull table 2.1)
    assert 0.005 < levels[-1] < 0.011
    # a Holm step of a large family: smaller still
    assert boundary(3, 20).nominal_level(0.05 / 30) < levels[-1] / 10


@pytest.mark.parametrize("level", [0.05, 0.05 / 2, 0.05 / 9, 0.05 / 30, 0.2])
def test_a_nominal_p_is_significant_exactly_below_the_nominal_level(level: float) -> None:
    looks = boundary(3, 12)
    edge = looks.nominal_level(level)
    assert looks.sequential_p(edge) > level
    assert looks.sequential_p(math.nextafter(edge, 0)) <= level


def test_a_a_sessions_that_stop_at_their_first_settled_look_keep_false_effects_near_5_percent() -> None:
    rng = random.Random(2811)
    sessions, first, last = 300, 3, 20
    wrong = {True: 0, False: 0}  # with looks, and judged as if each look were the only one
    for _ in range(sessions):
        logs = [rng.gauss(0, 0.10) for _ in range(last)]
        for with_looks in (True, False):
            for n in range(first, last + 1):
                verdict = judge([question(logs[:n], (first, last) if with_looks else None)])[0]
                if verdict.settled:
                    wrong[with_looks] += verdict.effect
                    break
    assert wrong[True] / sessions < 0.08
    assert wrong[False] / sessions > 0.12  # the looks' cost the boundary pays for (docs/bench: 16-24 %)


def test_more_rounds_are_never_advised_beyond_the_last_look() -> None:
    noisy = [0.3, -0.25, 0.1, 0.35]
    verdict = judge([question(noisy, (3, 6))])[0]
    assert verdict.kind == "not settled"
    assert verdict.rounds_needed is None and verdict.settle is not None
    assert verdict.settle.startswith("even 6 rounds, the most the recipe runs, would not settle it")
    closer = judge([question([0.10, 0.06, 0.13, 0.08], (3, 20))])[0]
    assert closer.rounds_needed is not None and 4 < closer.rounds_needed <= 20
    more = closer.rounds_needed - 4
    assert closer.settle == f"about {more} more round{'s' if more > 1 else ''} would settle it"


def test_the_interval_says_it_holds_over_the_looks() -> None:
    verdict = judge([question([0.2, 0.25, 0.22, 0.18], (3, 20)), question([0.0, 0.01, -0.01], (3, 20), "p")])
    assert verdict[0].kind == "faster"
    assert "95 % CI " in verdict[0].text
    assert "corrected for 2 comparisons and stopping at any of rounds 3-20" in verdict[0].text
    alone = judge([question([0.2, 0.25, 0.22, 0.18], (3, 20))])[0]
    assert alone.text.endswith(", corrected for stopping at any of rounds 3-20)")


logs = st.lists(st.floats(min_value=-0.5, max_value=0.5), min_size=2, max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(logs, min_size=1, max_size=6), st.floats(min_value=0, max_value=20))
@example(family=[[-0.046875, -0.046875, -0.044921875]], margin=6.0)  # certain, 4.5 % slower, inside a 6 % margin
def test_the_interval_and_the_verdict_always_agree_with_looks(family: list[list[float]], margin: float) -> None:
    verdicts = judge([question(f, (3, 12), str(k), margin) for k, f in enumerate(family)])
    for verdict in verdicts:
        assert verdict.ci is not None and verdict.ratio is not None and verdict.p_value is not None
        assert verdict.ci[0] <= verdict.ratio <= verdict.ci[1]
        if verdict.ci[0] != verdict.ci[1]:
            # a certain difference inside the margin is "same", not an effect (statistics/verdict.py's docstring)
            assert verdict.effect == (excludes_one(verdict) and verdict.kind != "same")
        if verdict.kind == "same":
            assert 1 / (1 + margin / 100) <= verdict.ci[0] and verdict.ci[1] <= 1 + margin / 100
        if verdict.p_value > 0.05:
            assert not verdict.effect
        assert (verdict.kind == "not settled") == (verdict.settle is not None)
