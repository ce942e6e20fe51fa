"""A stored session as typed records (store/stored.py), read from a real SQLite file: JSON columns parsed once, and
sessions an older nfstune wrote (no plan, no configuration keys, a plan this version cannot read) still readable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nfstune.store import Results, RunConfig, StoredSession, open_store


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


def new_session(results: Results, plan: str | None) -> int:
    return results.start_session(
        server_host=results.upsert_host("root@nas:22", "nas", None),
        client_host=results.upsert_host("root@client:22", "client", None),
        share="/export",
        scale="small",
        recipes=["many-clients"],
        plan=plan,
    )


def test_every_json_column_is_parsed_into_its_record(results: Results) -> None:
    sid = new_session(results, json.dumps({"seed": 3, "recipes": [{"id": "many-clients"}]}))
    config = {"mount": "vers=4.2", "export_set": ["async"], "expect": "differ", "clients": 3, "nfsd_threads": 16}
    run = results.start_run(sid, recipe="many-clients", config_label="3 clients", config=config, workload="seq-write")
    results.set_run_options(run, requested="vers=4.2", negotiated="rw,vers=4.2", export="async,wdelay")
    results.add_repeat(run, 0, warmup=True, values={"tool": "fio", "bytes": 1, "seconds": 1.0, "mb_per_s": 1.0})
    rep = results.add_repeat(run, 1, warmup=False, values={"tool": "fio", "bytes": 9, "seconds": 2.0, "mb_per_s": 4.5})
    share = {"client": "c2", "bytes": 3, "seconds": 2.0, "mb_per_s": 1.5, "ops": 6, "ops_per_s": 3.0}
    results.add_repeat_clients(rep, [{**share, "lat_mean_us": 10.0, "lat_p99_us": 30.0}])
    results.end_run(run, "completed")
    results.add_baseline(sid, kind="network", direction="to-server", mb_per_s=110.0, seconds=5.0, size=550, raw="")
    results.keep_admin_config(sid, json.dumps({"exports": None, "fstab": None, "server": "nas"}))
    results.end_session(sid, "completed")

    stored = results.stored_session(sid)
    assert isinstance(stored, StoredSession) and stored.paired and stored.plan is not None
    assert stored.plan["seed"] == 3 and stored.admin_config == {"exports": None, "fstab": None, "server": "nas"}
    assert stored.recipes == ("many-clients",) and stored.status == "completed"
    (only,) = stored.runs
    assert only.config == RunConfig("vers=4.2", ("async",), None, "differ", 3, 16)
    assert (only.export_options, only.negotiated_options, only.status) == ("async,wdelay", "rw,vers=4.2", "completed")
    warm, measured = only.repeats
    assert warm.warmup and not measured.warmup and measured.number == 1 and measured.mb_per_s == 4.5
    assert measured.record()["mb_per_s"] == 4.5 and measured.record()["steady_mb_per_s"] is None
    assert [(c.client, c.ops, c.lat_p99_us) for c in measured.clients] == [("c2", 6, 30.0)]
    assert [(c.kind, c.mb_per_s) for c in stored.ceilings] == [("network", 110.0)]


@pytest.mark.parametrize(("plan", "paired"), [(None, False), ("", False), ("not json", True), ("[1, 2]", True)])
def test_an_older_session_reads_with_what_it_has(results: Results, plan: str | None, paired: bool) -> None:
    sid = new_session(results, plan)
    run = results.start_run(sid, recipe="sync-vs-async", config_label="sync", config={}, workload="small-files")
    results.add_repeat(run, 0, warmup=False, values={"tool": "tar", "bytes": 5, "seconds": 9.0, "ops": 30})
    stored = results.stored_session(sid)
    # a plan this version cannot read has nothing to tell, but its rounds were still interleaved (paired)
    assert stored.plan is None and stored.paired == paired and stored.admin_config is None
    assert stored.runs[0].config == RunConfig() and stored.runs[0].status == "running"
    assert stored.runs[0].repeats[0].seconds == 9.0 and stored.latencies == ()
