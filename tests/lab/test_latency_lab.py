"""The latency ceilings on the lab (hdd profile: dm-delay, 8 ms a write and a flush; 50mbit link): a session with
baselines stores the network round trip and the server disk's synchronous write beside the throughput ceilings,
with figures the lab's set-up makes plausible, and leaves nothing in the export."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.cli.run import report_text
from nfstune.lab import LabConfig, host
from nfstune.recipes.loader import load_recipe_file
from nfstune.session.admin import Admin
from nfstune.session.engine import Engine, Event
from nfstune.session.inputs import SessionHosts, SessionSettings, SessionStore
from nfstune.session.latency import SYNC_WRITES
from nfstune.store import Journal, Results, open_store
from tests.lab.test_engine_lab import SIZES, lab_plan

pytestmark = pytest.mark.lab

RECIPE = """
id = "mini-sync-4k"
title = "sync-4k only"
summary = "A short test recipe."
why = "Tests."
changes_host = "client"
workloads = ["sync-4k"]
baseline = "4.2"

[rounds]
min = 2
max = 2
warmup = 0

[[configs]]
label = "4.2"
mount = { vers = "4.2" }

[[configs]]
label = "3"
mount = { vers = "3" }
"""


def test_a_session_with_baselines_stores_both_latency_ceilings(lab: LabConfig, tmp_path: Path) -> None:
    (tmp_path / "mini-sync-4k.toml").write_text(RECIPE)
    recipe, errors = load_recipe_file(tmp_path / "mini-sync-4k.toml")
    assert errors == [] and recipe is not None
    conn = open_store(tmp_path / "s.sqlite3")
    results, journal = Results(conn), Journal(conn)
    events: list[Event] = []
    with host(lab, "nas") as nas, host(lab, "client") as client:
        sid = results.start_session(
            server_host=None, client_host=None, share="/export", scale="small", recipes=[recipe.id]
        )
        Engine(
            SessionHosts(nas, client, "nas", "/export", server_disks=["vdb"], client_nic="eth1"),
            SessionStore(results, journal),
            Admin(events.append),
            SessionSettings(SIZES["small"], fio_available=True, iperf_available=True),
        ).run(sid, lab_plan(recipe))
        assert nas.run("ls -A /export").stdout.split() == ["lost+found"]  # the dd file went with the scratch
    data = results.session(sid)
    assert data["status"] == "completed", data["message"]
    assert {b["kind"] for b in data["baselines"]} == {"network", "disk"}  # the throughput ones still there
    found = {t["kind"]: t for t in data["latencies"]}
    assert set(found) == {"round-trip", "sync-write"}, [e.message for e in events if e.kind == "warning"]
    ping, disk = found["round-trip"], found["sync-write"]
    print("round trip ms:", ping["median_ms"], ping["min_ms"], ping["max_ms"], "sync write ms:", disk["mean_ms"])
    assert (ping["tool"], ping["count"]) == ("ping", 20)
    # a TCG VM's virtual link: well under the 50mbit profile's 100 ms queue limit, idle
    assert 0.01 < ping["min_ms"] <= ping["median_ms"] <= ping["max_ms"] < 100
    assert (disk["tool"], disk["count"], disk["median_ms"]) == ("dd", SYNC_WRITES, None)
    # each O_DSYNC append waits for at least the data's 8 ms write on the delayed device (and ext4's journal)
    assert 8 < disk["mean_ms"] < 1000
    logged = [e.message for e in events if e.kind == "log"]
    assert any(m.startswith("network round trip (ping, client → server → client): ") for m in logged)
    text = report_text(results, sid, {})
    assert "server disk, one 4 KiB synchronous write (dd, O_DSYNC): " in text
