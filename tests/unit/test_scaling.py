"""Where adding a client stops adding throughput, judged by the verdict rules of the rest of nfstune."""

from __future__ import annotations

import pytest

from nfstune.bench.scaling import Scaling, fairness, read_scaling, scaling_questions
from nfstune.statistics.verdict import judge

# a round's wobble shared by every count (drift that pairing cancels), and a small one of each count's own
DRIFT = [1.00, 0.93, 1.06, 0.97, 1.04, 0.95, 1.02, 0.99]
OWN = [1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99]


def rounds(level: float, n: int = 8, shift: int = 0) -> dict[int, float]:
    return {r + 1: level * DRIFT[r] * OWN[(r + shift) % len(OWN)] for r in range(n)}


def scaling_of(aggregate: dict[int, dict[int, float]]) -> Scaling:
    questions = scaling_questions("seq-write", aggregate, higher_is_better=True)
    verdicts = {v.key: v for v in judge(questions)}
    medians = {k: sorted(v.values())[len(v) // 2] for k, v in aggregate.items()}
    return read_scaling("seq-write", list(aggregate), verdicts, "MB/s", medians)


def test_a_nas_that_keeps_growing_has_room_for_more() -> None:
    result = scaling_of({1: rounds(10), 2: rounds(19, shift=1), 3: rounds(27, shift=2)})
    assert (result.kind, result.clients) == ("grows", 3)
    assert "still growing at 3 clients" in result.text


def test_the_knee_is_the_count_after_which_a_client_adds_nothing() -> None:
    result = scaling_of({1: rounds(10), 2: rounds(19, shift=1), 3: rounds(19.1, shift=2)})
    assert (result.kind, result.clients) == ("knee", 2)
    assert "a third client added nothing that matters" in result.text


def test_a_noisy_step_is_not_settled_and_says_what_would_settle_it() -> None:
    noisy = {1: {1: 10.0, 2: 10.0}, 2: {1: 20.0, 2: 11.0}, 3: {1: 30.0, 2: 12.0}}
    result = scaling_of(noisy)
    assert (result.kind, result.clients) == ("not settled", 1)
    assert result.settle


def test_counts_must_follow_each_other() -> None:
    with pytest.raises(ValueError, match="1 then 3"):
        scaling_questions("seq-write", {1: rounds(10), 3: rounds(20)}, higher_is_better=True)


def test_fairness_is_the_slowest_over_the_fastest_per_round() -> None:
    per_round = {1: {"client": 10.0, "client2": 5.0}, 2: {"client": 8.0, "client2": 8.0}, 3: {"client": 9.0}}
    assert fairness(per_round) == (0.75, 0.5, 1.0)
    assert fairness({1: {"client": 10.0}}) is None
