"""When a workload's files grow between rounds. A short run whose per-round ratios spread widely measures its
start-up and the hosts' jitter more than the configuration; a longer run averages more of them out, where more
rounds of the same short run only add more of the same noise. Pure: the engine asks after every counted round.

The rule (the plan states it: bench/sizing.growth_rule_text):
- from round 2 on (two ratios give a spread), for the sequential file (seq-write and seq-read share it) and for
  sync-4k's count of writes;
- when a comparison on that workload still measured (skipping.py: a settled one is not) spreads: the standard
  deviation of its per-round log ratios is above the recipe's `grow_spread` (10 % by default), and its runs are
  short: the longest run of that workload in the round took less than SHORT_RUN_S;
- then its size doubles, up to the limits of bench/sizing.growth_limits (4x the planned size, free space, RAM);
- only while `rounds.min` more rounds at the larger size still fit in the budget: a larger size that leaves no
  rounds to measure with settles nothing.
small-files keeps its tree: its figure is the time of the whole untar, which a larger tree would change. Sizes
change only between rounds, so every configuration of a round runs the same sizes and each round's ratios stay
paired; the sequential figures are rates and sync-4k's a latency per write, which a larger size does not change in
meaning.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from nfstune.bench.sizing import GROWS, GROWTH_FACTOR, SHORT_RUN_S, size_text
from nfstune.bench.workloads import WorkloadSizes
from nfstune.session.rounds import RecipeFigures, Run


@dataclass(frozen=True)
class Growth:
    sizes: WorkloadSizes
    reasons: tuple[str, ...]  # one line per size that grows, with the figures that made it


def spread(figures: RecipeFigures, workload: str, skipped: Collection[Run] = ()) -> float | None:
    """The largest standard deviation of per-round log speed ratios among the recipe's comparisons on `workload`
    (the pairs the verdicts judge) whose configuration's run is not `skipped` (a settled comparison no longer
    measured gains nothing from larger files); None with fewer than two paired rounds."""
    from nfstune.statistics.verdict import speed_ratios  # as rounds.py: scipy loads only when a recipe is judged

    found: list[float] = []
    for question in figures.questions():
        if question.key[1] != workload or (workload, question.key[-1]) in skipped:
            continue
        ratios = speed_ratios(question.baseline, question.other, question.higher_is_better)
        if len(ratios) >= 2:
            found.append(statistics.stdev(math.log(r) for r in ratios.values()))
    return max(found, default=None)


def next_sizes(
    figures: RecipeFigures,
    sizes: WorkloadSizes,
    limits: WorkloadSizes,
    rounds_done: int,
    elapsed_s: float,
    round_times: Sequence[float],
    skipped: Collection[Run] = (),
) -> Growth | None:
    """The sizes for the rounds after `rounds_done` when some grow (the module's rule), else None. `skipped`: the
    runs the next rounds leave out (skipping.runs_to_skip)."""
    rounds = figures.item.rounds
    if rounds_done < 2 or not round_times:
        return None
    threshold = math.log1p(rounds.grow_spread_percent / 100)
    grown = sizes
    reasons: list[str] = []
    extra_s = 0.0
    for name, workloads, title in GROWS:
        current, cap = getattr(sizes, name), getattr(limits, name)
        if current >= cap:
            continue
        spreads = {w: s for w in workloads if (s := spread(figures, w, skipped)) is not None}
        runs = [
            by_round[rounds_done]
            for (w, _), by_round in figures.seconds.items()
            if w in workloads and rounds_done in by_round
        ]
        widest = max(spreads, key=lambda w: spreads[w], default=None)
        if widest is None or spreads[widest] <= threshold or not runs or max(runs) >= SHORT_RUN_S:
            continue
        larger = min(current * GROWTH_FACTOR, cap)
        grown = dataclasses.replace(grown, **{name: larger})
        extra_s += sum(runs) * (larger / current - 1)
        reasons.append(
            f"{widest}: its per-round ratios spread {math.expm1(spreads[widest]) * 100:.0f} % and its runs took at "
            f"most {max(runs):.1f} s: {title} grows from {size_text(sizes, name)} to {size_text(grown, name)}"
        )
    if not reasons:
        return None
    next_round = max(round_times[-3:]) + extra_s
    if elapsed_s + rounds.min * next_round > figures.item.budget_s:
        return None
    return Growth(grown, tuple(reasons))
