"""A settled comparison leaves the rounds, through the engine (issue 40, item 4): a recipe's rounds through the
engine's RecipeRounds and VisitExecutor on recording hosts (recording_hosts.py) and a real store, each workload
through the engine's WorkloadRunner with only the tool's measurement given. A configuration whose comparisons are
settled at the first look is not visited again (no read-ahead change, no mount), the baseline's run of a workload
with nothing left to compare stops with it, the log says so once, and the stored session, judged as every view
judges it, gives the verdicts the engine stopped with."""

from __future__ import annotations

from pathlib import Path

from nfstune.advice.outcome import session_outcome
from nfstune.recipes.plan import Plan
from nfstune.recipes.plan_text import plan_json
from nfstune.results.verdict_rows import margins_of, verdict_rows
from nfstune.session.load_clients import LoadHost, SessionLoad
from nfstune.session.progress import SessionProgress
from nfstune.session.recipe_rounds import RecipeRounds
from nfstune.session.rounds import Eta
from nfstune.session.visit import VisitExecutor
from tests.unit.test_plan_is_what_runs import ADDRESS, ADDRESSES, SHARE, SIZES, Hosts, plan_of_text
from tests.unit.test_run_events import GivenFigures
from tests.unit.test_run_events import MeasuredRunner as EventsRunner

RECIPE = """id = "settles"
title = "Read-ahead on the client"
summary = "s"
why = "w"
changes_host = "client"
workloads = ["seq-read", "sync-4k"]
baseline = "baseline"
[rounds]
min = 3
max = 6
warmup = 1
[[configs]]
label = "baseline"
[[configs]]
label = "ra=1M"
read_ahead_kb = 1024
[[configs]]
label = "ra=3M"
read_ahead_kb = 3072
workloads = ["seq-read"]
"""
ROUNDS = range(0, 7)
# ra=1M: twice as fast on both workloads, calm; ra=3M: reads within +-40 % of the baseline's, never settled
FIGURES = {
    ("seq-read", "baseline"): {n: 100.0 for n in ROUNDS},
    ("sync-4k", "baseline"): {n: 4.0 for n in ROUNDS},
    ("seq-read", "ra=1M"): {n: 200.0 * (1 + (-1) ** n * 0.01) for n in ROUNDS},
    ("sync-4k", "ra=1M"): {n: 2.0 * (1 + (-1) ** n * 0.01) for n in ROUNDS},
    ("seq-read", "ra=3M"): {n: 100.0 * (1 + (-1) ** n * 0.4) for n in ROUNDS},
}


class MeasuredRunner(EventsRunner):
    """The engine's runner with the tool's measurement given: the figure of each run in each round."""

    def figure(self, workload: str) -> float:
        return FIGURES[(workload, self.visit.label)][self.visit.round]


def run_recipe(tmp_path: Path) -> tuple[Plan, Hosts, int]:
    plan = plan_of_text(tmp_path, "settles", RECIPE)
    hosts = Hosts(tmp_path)
    results, admin = hosts.store.results, hosts.admin
    # paired by round, as every view judges a session that stored its plan
    sid = results.start_session(
        server_host=None, client_host=None, share=SHARE, scale="small", recipes=["settles"], plan=plan_json(plan)
    )
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
    visits = VisitExecutor(
        plan,
        hosts.session,
        hosts.store,
        admin,
        appliance=None,
        progress=SessionProgress(admin),
        load=load,
        samples=samples,  # type: ignore[arg-type]
        runner=runner,
    )
    RecipeRounds(plan, SIZES, Eta(plan), visits, results, admin).run(sid, plan.recipes[0])
    return plan, hosts, sid


def test_a_settled_configuration_is_not_visited_again_and_the_stored_session_judges_the_same(
    tmp_path: Path,
) -> None:
    plan, hosts, sid = run_recipe(tmp_path)
    item = plan.recipes[0]
    assert item.rounds.max == 6
    visits = [(e.data["round"], e.data["config"], e.data["workloads"]) for e in hosts.events if e.kind == "visit"]
    # rounds 1-4 as planned (ra=1M settles on both workloads at the first look, round 3, but nothing leaves the
    # rounds before the carry-over check's 4); then ra=1M is not visited, and the baseline measures only seq-read,
    # where ra=3M is still open
    assert [v for v in visits if v[0] <= 4] == [(v.round, v.label, v.workloads) for v in item.visits if v.round <= 4]
    later = [v for v in visits if v[0] > 4]
    assert [(n, label) for n, label, _ in later] == [
        (v.round, v.label) for v in item.visits if v.round > 4 and v.label != "ra=1M"
    ]
    assert {(label, workloads) for _, label, workloads in later} == {
        ("baseline", ("seq-read",)),
        ("ra=3M", ("seq-read",)),
    }
    # ra=1M's read-ahead was set in its four visits only: the visit's changes are not made when it is skipped
    read_ahead = [s for s in hosts.sent if "read_ahead_kb" in s.text and s.text.lstrip().startswith("echo 1024")]
    assert len(read_ahead) == 4
    # the store holds no repeat of a skipped run: a skipped run adds no visit and no figure
    numbers = {
        (run["workload"], run["config_label"]): sorted(r["number"] for r in run["repeats"] if not r["warmup"])
        for run in hosts.store.results.session(sid)["runs"]
    }
    assert numbers == {
        ("seq-read", "baseline"): [1, 2, 3, 4, 5, 6],
        ("sync-4k", "baseline"): [1, 2, 3, 4],
        ("seq-read", "ra=1M"): [1, 2, 3, 4],
        ("sync-4k", "ra=1M"): [1, 2, 3, 4],
        ("seq-read", "ra=3M"): [1, 2, 3, 4, 5, 6],
    }
    logs = [e.message for e in hosts.events if e.kind == "log"]
    said = [line for line in logs if "no longer" in line]
    assert said == [
        "settles: ra=1M · seq-read settled after round 4: no longer measured",
        "settles: ra=1M · sync-4k settled after round 4: no longer measured",
        "settles: ra=1M: nothing left to measure after round 4: no longer visited",
    ]
    verdicts = [e for e in hosts.events if e.kind == "verdicts"]
    assert verdicts[-1].data["stops"] and verdicts[-1].data["why"] == "stopped at the maximum of 6 rounds"
    assert verdicts[3].data["skipped"] == [["ra=1M", "seq-read"], ["baseline", "sync-4k"], ["ra=1M", "sync-4k"]]
    # the engine's verdicts at the stop are the stored session's, as the Results page, History and the CLI judge it
    at_stop = {(r.workload, r.label): r for r in verdicts[-1].data["rows"]}  # type: ignore[attr-defined]
    recipes = {"settles": item.recipe}
    outcome = session_outcome(hosts.store.results, sid, recipes)
    shown = {(r.workload, r.label): r for r in verdict_rows(outcome.groups, margins_of(outcome.session, recipes))}
    assert set(shown) == set(at_stop) == {("seq-read", "ra=1M"), ("sync-4k", "ra=1M"), ("seq-read", "ra=3M")}
    for key, row in at_stop.items():
        theirs = shown[key]
        assert (row.kind, row.ratio, row.low, row.high, row.text) == (
            theirs.kind,
            theirs.ratio,
            theirs.low,
            theirs.high,
            theirs.text,
        )
    assert {key: row.kind for key, row in at_stop.items()} == {
        ("seq-read", "ra=1M"): "faster",
        ("sync-4k", "ra=1M"): "faster",
        ("seq-read", "ra=3M"): "not settled",
    }
