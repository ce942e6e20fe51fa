"""The events a recipe's rounds report, without the lab: a recipe's rounds through the engine's RecipeRounds and
VisitExecutor on recording hosts (recording_hosts.py) and a real store, each workload through the engine's
WorkloadRunner with only the tool's measurement given (its `_measure`, what a lab would time). In order: the recipe
with its configurations and rounds, each visit as it starts, its repeats, and after each counted round the verdicts
as the stop rule judged them (issue 39)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nfstune.bench.workloads import WorkloadSizes
from nfstune.changes.host_change import Where
from nfstune.recipes.plan import Plan
from nfstune.results.verdict_rows import VerdictRow
from nfstune.session.load_clients import LoadHost, SessionLoad
from nfstune.session.progress import SessionProgress
from nfstune.session.recipe_rounds import RecipeRounds
from nfstune.session.rounds import Eta
from nfstune.session.visit import VisitExecutor
from nfstune.session.workload_run import Repeat, WorkloadRunner
from tests.unit.test_plan_is_what_runs import ADDRESS, ADDRESSES, SHARE, SIZES, Hosts, NoSamples, plan_of_text
from tests.unit.trend_sessions import repeat

RECIPE = """id = "events"
title = "Read-ahead on the client"
summary = "s"
why = "w"
changes_host = "client"
workloads = ["seq-read", "sync-4k"]
baseline = "baseline"
[rounds]
min = 2
max = 3
warmup = 1
[[configs]]
label = "baseline"
[[configs]]
label = "ra=1M"
read_ahead_kb = 1024
workloads = ["seq-read"]
"""
# what each configuration measures in each round: ra=1M reads half again as fast, a little noise
FIGURES = {"baseline": (100.0, 101.0, 99.0, 100.5), "ra=1M": (150.0, 151.0, 149.5, 150.5)}
SYNC_MS = (4.0, 4.1, 3.9, 4.05)


class GivenFigures(NoSamples):
    """The samplers left out (they change nothing); each run's samples kept by nobody."""

    def begin(self, run_id: int) -> None:
        pass

    def end(self) -> None:
        pass


class MeasuredRunner(WorkloadRunner):
    """The engine's runner with the tool's measurement given: the figure of each configuration in each round."""

    visit: Any = None

    def run(self, visit: Any, workload: str, *args: Any) -> None:
        self.visit = visit
        super().run(visit, workload, *args)

    def _measure(self, workload: str, sizes: WorkloadSizes, where: Where, loads: Sequence[Any]) -> Repeat:
        return Repeat(repeat(workload, self.figure(workload)), 1.0)

    def figure(self, workload: str) -> float:
        """The figure of this visit's run of `workload`."""
        number, label = self.visit.round, self.visit.label
        return SYNC_MS[number] if workload == "sync-4k" else FIGURES[label][number]


def plan_of(tmp_path: Path) -> Plan:
    return plan_of_text(tmp_path, "events", RECIPE)


def test_a_recipes_events_come_in_order(tmp_path: Path) -> None:
    plan = plan_of(tmp_path)
    item = plan.recipes[0]
    hosts = Hosts(tmp_path)
    results, admin = hosts.store.results, hosts.admin
    load = SessionLoad(
        hosts.server,
        [LoadHost(hosts.client, ADDRESSES["client"], True)],  # type: ignore[arg-type]
        server_address=ADDRESS,
        share=SHARE,
        cancel=admin.cancel,
        log=admin.log,
    )
    samples = GivenFigures()
    runner = MeasuredRunner(None, load, samples, results, admin)  # type: ignore[arg-type]
    progress = SessionProgress(admin)
    visits = VisitExecutor(
        plan,
        hosts.session,
        hosts.store,
        admin,
        appliance=None,
        progress=progress,
        load=load,
        samples=samples,  # type: ignore[arg-type]
        runner=runner,
    )
    RecipeRounds(plan, SIZES, Eta(plan), visits, results, admin).run(hosts.id, item)

    events = [e for e in hosts.events if e.kind in ("recipe", "visit", "repeat", "verdicts")]
    first = events[0]
    assert first.kind == "recipe" and first.data == {
        "recipe": "events",
        "title": "Read-ahead on the client",
        "configs": ["baseline", "ra=1M"],
        "workloads": ["seq-read", "sync-4k"],
        "config_workloads": {"baseline": ["seq-read", "sync-4k"], "ra=1M": ["seq-read"]},
        "baseline": "baseline",
        "rounds_min": 2,
        "rounds_max": 3,
        "warmup": True,
    }
    # each visit: its start, then a repeat per workload it runs, of that configuration and round
    rest = events[1:]
    visit = None
    rounds_judged = []
    for event in rest:
        if event.kind == "visit":
            visit = event.data
            assert visit["recipe"] == "events"
        elif event.kind == "repeat":
            assert visit is not None
            assert (event.data["recipe"], event.data["config"], event.data["round"]) == (
                "events",
                visit["config"],
                visit["round"],
            )
            assert event.data["workload"] in visit["workloads"]  # type: ignore[operator]
            assert event.data["unit"] == ("MB/s" if event.data["workload"] == "seq-read" else "ms")
            assert event.data["warmup"] == (visit["round"] == 0)
        else:
            rounds_judged.append(event.data["round"])
            assert visit is not None and visit["round"] == event.data["round"]  # after the round's last visit
    kinds = [e.kind for e in rest]
    assert kinds[:3] == ["visit", "repeat", "repeat"]  # the warm-up: the baseline's two workloads, not judged
    assert [e.data["round"] for e in rest if e.kind == "visit"][:1] == [0]
    # a verdict after every counted round, the last one stopping the recipe
    assert rounds_judged == list(range(1, len(rounds_judged) + 1)) and len(rounds_judged) >= 2
    verdicts = [e for e in rest if e.kind == "verdicts"]
    assert [e.data["stops"] for e in verdicts] == [False] * (len(verdicts) - 1) + [True]
    assert kinds[-1] == "verdicts"
    rows = verdicts[-1].data["rows"]
    assert isinstance(rows, list) and [type(r) for r in rows] == [VerdictRow]
    (row,) = rows
    assert (row.workload, row.label, row.against, row.kind) == ("seq-read", "ra=1M", "baseline", "faster")
    assert row.ratio is not None and 1.45 < row.ratio < 1.55
    assert verdicts[-1].data["why"] == f"every comparison is settled after {rounds_judged[-1]} rounds"
    # before the first look (rounds.min) the stop rule does not stop, whatever the verdicts
    early = verdicts[0].data["rows"]
    assert isinstance(early, list) and early[0].ratio is None  # one pair: no estimate yet
