"""One family rule for the stop rule and for every view (issue 38): a session of two recipes, run round by round
through the stop rule as the engine runs it, then stored through the real store and read back as the report reads
it. Every comparison's verdict at the stop is the report's, field by field.

Until issue 38 the stop rule judged each recipe as its own family while the report judged the whole session as
one: sync-vs-async stopped because "every comparison is settled", and the report then called its 3 % gain on
small-files "not settled" (in a family of 8, not of 2)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from nfstune import paths
from nfstune.bench.figure import figure
from nfstune.bench.workloads import MIB, WorkloadSizes
from nfstune.recipes import Recipe, load_recipes
from nfstune.recipes.plan import Plan, build_plan
from nfstune.recipes.plan_text import plan_json
from nfstune.results.summary import summarize_session
from nfstune.results.summary_text import results_text
from nfstune.session.rounds import RecipeFigures, stop_reason
from nfstune.statistics.verdict import Verdict, judge
from nfstune.store import Results, open_store
from tests.unit.test_summary import _repeat

SIZES = WorkloadSizes(seq_file_bytes=8 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=40)
# what each configuration measures against its recipe's baseline (a time: lower is faster; MB/s: higher is)
EFFECTS = {
    "sync-vs-async": {"small-files": {"sync": 10.0, "async": 9.7}, "seq-write": {"sync": 50.0, "async": 50.0}},
    "nfs-versions": {
        "small-files": {"vers=4.2": 10.0, "vers=3": 10.0, "vers=4.0": 10.1, "vers=4.1": 10.0},
        "seq-read": {"vers=4.2": 80.0, "vers=3": 80.0, "vers=4.0": 79.5, "vers=4.1": 80.0},
    },
}
NOISE = 0.02  # each round's figure within about 2 % of the configuration's own


@pytest.fixture(scope="module")
def shipped() -> dict[str, Recipe]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in recipes}


def two_recipe_plan(shipped: dict[str, Recipe]) -> Plan:
    return build_plan(
        [shipped["sync-vs-async"], shipped["nfs-versions"]],
        {},
        scale="small",
        seed=7,
        sizes=SIZES,
        fio_available=True,
        share="/export",
        server_address="nas",
        scratch_name=".nfstune-1",
    )


def record(workload: str, value: float) -> dict[str, float | int | str]:
    return _repeat(workload, value)


def run_session(plan: Plan, results: Results) -> tuple[int, dict[tuple[str, ...], Verdict], dict[str, str]]:
    """Each recipe round by round until the stop rule stops it, each repeat stored as the engine stores it; the
    verdicts the stop rule judged when it stopped, and why it stopped."""
    rng = random.Random(38)
    sid = results.start_session(
        server_host=results.upsert_host("root@nas:22", "nas", None),
        client_host=results.upsert_host("root@client:22", "client", None),
        share="/export",
        scale="small",
        recipes=[item.recipe.id for item in plan.recipes],
        plan=plan_json(plan),
    )
    at_stop: dict[tuple[str, ...], Verdict] = {}
    why_stopped: dict[str, str] = {}
    for item in plan.recipes:
        effects = EFFECTS[item.recipe.id]
        figures = RecipeFigures(item)
        run_ids = {}
        for workload, by_label in effects.items():
            for label in by_label:
                config = item.recipe.config(label)
                run_id = results.start_run(
                    sid, recipe=item.recipe.id, config_label=label, config={"expect": config.expect}, workload=workload
                )
                # each version negotiated as asked: no two configurations ran with the same settings in force
                vers = label.removeprefix("vers=") if label.startswith("vers=") else "4.2"
                results.set_run_options(
                    run_id,
                    requested=config.mount.render() or None,
                    negotiated=f"rw,vers={vers},rsize=1048576,wsize=1048576,hard,proto=tcp",
                    export=",".join(config.export.set) or None,
                )
                results.add_repeat(run_id, 0, warmup=True, values=record(workload, by_label[label] * 3))
                run_ids[(workload, label)] = run_id
        for number in range(1, item.rounds.max + 1):
            for (workload, label), run_id in run_ids.items():
                values = record(workload, effects[workload][label] * (1 + rng.uniform(-NOISE, NOISE)))
                results.add_repeat(run_id, number, warmup=False, values=values)
                figures.add(workload, label, number, figure(workload, values), 1.0)
            why = stop_reason(figures, number, 60.0 * number, [60.0] * number)
            if why is not None:
                why_stopped[item.recipe.id] = why
                at_stop.update({v.key: v for v in judge(figures.questions())})
                break
        for run_id in run_ids.values():
            results.end_run(run_id, "completed")
    results.end_session(sid, "completed")
    return sid, at_stop, why_stopped


def test_the_verdicts_at_the_stop_are_the_reports(tmp_path: Path, shipped: dict[str, Recipe]) -> None:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid, at_stop, why_stopped = run_session(two_recipe_plan(shipped), results)
    assert why_stopped["sync-vs-async"].startswith("every comparison is settled")
    assert at_stop[("sync-vs-async", "small-files", "async")].kind == "faster"
    groups = summarize_session(results.session(sid), shipped)
    shown = {c.verdict.key: c.verdict for g in groups for c in g.configs if c.verdict is not None}
    assert set(shown) == set(at_stop) and len(shown) == 2 + 3 * 2
    assert shown[("sync-vs-async", "small-files", "async")].kind == "faster"
    for key, verdict in at_stop.items():
        assert shown[key] == verdict, key
    # the report says how it judged, in the stop rule's terms
    assert "a recipe is a family" in results_text(results.session(sid), shipped)
