"""One engine session on the lab, as the workflow runs it (probed facts, a plan, the client's address), between two
snapshots of the NAS: for the lab tests of a recipe's mechanism."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from nfstune.bench.workloads import WorkloadSizes
from nfstune.lab import LabConfig, host
from nfstune.lab.config import LAB_IPS
from nfstune.recipes.model import FactValue, Recipe, recipe_facts
from nfstune.recipes.plan import Plan, build_plan
from nfstune.recipes.plan_text import plan_json
from nfstune.remote.probe import probe
from nfstune.session.admin import Admin
from nfstune.session.engine import Engine, Event
from nfstune.session.inputs import SessionHosts, SessionSettings, SessionStore
from nfstune.store import Journal, Results, open_store
from tests.lab.recording import RecordingHost, Sent


@dataclass(frozen=True)
class Ran:
    results: Results
    journal: Journal
    session_id: int
    plan: Plan
    facts: dict[str, FactValue]
    events: list[Event]
    before: str  # `snapshot` on the NAS before the session, and after it
    after: str
    client_mounts: str  # the client's /proc/mounts after it
    sent: list[Sent]  # what the engine sent the NAS and the client, in order (tests/lab/recording.py)


def run_session(
    lab: LabConfig, recipe: Recipe, tmp_path: Path, *, sizes: WorkloadSizes, seed: int, snapshot: str
) -> Ran:
    conn = open_store(tmp_path / "s.sqlite3")
    results, journal = Results(conn), Journal(conn)
    events: list[Event] = []
    sent: list[Sent] = []
    lock = threading.Lock()
    with host(lab, "nas") as nas, host(lab, "client") as client:
        before = nas.run(snapshot, sudo=True).stdout
        facts = recipe_facts(probe(nas, path="/export"), probe(client, peer=LAB_IPS["nas"]))
        plan = build_plan(
            [recipe],
            facts,
            scale="small",
            seed=seed,
            sizes=sizes,
            fio_available=True,
            share="/export",
            server_address="nas",
            scratch_name=f".nfstune-{recipe.id}",
        )
        sid = results.start_session(
            server_host=None,
            client_host=None,
            share="/export",
            scale="small",
            recipes=[recipe.id],
            plan=plan_json(plan),
        )
        # the client's address, as the workflow gives it: a lease an earlier test's unmount left is then its own
        Engine(
            SessionHosts(
                RecordingHost(nas, "server", sent, lock),  # type: ignore[arg-type]
                RecordingHost(client, "client", sent, lock),  # type: ignore[arg-type]
                "nas",
                "/export",
                client_address=LAB_IPS["client"],
            ),
            SessionStore(results, journal),
            Admin(events.append),
            SessionSettings(sizes, fio_available=True, ceilings=False),
        ).run(sid, plan)
        after = nas.run(snapshot, sudo=True).stdout
        mounts = client.run("cat /proc/mounts").stdout
    return Ran(results, journal, sid, plan, facts, events, before, after, mounts, sent)
