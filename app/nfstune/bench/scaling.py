"""Where adding a client stops adding throughput (issue 13), with the verdict rules of the rest of nfstune.

Each step from k to k+1 clients at once is one paired question (statistics/verdict.py): the aggregate figure of every
round with k+1 clients against the same round's with k. These questions join the session's family, so that they
are corrected with every other comparison (Holm); this module only builds them and reads their verdicts:

- every step faster: the NAS still grows at the largest count tried;
- the first step that is "no difference that matters" or slower: adding clients beyond k adds nothing (the knee),
  said with the measured aggregate at k;
- a step not settled before any of those: not settled from k on, with what would settle it. A step after it is
  not read: a knee cannot be placed after a step nobody knows.

Fairness (how evenly the NAS shares) is the slowest client's rate over the fastest's, per round: a description
(its median and range), not a test.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from nfstune.statistics.verdict import Question, Verdict

ScalingKind = Literal["grows", "knee", "not settled"]


def step_key(workload: str, fewer: int, series: tuple[str, ...] = ()) -> tuple[str, ...]:
    """`series`: what else was in force (the recipe, the export's write mode...), so that the steps of two series
    of one session are two questions of its family."""
    return ("clients", *series, workload, f"{fewer}->{fewer + 1}")


def scaling_questions(
    workload: str,
    aggregate: Mapping[int, Mapping[int, float]],
    *,
    higher_is_better: bool,
    series: tuple[str, ...] = (),
    margin_percent: float = 5.0,
    looks: tuple[int, int] | None = None,
) -> list[Question]:
    """`aggregate`: client count -> {round: the aggregate figure of that round}. One question per step between
    consecutive counts that were both run. `looks`: the rounds after which the session could stop (statistics.verdict):
    the steps' rounds were measured in the same session as the comparisons its stop rule looked at."""
    counts = sorted(aggregate)
    questions = []
    for fewer, more in itertools.pairwise(counts):
        if more != fewer + 1:
            raise ValueError(f"client counts must follow each other: {fewer} then {more}")
        questions.append(
            Question(
                key=step_key(workload, fewer, series),
                baseline=aggregate[fewer],
                other=aggregate[more],
                higher_is_better=higher_is_better,
                names=(_clients(fewer), _clients(more)),
                margin_percent=margin_percent,
                looks=looks,
            )
        )
    return questions


@dataclass(frozen=True)
class Scaling:
    workload: str
    kind: ScalingKind
    clients: int  # grows: the largest count tried; knee: the count beyond which nothing is added; else: from where
    text: str
    settle: str | None = None


def read_scaling(
    workload: str,
    counts: Sequence[int],
    verdicts: Mapping[tuple[str, ...], Verdict],
    unit: str,
    medians: Mapping[int, float],
    series: tuple[str, ...] = (),
) -> Scaling:
    """The scaling of one workload from the verdicts of its steps (judged with the session's family) and the
    medians of the aggregate at each count (what the text quotes)."""
    ordered = sorted(counts)
    for fewer in ordered[:-1]:
        verdict = verdicts[step_key(workload, fewer, series)]
        if verdict.kind == "faster":
            continue
        at = f"{medians[fewer]:.3g} {unit} with {_clients(fewer)}"
        if verdict.kind in ("same", "slower", "unreliable"):
            worse = "made it slower" if verdict.kind == "slower" else "added nothing that matters"
            text = f"{workload}: the NAS served {at}; a {_nth(fewer + 1)} client {worse} ({verdict.text})"
            return Scaling(workload, "knee", fewer, text)
        text = f"{workload}: grows up to {at}; beyond that not settled ({verdict.text})"
        return Scaling(workload, "not settled", fewer, text, verdict.settle)
    top = ordered[-1]
    text = f"{workload}: still growing at {_clients(top)} ({medians[top]:.3g} {unit}): the NAS had room for more"
    return Scaling(workload, "grows", top, text)


def fairness(per_client: Mapping[int, Mapping[str, float]]) -> tuple[float, float, float] | None:
    """Median, lowest and highest over the rounds of (slowest client's rate / fastest's); None with one client."""
    ratios = [min(rates.values()) / max(rates.values()) for rates in per_client.values() if len(rates) > 1]
    if not ratios:
        return None
    return statistics.median(ratios), min(ratios), max(ratios)


def _clients(count: int) -> str:
    return f"{count} client{'' if count == 1 else 's'} at once" if count > 1 else "1 client"


def _nth(count: int) -> str:
    return {2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(count, f"{count}th")
