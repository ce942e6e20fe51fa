"""Verdicts: paired t intervals on log speed ratios, Holm over a session's family, equivalence, the settle hint.

Expected figures come from published tables and closed forms, never from verdict.py: Student's t quantiles from
the NIST/SEMATECH e-Handbook table 1.3.6.7.2; for 2 and 4 degrees of freedom the t distribution has closed forms
(Abramowitz & Stegun 26.7.3), used to build data with a chosen p-value and to check intervals at any level.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfstune.statistics.verdict import Question, Verdict, format_change, judge, speed_ratios

DRIFT = [100.0, 60.0, 140.0, 80.0, 120.0, 90.0, 70.0, 130.0]  # a host whose speed swings +-40 % between rounds


def paired(
    logs: Sequence[float],
    key: str = "q",
    *,
    higher_is_better: bool = True,
    margin_percent: float = 5.0,
    expect_same: bool = False,
    why_same: str = "",
) -> Question:
    """Figures whose per-round log speed ratio is `logs`, on a drifting host (both visits of a round share it)."""
    baseline = {number: DRIFT[number - 1] for number in range(1, len(logs) + 1)}
    speed = {number: baseline[number] * math.exp(log) for number, log in zip(baseline, logs, strict=True)}
    # for seconds, a configuration r times faster takes 1/r of the time
    other = speed if higher_is_better else {number: baseline[number] ** 2 / speed[number] for number in baseline}
    return Question(
        ("recipe", "workload", key),
        baseline,
        other,
        higher_is_better,
        ("A", "B"),
        margin_percent,
        expect_same,
        why_same,
    )


def three_rounds(
    mean: float, spread: float, key: str = "q", *, margin_percent: float = 5.0, expect_same: bool = False
) -> Question:
    """n = 3 log ratios mean-s, mean, mean+s: their sample standard deviation is s, so t = mean / (s / sqrt 3)."""
    return paired([mean - spread, mean, mean + spread], key, margin_percent=margin_percent, expect_same=expect_same)


def t2_p(t: float) -> float:
    """Two-sided p of Student's t with 2 degrees of freedom: 1 - t / sqrt(2 + t^2)."""
    return 1 - abs(t) / math.sqrt(2 + t * t)


def t2_quantile(level: float) -> float:
    """The t whose two-sided p with 2 degrees of freedom is `level` (the inverse of t2_p)."""
    c = 1 - level
    return c * math.sqrt(2 / (1 - c * c))


def excludes_one(verdict: Verdict) -> bool:
    assert verdict.ci is not None
    return verdict.ci[0] > 1 or verdict.ci[1] < 1


# --- Holm ---------------------------------------------------------------------------------------------------------


def test_holm_example_from_the_literature() -> None:
    # Wikipedia, "Holm-Bonferroni method", Example: four hypotheses with p = 0.01, 0.04, 0.03, 0.005 at alpha 0.05.
    # Sorted 0.005 <= 0.05/4 (reject H4), 0.01 <= 0.05/3 (reject H1), 0.03 > 0.05/2: stop; H1 and H4 are rejected.
    spread = 0.1
    se = spread / math.sqrt(3)
    p_values = {"H1": 0.01, "H2": 0.04, "H3": 0.03, "H4": 0.005}
    means = {name: t2_quantile(p) * se for name, p in p_values.items()}
    verdicts = judge([three_rounds(means[name], spread, name) for name in p_values])
    by_name = {v.key[-1]: v for v in verdicts}
    for name, p in p_values.items():
        assert by_name[name].p_value == pytest.approx(p, rel=1e-9)
        assert by_name[name].family == 4 and by_name[name].n == 3
    assert {name for name, v in by_name.items() if v.effect} == {"H1", "H4"}
    assert [v.kind for v in verdicts] == ["faster", "not settled", "not settled", "faster"]
    # each CI is drawn at its Holm step's level; H2, after the step where Holm stops (H3's, 0.025), at that level
    step_level = {"H4": 0.05 / 4, "H1": 0.05 / 3, "H3": 0.05 / 2, "H2": 0.05 / 2}
    for name, level in step_level.items():
        half = t2_quantile(level) * se
        expected = (math.exp(means[name] - half), math.exp(means[name] + half))
        assert by_name[name].ci == pytest.approx(expected, rel=1e-9)
        assert excludes_one(by_name[name]) == by_name[name].effect
    # unadjusted, all four have p < 0.05: the 0.04 and the 0.03 would have been called faster
    assert all(p < 0.05 for p in p_values.values())
    assert "corrected for 4 comparisons" in by_name["H4"].text


