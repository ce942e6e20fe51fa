"""Which runs a recipe's later rounds leave out. A comparison settled at a look its boundary covers (a round from
rounds.min on, statistics/sequential.py) is final there, as if the recipe had stopped on it: measuring it again
spends the hosts' time on a verdict already given. Pure: the engine (recipe_rounds.py) and
tools/bench/verdict_simulation.py ask it after every counted round, with that round's judgement.

The rule, per workload: a configuration's run is left out when every comparison it takes part in on that workload
(against the baseline; in a recipe run from several clients, also a step of its series) is settled; the baseline's
run, which every comparison on the workload takes part in, only when all of them are. A configuration with no run
left is not visited at all: no export or mount change, which is where a visit's time goes. Before rounds.min
nothing is left out: a verdict there is not at one of the boundary's looks; nor before the rounds the carry-over
check needs (statistics/serial.py): a comparison that left the rounds sooner would escape it, and with it false
positives of visits that leak into each other (10 % against 15 % among 6 comparisons, simulated). A later
judgement may un-settle a comparison (Holm's levels move as the others' p-values do): its runs are measured again
from the next round. The verdicts at the stop are judge() over every figure measured, so the stored session gives
the same ones.
"""

from __future__ import annotations

from collections.abc import Iterator

from nfstune.recipes.plan import RecipePlan, Visit
from nfstune.session.rounds import Judgement, Run
from nfstune.statistics.serial import MIN_ROUNDS as CHECKED_FROM

SEPARATOR = " · "  # as the Run page names a run: "async · sync-4k"


def runs_to_skip(judged: Judgement, item: RecipePlan, rounds_done: int) -> frozenset[Run]:
    """The runs (workload, configuration) the rounds after `rounds_done` leave out, by `judged`, that round's
    judgement (RecipeFigures.judge()). A comparison without a verdict yet (a run whose figures cannot enter a ratio
    so far) is open: its runs, the baseline's with them, go on."""
    if rounds_done < max(item.rounds.min, CHECKED_FROM):
        return frozenset()
    verdicts = {v.key: v for v in judged.verdicts}
    if any(not v.settled for key, v in verdicts.items() if key not in judged.compared):
        return frozenset()  # an open comparison whose runs are not known: every run goes on
    settled: dict[Run, bool] = {}  # run -> every comparison it takes part in is settled
    for key, (workload, against, label) in judged.compared.items():
        verdict = verdicts.get(key)
        done = verdict is not None and verdict.settled
        for run in ((workload, against), (workload, label)):
            settled[run] = settled.get(run, True) and done
    return frozenset(run for run, done in settled.items() if done)


def visits_left(item: RecipePlan, round_number: int, skipped: frozenset[Run]) -> Iterator[Visit]:
    """The visits of round `round_number` in their order, each measuring only the workloads not `skipped`; a visit
    with none left is not made."""
    for visit in item.visits:
        if visit.round != round_number:
            continue
        kept = [w for w in visit.workloads if (w, visit.label) not in skipped]
        if kept:
            yield visit.only(kept)


def skip_news(before: frozenset[Run], after: frozenset[Run], rounds_done: int, item: RecipePlan) -> list[str]:
    """What the log says after round `rounds_done`: each comparison whose run leaves the rounds, once; the
    configurations no longer visited; a run measured again. The baseline's runs go unsaid: they leave with the last
    comparison of their workload."""
    labels = [c.label for c in item.configs]
    baseline = item.recipe.baseline if item.recipe.baseline in labels else labels[0]
    lines = [
        f"{label}{SEPARATOR}{workload} settled after round {rounds_done}: no longer measured"
        for workload, label in sorted(after - before, key=lambda run: (labels.index(run[1]), run[0]))
        if label != baseline
    ]
    gone = [
        label
        for label in labels
        if (runs := {(w, label) for v in item.visits if v.label == label and not v.warmup for w in v.workloads})
        and runs <= after
        and not runs <= before
    ]
    if gone:
        lines.append(f"{', '.join(gone)}: nothing left to measure after round {rounds_done}: no longer visited")
    lines += [
        f"{label}{SEPARATOR}{workload}: not settled any more after round {rounds_done} (its corrected level moved "
        "with the other comparisons): measured again"
        for workload, label in sorted(before - after, key=lambda run: (labels.index(run[1]), run[0]))
    ]
    return lines
