"""What the plan shows is what runs (issue 27): a session runs through the engine on the lab's real hosts, each
recording what it is sent, and every change it made, in order, is the plan's step of that place; nothing ran that
the plan did not show. One session a change kind: the export, the mount and its folder, read-ahead, nfsd threads,
a scratch filesystem, the scratch directory, fio's server (a one-client configuration starts it), each with its
undo. (The RDMA listener needs the --rdma lab: tests/lab/test_lab_clients.py checks it in its transport session.)
What counts as a change, and how a placeholder matches, is in tests/lab/recording.py."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from nfstune.lab import LabConfig, host
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.plan import Plan
from nfstune.session.engine import Event
from nfstune.session.workflow import Facts, Pair, make_engine, plan_for, probe_pair, start_session
from nfstune.store import Journal, Results, open_store
from tests.lab.recording import RecordingHost, Sent, assert_plan_ran

pytestmark = pytest.mark.lab

# what every recipe here shares: one cheap workload, two rounds, no warm-up
HEADER = """id = "{id}"
title = "t"
summary = "s"
why = "w"
changes_host = "server"
workloads = ["sync-4k"]
{baseline}[rounds]
min = 2
max = 2
warmup = 0
"""

CONFIGS = {
    "plan-changes": """[[configs]]
label = "baseline"
[[configs]]
label = "async"
export = { set = ["async"] }
[[configs]]
label = "ra=1M"
read_ahead_kb = 1024
[[configs]]
label = "16 threads"
nfsd_threads = 16
""",
    "plan-filesystem": """[[configs]]
label = "ext4"
filesystem = "ext4"
[[configs]]
label = "ext4, async"
filesystem = "ext4"
export = { set = ["async"] }
""",
    "plan-fio-server": """[[configs]]
label = "1 client"
clients = 1
[[configs]]
label = "1 client, async"
clients = 1
export = { set = ["async"] }
""",
}
BASELINES = {"plan-changes": 'baseline = "baseline"\n'}  # the others compare with their first configuration
RECIPES = {
    f"{name}.toml": HEADER.format(id=name, baseline=BASELINES.get(name, "")) + configs
    for name, configs in CONFIGS.items()
}


def run_engine(real: Pair, pair: Pair, facts: Facts, plan: Plan, results: Results, journal: Journal) -> int:
    """The session stored with the real hosts, run through `pair` (the recording ones), without baselines."""
    (item,) = plan.recipes
    sid = start_session(results, real, facts, scale="small", recipe_ids=[item.recipe.id], plan=plan)
    events: list[Event] = []
    engine = make_engine(
        pair,
        facts,
        scale="small",
        results=results,
        journal=journal,
        emit=events.append,
        cancel=threading.Event(),
        ceilings=False,
    )
    engine.run(sid, plan)
    return sid


@pytest.mark.parametrize("recipe_file", sorted(RECIPES))
def test_every_change_that_runs_is_the_plans_step(lab: LabConfig, tmp_path: Path, recipe_file: str) -> None:
    (tmp_path / "recipes").mkdir()
    (tmp_path / "recipes" / recipe_file).write_text(RECIPES[recipe_file])
    recipes, errors = load_recipes([tmp_path / "recipes"])
    assert errors == []
    (recipe,) = recipes
    conn = open_store(tmp_path / "s.sqlite3")
    results, journal = Results(conn), Journal(conn)
    sent: list[Sent] = []
    lock = threading.Lock()
    with host(lab, "nas") as nas, host(lab, "client") as client:
        real = Pair(nas, client, "nas", "/export")
        facts = probe_pair(real)
        plan = plan_for(real, facts, [recipe], "small", seed=1)
        pair = Pair(
            RecordingHost(nas, "server", sent, lock), RecordingHost(client, "client", sent, lock), "nas", "/export"
        )  # type: ignore[arg-type]
        sid = run_engine(real, pair, facts, plan, results, journal)
    assert results.session(sid)["status"] == "completed"
    ran = assert_plan_ran(plan, sent)
    # the kinds this recipe was written for did run (the comparison above is not over an empty plan)
    kinds = {
        "plan-changes.toml": "exportfs -ra",
        "plan-filesystem.toml": "mkfs.ext4",
        "plan-fio-server.toml": "--server=",
    }
    assert any(kinds[recipe_file] in s.line for s in ran)


def test_without_a_login_on_the_nas_every_change_is_the_plans_and_all_are_on_the_client(
    lab: LabConfig, tmp_path: Path
) -> None:
    (tmp_path / "recipes").mkdir()
    (tmp_path / "recipes" / "plan-changes.toml").write_text(RECIPES["plan-changes.toml"])
    (recipe,) = load_recipes([tmp_path / "recipes"])[0]
    conn = open_store(tmp_path / "s.sqlite3")
    results, journal = Results(conn), Journal(conn)
    sent: list[Sent] = []
    with host(lab, "client") as client:
        real = Pair(None, client, "nas", "/export")
        facts = probe_pair(real)
        plan = plan_for(real, facts, [recipe], "small", seed=1)
        # async and the threads change the server: skipped; the baseline and read-ahead run
        assert [c.label for c in plan.recipes[0].configs] == ["baseline", "ra=1M"]
        pair = Pair(None, RecordingHost(client, "client", sent, threading.Lock()), "nas", "/export")  # type: ignore[arg-type]
        sid = run_engine(real, pair, facts, plan, results, journal)
    assert results.session(sid)["status"] == "completed"
    ran = assert_plan_ran(plan, sent)
    assert {s.role for s in sent} == {"client"}
    made = [s for s in ran if "mount -t nfs -o nosharecache nas:/export" in s.line and "mkdir -m 0700" in s.line]
    removed = [s for s in ran if "mount -t nfs -o nosharecache nas:/export" in s.line and "rm -rf" in s.line]
    assert len(made) == len(removed) == 1 and ran.index(made[0]) < ran.index(removed[0])
    assert journal.pending() == []