def test_a_family_of_one_is_the_plain_test() -> None:
    spread = 0.1
    se = spread / math.sqrt(3)
    just_in, just_out = t2_quantile(0.049) * se, t2_quantile(0.051) * se
    assert judge([three_rounds(just_in, spread)])[0].kind == "faster"
    assert judge([three_rounds(just_out, spread)])[0].kind == "not settled"
    assert judge([three_rounds(-just_in, spread)])[0].kind == "slower"
    # the same 0.049 among three comparisons of p 0.049 is no longer enough: 0.049 > 0.05/3
    family = judge([three_rounds(just_in, spread, str(i)) for i in range(3)])
    assert [v.kind for v in family] == ["not settled"] * 3 and "corrected for 3 comparisons" in family[0].text


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values (Wright 1992): p~_(k) = max over j <= k of min(1, (m - j + 1) p_(j))."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted, running = [0.0] * m, 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        adjusted[i] = running
    return adjusted


@settings(max_examples=80, deadline=None)  # a timing limit is a benchmark's job, not a test's (a busy machine)
@given(st.lists(st.floats(min_value=1e-4, max_value=0.9), min_size=1, max_size=10))
def test_holm_matches_the_adjusted_p_values(p_values: list[float]) -> None:
    spread = 0.1
    se = spread / math.sqrt(3)
    verdicts = judge([three_rounds(t2_quantile(p) * se, spread, str(k)) for k, p in enumerate(p_values)])
    for verdict, adjusted in zip(verdicts, holm_adjusted(p_values), strict=True):
        if abs(adjusted - 0.05) > 1e-9:  # away from the boundary, where the rebuilt p may round either way
            assert verdict.effect == (adjusted <= 0.05)


# --- the paired interval by hand ----------------------------------------------------------------------------------


@pytest.mark.parametrize("higher_is_better", [True, False])
def test_paired_interval_matches_a_hand_computation(higher_is_better: bool) -> None:
    # four rounds (below robust.MIN_ROUNDS, so no round can be set aside: Student's t exactly), in an order with no
    # carry-over (serial.py). Log ratios 0.2 + 0.05 * (0.5, -1.5, 1.5, -0.5): mean 0.2,
    # s = 0.05 * sqrt(5/3) = 0.0645497, se = s / 2 = 0.0322749.
    # t(0.975, 3) = 3.182446 (NIST): half-width 0.102713, so the CI is exp(0.097287) = 1.102177 to
    # exp(0.302713) = 1.353526, the estimate exp(0.2) = 1.221403.
    logs = [0.2 + 0.05 * k for k in (0.5, -1.5, 1.5, -0.5)]
    (verdict,) = judge([paired(logs, higher_is_better=higher_is_better)])
    assert verdict.kind == "faster" and verdict.n == 4 and verdict.family == 1
    assert verdict.ratio == pytest.approx(1.221403, abs=1e-6)
    assert verdict.ci == pytest.approx((1.102177, 1.353526), abs=1e-5)
    # two-sided p for t = 0.2 / 0.0322749 = 6.196773 with 3 df: 1 - (2/pi)(a + sin a cos a), a = atan(t / sqrt 3)
    a = math.atan(6.196773 / math.sqrt(3))
    assert verdict.p_value == pytest.approx(1 - (2 / math.pi) * (a + math.sin(a) * math.cos(a)), rel=1e-5)
    assert verdict.text == "B is 22 % faster than A (95 % CI 10 % to 35 % faster)"
    assert verdict.settled and verdict.effect and verdict.settle is None
    assert verdict.set_aside is None and verdict.far == ()


