"""A run's events as the engine reports them, scripted from the quick-check session of tests/unit/verdict_session.py:
the recipe (recipe_rounds.recipe_event), each visit of its plan as it starts, its repeats with the stored figures,
and after each round the verdicts RecipeFigures judges on them (recipe_rounds.verdicts_event); as the engine does,
the runs whose comparisons are settled (session/skipping.py) leave the later rounds. What the Run page's tests and
screenshots are fed; the engine's own order is tested in tests/unit/test_run_events.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from nfstune.bench.figure import figure
from nfstune.recipes.model import WORKLOADS
from nfstune.session.admin import Event
from nfstune.session.recipe_rounds import recipe_event, verdicts_event
from nfstune.session.rounds import RecipeFigures, Run, stop_reason
from nfstune.session.skipping import runs_to_skip, skip_news, visits_left
from nfstune.store import Results, open_store
from tests.unit.test_round_verdicts import rounds_of, the_plan
from tests.unit.verdict_session import store_verdict_session

# a second recipe's "recipe" event, as the engine sends it: a grid of its own after quick-check's
NFS_VERSIONS = {
    "recipe": "nfs-versions",
    "title": "NFS versions",
    "configs": ["vers=4.2", "vers=3"],
    "baseline": "vers=4.2",
    "workloads": ["seq-read"],
    "config_workloads": {"vers=4.2": ["seq-read"], "vers=3": ["seq-read"]},
    "rounds_min": 2,
    "rounds_max": 4,
    "warmup": False,
}


def scripted_events(store: Path, rounds: int, *, running: bool = True) -> Iterator[Event]:
    """The events up to the end of round `rounds` (at most the stored session's 6); with `running`, the first visit
    of the next round started."""
    results = Results(open_store(store))
    sid = store_verdict_session(results)
    item = the_plan()
    figures = RecipeFigures(item)
    figures.runs = {(r.workload, r.config_label): r for r in results.stored_session(sid).runs}
    stored = {(w, label, number): v for number, found in rounds_of(results, sid).items() for w, label, v in found}
    for run in results.session(sid)["runs"]:  # the warm-up's figures (round 0)
        warm = next(r for r in run["repeats"] if r["warmup"])
        stored[(run["workload"], run["config_label"], 0)] = figure(run["workload"], warm)
    yield recipe_event(item)
    skipped: frozenset[Run] = frozenset()
    for number in range(rounds + (2 if running else 1)):
        for visit in visits_left(item, number, skipped):
            name = "warm-up" if visit.warmup else f"round {number}"
            data: dict[str, object] = {"recipe": visit.recipe, "config": visit.label, "round": number}
            yield Event("visit", f"{visit.recipe} {name}: {visit.label}", {**data, "workloads": visit.workloads})
            if number > rounds:
                return
            for workload in visit.workloads:
                # vers=3 was stored on seq-read alone: on small-files as the baseline, give or take
                value = stored.get((workload, visit.label, number)) or stored[(workload, "baseline", number)] * 1.01
                figures.add(workload, visit.label, number, value)
                unit = WORKLOADS[workload].unit
                yield Event(
                    "repeat",
                    f"{visit.recipe} {visit.label} {workload} {name}: {value:.3g} {unit}",
                    {**data, "value": value, "warmup": visit.warmup, "workload": workload, "unit": unit},
                )
        if number > 0:
            judged = figures.judge()
            why = stop_reason(figures, number, 60.0 * number, [60.0] * number, judged)
            before = skipped
            skipped = runs_to_skip(judged, item, number) if why is None else skipped
            yield verdicts_event(item, number, judged, why, skipped)
            for line in skip_news(before, skipped, number, item):
                yield Event("log", f"{item.recipe.id}: {line}")
