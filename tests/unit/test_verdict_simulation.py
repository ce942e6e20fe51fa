"""tools/bench/verdict_simulation.py drives the real stop rule and verdicts: on a few hundred sessions, a 3x effect
at 1 % noise is found in the right direction in every one, never with the opposite sign, and A/A data show the
present rule's looks (it stops more often on noise than five fixed rounds judged once, at most as often as every
look would if each were a fresh 5 % test)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from nfstune.statistics import stats

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "bench" / "verdict_simulation.py"


@pytest.fixture(scope="module")
def sim() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verdict_simulation", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_a_3x_effect_at_1_percent_noise_is_found_faster_every_time(sim: ModuleType) -> None:
    cell = sim.Cell("fx+3x", comparisons=1, cap=6, noise=0.01, effect=3.0, block="effects")
    found = sim.simulate(cell, 0, 200, 7, ["present", "fixed-5"])
    present, fixed = found["present"], found["fixed-5"]
    assert present.sessions == fixed.sessions == 200
    assert present.right == fixed.right == 200
    assert present.opposite == fixed.opposite == 0
    assert set(present.rounds) == {3}  # settled at the minimum: the stop rule looked, and stopped
    assert set(fixed.rounds) == {5}


def test_a_3x_slowdown_among_nine_comparisons_keeps_its_sign(sim: ModuleType) -> None:
    cell = sim.Cell("fx-3x", comparisons=9, cap=6, noise=0.05, effect=1 / 3, block="effects")
    found = sim.simulate(cell, 0, 40, 7, ["present"])["present"]
    assert found.right == 40 and found.opposite == 0 and found.same == 0


def test_a_a_data_never_give_an_opposite_sign_and_show_the_cost_of_looking(sim: ModuleType) -> None:
    cell = sim.Cell("aa", comparisons=1, cap=10, noise=0.10)
    found = sim.simulate(cell, 0, 400, 11, ["present", "fixed-5"])
    present, fixed = found["present"], found["fixed-5"]
    assert present.opposite == present.right == 0
    # five rounds judged once: about 5 % (0-12 % leaves room for 400 sessions' chance)
    assert fixed.false_positive <= 0.12 * 400
    # looking after rounds 3 to 10: more false positives than one look, fewer than 8 independent 5 % looks
    assert fixed.false_positive < present.false_positive < 0.34 * 400
    assert max(present.rounds) == 10  # the budget's cap, through stop_reason's budget check


def test_the_sequential_rule_pays_for_the_looks_that_the_present_rule_does_not(sim: ModuleType) -> None:
    cell = sim.Cell("aa", comparisons=1, cap=10, noise=0.10)
    found = sim.simulate(cell, 0, 300, 11, ["present", "sequential"])
    present, sequential = found["present"], found["sequential"]
    assert sequential.opposite == sequential.right == 0
    assert sequential.false_positive < 0.09 * 300 < present.false_positive
    # the old rule is the same questions judged without their looks; the engine's own asks with them
    s = sim.setup(1, 10)
    once, looked = sim.JudgedOnce(s.item), sim.RULES["sequential"].figures(s.item)
    for number in (1, 2, 3):
        for label in s.labels:
            once.add(s.workloads[0], label, number, 1.0 + number / 10)
            looked.add(s.workloads[0], label, number, 1.0 + number / 10)
    assert [q.looks for q in once.questions()] == [None]
    assert [q.looks for q in looked.questions()] == [(3, 10)]  # the last look: the last round the budget holds


def test_the_same_seed_gives_the_same_sessions_and_rules_see_the_same_data(sim: ModuleType) -> None:
    cell = sim.Cell("aa", comparisons=2, cap=6, noise=0.15)
    first = sim.simulate(cell, 0, 30, 3, ["present"])["present"]
    again = sim.simulate(cell, 0, 30, 3, ["present"])["present"]
    assert (first.false_positive, first.rounds) == (again.false_positive, again.rounds)
    halves = sim.simulate(cell, 0, 15, 3, ["present"])["present"]
    halves.merge(sim.simulate(cell, 15, 15, 3, ["present"])["present"])
    assert halves.rounds == first.rounds
    # a rule that always stops at 5 is the fixed design
    assert sim.RULES["fixed-5"].stop(None, 5, 0.0, []) is not None
    assert sim.RULES["fixed-5"].stop(None, 4, 0.0, []) is None


def test_the_cached_t_quantiles_change_no_verdict(sim: ModuleType) -> None:
    cell = sim.Cell("aa", comparisons=4, cap=6, noise=0.08)
    s = sim.setup(4, 6)
    data = [sim.session_data(cell, s, sim.np.random.default_rng([1, k]), s.item.rounds.max) for k in range(15)]
    plain = [sim.run_session(s, d, sim.RULES["present"]) for d in data]
    with sim.cached_t_quantiles():
        cached = [sim.run_session(s, d, sim.RULES["present"]) for d in data]
    assert cached == plain
    assert sim.verdict_module.t_quantile is stats.t_quantile  # put back


def test_the_skipping_rule_stops_adding_a_settled_comparisons_figures(sim: ModuleType) -> None:
    # a 3x effect among 6 comparisons, the others A/A in 5 % noise: the effect settles within a look or two, the
    # others go on to the last round; under the engine's skipping its runs leave the rounds once it is settled, so
    # its verdict rests on the rounds up to then
    cell = sim.Cell("fx+3x-m6-skip", comparisons=6, cap=6, noise=0.05, effect=3.0, block="effects")
    s = sim.setup(6, 6)
    effect_key = (s.item.recipe.id, *sim.EFFECT_KEY)
    for k in range(10):
        data = sim.session_data(cell, s, sim.np.random.default_rng([5, k]), s.item.rounds.max)
        rounds, seconds, verdicts = sim.run_session(s, data, sim.RULES["skipping"])
        full_rounds, full_seconds, full = sim.run_session(s, data, sim.RULES["sequential"])
        (effect,) = [v for v in verdicts if v.key == effect_key]
        assert effect.kind == "faster" and effect.n < rounds == full_rounds
        (unskipped,) = [v for v in full if v.key == effect_key]
        assert unskipped.n == full_rounds
        assert seconds < full_seconds  # its visits' runs were not made
    found = sim.simulate(cell, 0, 40, 7, ["sequential", "skipping"])
    assert found["skipping"].right == found["sequential"].right == 40
    assert found["skipping"].seconds < found["sequential"].seconds