def test_the_drift_cancels_where_unpaired_figures_see_only_noise() -> None:
    logs = [0.2 + 0.05 * k for k in (0, -2, 2, -1, 1)]
    question = paired(logs)
    unpaired = Question(question.key, question.baseline, question.other, True, question.names, paired=False)
    assert judge([question])[0].kind == "faster"
    assert judge([unpaired])[0].kind == "not settled"  # the +-40 % drift swamps the 22 % in independent samples


# --- same, not settled, and what would settle it ------------------------------------------------------------------


def test_no_difference_that_matters() -> None:
    # log ratios 0.01 +- 0.01: t(0.975, 2) = 4.303, se = 0.01 / sqrt(3) = 0.0057735, half-width 0.024843:
    # CI exp(-0.014843) = 0.985267 to exp(0.034843) = 1.035457, inside [1/1.05, 1.05]
    (verdict,) = judge([three_rounds(0.01, 0.01)])
    assert verdict.kind == "same" and verdict.settled and not verdict.effect
    assert verdict.ci == pytest.approx((0.985267, 1.035457), abs=1e-5)
    assert verdict.text == (
        "B: no difference that matters against A (within ±5 %; 95 % CI 1.5 % slower to 3.5 % faster)"
    )
    # the same figures with a 3 % margin: 1.035 is outside it
    (narrow,) = judge([three_rounds(0.01, 0.01, margin_percent=3)])
    assert narrow.kind == "not settled"


def test_a_certain_small_difference_inside_the_margin_does_not_matter() -> None:
    # log ratios 0.02 +- 0.002: CI exp(0.02 -+ 4.303 * 0.0011547) = 1.0151 to 1.0253, which excludes 1 and lies
    # inside [1/1.05, 1.05]: a 2 % difference that is certain and does not matter, also where none was expected
    for expect_same in (False, True):
        (verdict,) = judge([three_rounds(0.02, 0.002, expect_same=expect_same)])
        assert verdict.kind == "same"
        assert verdict.ci == pytest.approx((1.01514, 1.02526), abs=1e-4)
    # with a 1 % margin the same figures are an effect, or, where none was expected, a broken measurement
    (effect,) = judge([three_rounds(0.02, 0.002, margin_percent=1)])
    (broken,) = judge([three_rounds(0.02, 0.002, margin_percent=1, expect_same=True)])
    assert (effect.kind, broken.kind) == ("faster", "unreliable")


def test_not_settled_says_how_many_rounds_would_settle_it() -> None:
    # log ratios 0.1 +- 0.1: t = 0.1 / (0.1 / sqrt 3) = 1.732, p = 0.225. CI exp(0.1 -+ 4.303 * 0.057735):
    # 0.862074 (14 % slower) to 1.416818 (42 % faster). With the spread equal to the effect, the CI excludes 1 once
    # sqrt(n) > t(0.975, n-1): n = 6 gives 2.449 < 2.571, n = 7 gives 2.646 > 2.447 (NIST): 7 rounds, 4 more.
    (verdict,) = judge([three_rounds(0.1, 0.1)])
    assert verdict.kind == "not settled" and not verdict.settled
    assert verdict.ci == pytest.approx((0.862074, 1.416818), abs=1e-5)
    assert verdict.text == "B against A: not settled (11 % faster so far; 95 % CI 14 % slower to 42 % faster)"
    assert verdict.rounds_needed == 7 and verdict.settle == "about 4 more rounds would settle it"


def test_too_noisy_for_more_rounds_asks_for_larger_files() -> None:
    # log ratios 0.02 +- 0.1: excluding 1 needs sqrt(n) > 5 t(0.975, n-1), about 100 rounds; fitting in +-5 %
    # (log 1.05 = 0.0488) needs t * 0.1 / sqrt(n) <= 0.0288; at n = 30, t(0.975, 29) = 2.045 gives 0.0373. Neither
    # by 30 rounds.
    (verdict,) = judge([three_rounds(0.02, 0.1)])
    assert verdict.kind == "not settled" and verdict.rounds_needed is None
    assert verdict.settle == "more rounds alone would not settle it soon: larger files or a quieter network would"


