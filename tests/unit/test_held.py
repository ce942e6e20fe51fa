"""The check's decision (results/held.py) on figures drawn as a session and a check would measure them: at the
predicted gain it says held, at no gain did not hold, from too few rounds not settled; and the ceilings that moved
are named (results/ceiling_change.py)."""

from __future__ import annotations

import random

from nfstune.results.ceiling_change import ceiling_changes
from nfstune.results.ceilings import Ceilings
from nfstune.results.held import Then, decide, rounds_for

GAIN = 1.5
NOISE = 0.05  # a round's spread on a quiet link, as a fraction of its figure


def draw(level: float, n: int, seed: int, noise: float = NOISE) -> list[float]:
    rng = random.Random(seed)
    return [level * rng.lognormvariate(0.0, noise) for _ in range(n)]


def then_of(workload: str = "seq-write", higher: bool = True, seed: int = 1, verdict: str = "faster") -> Then:
    """A session whose recommended configuration measured GAIN times faster than its baseline in 6 rounds."""
    level = 100.0
    base = level / GAIN if higher else level * GAIN
    return Then(
        "quick-check",
        workload,
        "vers=4.2",
        "as-is",
        "MB/s" if higher else "ms",
        higher,
        dict(enumerate(draw(level, 6, seed), 1)),
        dict(enumerate(draw(base, 6, seed + 100), 1)),
        verdict,
        GAIN,
    )


def test_figures_at_the_predicted_gain_hold() -> None:
    then = then_of()
    rounds = rounds_for(then, budget_rounds=8, family=1)
    assert rounds is not None and rounds <= 8
    outcome = decide([then], {"seq-write": draw(100.0, rounds, 7)})
    assert outcome.word == "held"
    (held,) = outcome.workloads
    assert held.ci is not None and held.midpoint is not None and held.ci[0] > held.midpoint
    assert "unpaired" in held.text and "two times" in held.text


def test_figures_at_no_gain_did_not_hold_and_are_slower() -> None:
    then = then_of()
    rounds = rounds_for(then, budget_rounds=8, family=1)
    assert rounds is not None
    outcome = decide([then], {"seq-write": draw(100.0 / GAIN, rounds, 8)})
    assert outcome.word == "did not hold"
    assert outcome.slower  # at the baseline's level: the Undo is offered


def test_a_latency_workload_is_decided_the_right_way_round() -> None:
    then = then_of("sync-4k", higher=False)
    assert decide([then], {"sync-4k": draw(100.0, 6, 9)}).word == "held"  # as fast (in ms) as then
    assert decide([then], {"sync-4k": draw(100.0 * GAIN, 6, 10)}).word == "did not hold"


def test_a_tiny_budget_is_not_settled_and_says_what_would_settle_it() -> None:
    then = then_of()
    # two noisy figures halfway between the levels
    outcome = decide([then], {"seq-write": draw(100.0 / GAIN**0.5, 2, 11, noise=0.3)})
    assert outcome.word == "not settled"
    (held,) = outcome.workloads
    assert "would settle it" in held.text or "would not settle it" in held.text


def test_a_gain_that_was_not_an_effect_has_nothing_to_check() -> None:
    outcome = decide([then_of(verdict="not settled")], {"seq-write": draw(100.0, 6, 12)})
    assert outcome.word == "nothing to check"
    assert outcome.family == 0


def test_several_workloads_are_one_family() -> None:
    thens = [then_of("seq-write", seed=1), then_of("seq-read", seed=2)]
    outcome = decide(thens, {"seq-write": draw(100.0, 6, 13), "seq-read": draw(100.0 / GAIN, 6, 14)})
    assert outcome.family == 2
    assert outcome.word == "did not hold"  # one that did not hold heads the check
    assert [h.word for h in outcome.workloads] == ["held", "did not hold"]
    assert "corrected for 2 workloads" in outcome.workloads[0].text


def test_a_noisy_session_needs_more_rounds_than_a_quiet_one() -> None:
    quiet = then_of()
    noisy = Then(**{**quiet.__dict__, "recommended": dict(enumerate(draw(100.0, 6, 3, noise=0.25), 1))})
    assert (rounds_for(quiet, 30, 1) or 99) < (rounds_for(noisy, 30, 1) or 99)


def test_a_slower_network_is_named() -> None:
    then = Ceilings(network_to_server=110.0, network_from_server=112.0, disk_write=300.0, round_trip_ms=0.4)
    now = Ceilings(network_to_server=66.0, network_from_server=111.0, disk_write=290.0, round_trip_ms=0.45)
    (change,) = ceiling_changes(then, now, 12)
    assert change.name == "the network (client → server)"
    assert "40 % slower than in session 12" in change.text
    assert "says more about the network than about the settings" in change.text


def test_ceilings_within_their_noise_are_not_named() -> None:
    then = Ceilings(network_to_server=110.0, disk_read=200.0)
    assert ceiling_changes(then, Ceilings(network_to_server=104.0, disk_read=215.0), 3) == ()