def test_fewer_than_two_rounds_is_not_settled() -> None:
    one = Question(("r", "w", "x"), {1: 10.0, 2: 11.0}, {2: 12.0, 3: 13.0}, True, ("baseline", "vers=3"))
    none = Question(("r", "w", "y"), {1: 10.0}, {2: 12.0}, True, ("baseline", "vers=4.1"))
    settled = three_rounds(0.5, 0.01)
    verdicts = judge([one, none, settled])
    assert [v.kind for v in verdicts] == ["not settled", "not settled", "faster"]
    assert (
        verdicts[0].text
        == "vers=3 against baseline: not settled (only 1 round with both measured; at least 2 are needed)"
    )
    assert verdicts[1].text.startswith("vers=4.1 against baseline: not settled (no round with both measured;")
    for verdict in verdicts[:2]:
        assert (verdict.ratio, verdict.ci, verdict.p_value, verdict.rounds_needed) == (None, None, None, None)
        assert verdict.settle
    assert (verdicts[0].n, verdicts[1].n) == (1, 0)
    assert verdicts[2].family == 1 and "corrected" not in verdicts[2].text  # only testable comparisons count
    lone = Question(("r", "w", "z"), {1: 10.0}, {1: 12.0, 2: 13.0}, True, ("A", "B"), paired=False)
    assert judge([lone])[0].kind == "not settled" and judge([lone])[0].n == 1


def test_the_same_ratio_in_every_round() -> None:
    ones = Question(("k", "1"), {1: 100.0, 2: 80.0, 3: 200.0}, {1: 100.0, 2: 80.0, 3: 200.0}, True, ("A", "B"))
    half_again = Question(("k", "2"), {1: 100.0, 2: 80.0, 3: 200.0}, {1: 150.0, 2: 120.0, 3: 300.0}, True, ("A", "C"))
    same, faster = judge([ones, half_again])
    assert (same.kind, same.ratio, same.ci, same.p_value) == ("same", 1.0, (1.0, 1.0), 1.0)
    assert same.text == "B: no difference that matters against A (within ±5 %; every round gave the same ratio)"
    assert (faster.kind, faster.ratio, faster.ci) == ("faster", 1.5, (1.5, 1.5))
    assert faster.text == "C is 50 % faster than A (every round gave the same ratio)"


# --- expect = "same" ------------------------------------------------------------------------------------------------


def test_an_effect_where_none_is_expected_is_unreliable() -> None:
    why = "the kernel ignores no_wdelay on v3/v4"
    logs = [0.2 + 0.05 * k for k in (0.5, -1.5, 1.5, -0.5)]
    (verdict,) = judge([paired(logs, expect_same=True, why_same=why)])
    assert verdict.kind == "unreliable" and not verdict.effect and verdict.settled
    assert verdict.text == (
        "B should measure the same as A (the kernel ignores no_wdelay on v3/v4) but came out 22 % faster "
        "(95 % CI 10 % to 35 % faster): the measurement is not reliable on these hosts, so no effect is shown for it"
    )
    assert judge([three_rounds(0.01, 0.01, expect_same=True)])[0].kind == "same"
    assert judge([three_rounds(0.1, 0.1, expect_same=True)])[0].kind == "not settled"


# --- unpaired: Welch on log figures ---------------------------------------------------------------------------------

# Welch's t-test, Example 1 of the Wikipedia article "Welch's t-test": t = -2.455356, df = 24.988529, p = 0.021378
WELCH_A = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
WELCH_B = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]


@pytest.mark.parametrize("higher_is_better", [True, False])
def test_unpaired_is_welch_on_log_figures(higher_is_better: bool) -> None:
    baseline = {i: math.exp(x) for i, x in enumerate(WELCH_A)}
    other = {i + 100: math.exp(x) for i, x in enumerate(WELCH_B)}  # no shared rounds: pairing plays no part
    question = Question(("two sessions",), baseline, other, higher_is_better, ("before", "after"), paired=False)
    (verdict,) = judge([question])
    assert verdict.p_value == pytest.approx(0.021378, abs=1e-6) and verdict.n == 15
    difference = statistics.fmean(WELCH_B) - statistics.fmean(WELCH_A)  # 22.986667 - 20.82 = 2.166667
    assert verdict.ratio == pytest.approx(math.exp(difference if higher_is_better else -difference), rel=1e-9)
    assert verdict.kind == ("faster" if higher_is_better else "slower")


# --- symmetry and agreement (properties) ----------------------------------------------------------------------------

figure = st.floats(min_value=0.5, max_value=2000, allow_nan=False)
rounds = st.lists(st.tuples(figure, figure), min_size=2, max_size=8)


@settings(deadline=None)  # the first verdict of 5-8 rounds draws its boundary (about a second)
@given(rounds, st.booleans(), st.booleans())
def test_swapping_baseline_and_configuration_mirrors_the_verdict(
    pairs: list[tuple[float, float]], higher_is_better: bool, is_paired: bool
) -> None:
    a = {i: x for i, (x, _) in enumerate(pairs)}
    b = {i: y for i, (_, y) in enumerate(pairs)}
    forward = judge([Question(("f",), a, b, higher_is_better, ("A", "B"), paired=is_paired)])[0]
    backward = judge([Question(("f",), b, a, higher_is_better, ("B", "A"), paired=is_paired)])[0]
    mirror = {"faster": "slower", "slower": "faster", "same": "same", "not settled": "not settled"}
    assert backward.kind == mirror[forward.kind]
    assert forward.ratio is not None and backward.ratio is not None
    assert forward.ci is not None and backward.ci is not None
    assert backward.ratio == pytest.approx(1 / forward.ratio, rel=1e-9)
    assert backward.ci == pytest.approx((1 / forward.ci[1], 1 / forward.ci[0]), rel=1e-9)
    assert backward.p_value == pytest.approx(forward.p_value, rel=1e-9, abs=1e-300)
    # a lower-is-better figure is the reciprocal of a higher-is-better one: same verdict
    flipped = judge(
        [
            Question(
                ("f",),
                {i: 1 / v for i, v in a.items()},
                {i: 1 / v for i, v in b.items()},
                not higher_is_better,
                ("A", "B"),
                paired=is_paired,
            )
        ]
    )[0]
    assert flipped.kind == forward.kind and flipped.ratio == pytest.approx(forward.ratio, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(rounds, min_size=1, max_size=6), st.floats(min_value=0, max_value=20))
def test_the_interval_and_the_verdict_always_agree(family: list[list[tuple[float, float]]], margin: float) -> None:
    questions = [
        Question(
            (str(k),),
            {i: x for i, (x, _) in enumerate(p)},
            {i: y for i, (_, y) in enumerate(p)},
            True,
            ("A", "B"),
            margin_percent=margin,
        )
        for k, p in enumerate(family)
    ]
    verdicts = judge(questions)
    m = len(questions)
    for verdict in verdicts:
        assert verdict.family == m and verdict.ci is not None and verdict.ratio is not None
        assert verdict.p_value is not None
        assert verdict.ci[0] <= verdict.ratio <= verdict.ci[1]
        if verdict.ci[0] != verdict.ci[1]:  # at a tie the CI is a point: the verdict stands on p alone
            assert verdict.effect == excludes_one(verdict)
        if verdict.kind == "same":
            assert 1 / (1 + margin / 100) <= verdict.ci[0] and verdict.ci[1] <= 1 + margin / 100
        # Holm lies between Bonferroni and no correction at all
        if verdict.p_value <= 0.05 / m:
            assert verdict.effect
        if verdict.p_value > 0.05:
            assert not verdict.effect
        assert (verdict.kind == "not settled") == (verdict.settle is not None)


# --- simulated sessions -----------------------------------------------------------------------------------------------


def simulated_session(rng: random.Random, effects: Sequence[float], rounds: int) -> list[Verdict]:
    """One session: each round's host speed drifts (+-30 % a round, a random walk) and every figure has its own
    10-20 % noise; `effects` are the configurations' true speed factors against the baseline."""
    noise = rng.uniform(0.10, 0.20)
    host = 100.0
    baseline: dict[int, float] = {}
    others: list[dict[int, float]] = [{} for _ in effects]
    for number in range(1, rounds + 1):
        host *= math.exp(rng.gauss(0, 0.3))
        baseline[number] = host * max(0.05, 1 + rng.gauss(0, noise))
        for other, effect in zip(others, effects, strict=True):
            other[number] = host * effect * max(0.05, 1 + rng.gauss(0, noise))
    return judge([Question((str(k),), baseline, other, True, ("A", str(k))) for k, other in enumerate(others)])


def test_a_a_sessions_with_drift_rarely_call_an_effect() -> None:
    rng = random.Random(20261123)
    sessions = 400
    families = [simulated_session(rng, [1.0] * 6, rounds=8) for _ in range(sessions)]
    wrong = sum(any(v.effect for v in family) for family in families)
    # Holm keeps the chance of any false effect in a family at or below 5 %; binomial slack for 400 families
    assert wrong / sessions <= 0.075
    # uncorrected, the same families would show a false effect far more often (six tests at 5 % each)
    uncorrected = sum(any(v.p_value is not None and v.p_value < 0.05 for v in family) for family in families)
    assert uncorrected / sessions >= 0.15


def test_a_real_2x_effect_under_the_same_noise_is_found() -> None:
    rng = random.Random(7)
    sessions = 200
    found = 0
    for _ in range(sessions):
        verdicts = simulated_session(rng, [2.0, 1.0, 1.0, 1.0, 1.0, 1.0], rounds=8)
        found += verdicts[0].kind == "faster"
    assert found / sessions >= 0.95


# --- texts and ratios -------------------------------------------------------------------------------------------------


def test_format_change() -> None:
    cases = [
        (1.23, "23 % faster"),
        (0.8, "20 % slower"),
        (4.1, "4.1x faster"),
        (1.0, "no change"),
        (0.25, "4.0x slower"),
        (1.044, "4.4 % faster"),
        (0.9995, "<0.1 % slower"),
        (12.4, "12x faster"),
        (1e6, ">1000x faster"),
        (0.0, ">1000x slower"),
        (math.inf, ">1000x faster"),
    ]
    assert [format_change(ratio) for ratio, _ in cases] == [text for _, text in cases]
    with pytest.raises(ValueError, match="speed ratio"):
        format_change(-1.0)


def test_speed_ratios() -> None:
    assert speed_ratios({1: 100.0, 2: 50.0, 3: 10.0}, {2: 100.0, 3: 5.0, 4: 1.0}, True) == {2: 2.0, 3: 0.5}
    assert speed_ratios({1: 10.0, 2: 4.0}, {1: 5.0, 2: 8.0}, False) == {1: 2.0, 2: 0.5}  # seconds: half the time
    with pytest.raises(ValueError, match=r"other: round 2: the figure 0.0 is not a positive number"):
        speed_ratios({1: 1.0}, {2: 0.0}, True)


def test_bad_questions_name_the_comparison() -> None:
    bad = Question(
        ("quick-check", "seq-read", "async"), {1: 1.0, 2: math.nan}, {1: 1.0, 2: 2.0}, True, ("baseline", "async")
    )
    with pytest.raises(ValueError, match=r"quick-check / seq-read / async: baseline: round 2"):
        judge([bad])
    with pytest.raises(ValueError, match="margin"):
        judge([three_rounds(0.1, 0.1, margin_percent=-1)])
    with pytest.raises(ValueError, match="alpha"):
        judge([], alpha=1.5)
    assert judge([]) == []
