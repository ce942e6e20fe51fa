"""What limits each workload, and the answer in three lines, on sessions stored by the real store (the figures of
tests/unit/test_summary.py) with the ceilings a session measures; the latency ceilings as Ceilings carries them."""

from __future__ import annotations

from pathlib import Path

from nfstune.advice.answer import answer
from nfstune.advice.outcome import session_findings
from nfstune.advice.recommend import PLAIN_RISK
from nfstune.recipes.loader import load_recipes, recipes_by_id
from nfstune.results.ceilings import Ceilings, ceilings_of
from nfstune.results.diagnosis import FLUSH, NETWORK, diagnose
from nfstune.results.summary import summarize_session
from nfstune.store import Results, open_store
from tests.unit.test_summary import FIRST_SESSION, SECOND_SESSION, store_session

RECIPES = recipes_by_id()


def stored(tmp_path: Path, runs: list, **ceilings: float) -> tuple[Results, int]:  # type: ignore[type-arg]
    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid = store_session(results, runs)
    ways = {
        "to_server": ("network", "to-server"),
        "from_server": ("network", "from-server"),
        "disk_write": ("disk", "write"),
        "disk_read": ("disk", "read"),
    }
    for name, mb_per_s in ceilings.items():
        kind, direction = ways[name]
        results.add_baseline(sid, kind=kind, direction=direction, mb_per_s=mb_per_s, seconds=5, size=10**8, raw="")
    return results, sid


def by_workload(results: Results, sid: int, ceilings: Ceilings | None = None) -> dict[str, object]:
    data = results.session(sid)
    found = diagnose(summarize_session(data, RECIPES), ceilings or ceilings_of(data), files=30)
    return {d.workload: d for d in found}


def test_a_read_at_the_networks_limit_names_the_network_and_that_nfs_settings_will_not_help(tmp_path: Path) -> None:
    # block-size's baseline (rsize=1M) read at 89 MB/s; the network gave 95 MB/s server -> client, the disk 400
    results, sid = stored(tmp_path, FIRST_SESSION, from_server=95.0, to_server=112.0, disk_read=400.0)
    read = by_workload(results, sid)["seq-read"]
    assert read.bottleneck == "network" and 0.93 < read.share < 0.95  # type: ignore[attr-defined]
    assert read.text.startswith("Reads ran at 94 % of the network's 95 MB/s (server → client): the network is")  # type: ignore[attr-defined]
    assert read.levers == NETWORK  # type: ignore[attr-defined]


def test_nothing_measured_explains_a_write_far_below_every_ceiling(tmp_path: Path) -> None:
    # sync-vs-async's baseline (sync) wrote at 49.9 MB/s; the network takes 112 and the disk 400
    results, sid = stored(tmp_path, FIRST_SESSION, to_server=112.0, disk_write=400.0)
    write = by_workload(results, sid)["seq-write"]
    assert write.bottleneck is None and write.levers == ()  # type: ignore[attr-defined]
    assert "45 % of the network's 112 MB/s (client → server): nothing measured explains the rest" in write.text  # type: ignore[attr-defined]


def test_a_session_without_ceilings_says_so_instead_of_guessing(tmp_path: Path) -> None:
    results, sid = stored(tmp_path, FIRST_SESSION)
    found = by_workload(results, sid)
    for workload in ("seq-write", "seq-read"):
        d = found[workload]
        assert d.bottleneck is None and d.share is None  # type: ignore[attr-defined]
        assert "no network or server disk ceiling was measured in this session" in d.text  # type: ignore[attr-defined]
    assert "no round trip was measured" in found["small-files"].text  # type: ignore[attr-defined]


def test_one_missing_ceiling_is_named_beside_the_one_that_holds(tmp_path: Path) -> None:
    results, sid = stored(tmp_path, FIRST_SESSION, from_server=95.0)
    read = by_workload(results, sid)["seq-read"]
    assert read.bottleneck == "network" and "(no server disk ceiling was measured" in read.text  # type: ignore[attr-defined]


def test_a_sync_write_at_the_disks_flush_latency_names_the_flush(tmp_path: Path) -> None:
    # SECOND_SESSION's sync-4k: 4.1 ms a write; the round trip is 0.3 ms and the disk's own flush 3.6 ms
    results, sid = stored(tmp_path, SECOND_SESSION)
    sync = by_workload(results, sid, Ceilings(round_trip_ms=0.3, sync_write_ms=3.6))["sync-4k"]
    assert sync.bottleneck == "disk flush" and sync.levers == FLUSH  # type: ignore[attr-defined]
    assert "95 % of it the network round trip (0.3 ms) and the server disk's flush (3.6 ms)" in sync.text  # type: ignore[attr-defined]


def test_a_sync_write_faster_than_its_own_flush_was_not_waited_for(tmp_path: Path) -> None:
    results, sid = stored(tmp_path, SECOND_SESSION)
    sync = by_workload(results, sid, Ceilings(round_trip_ms=0.3, sync_write_ms=12.0))["sync-4k"]
    assert sync.bottleneck is None and "the server acknowledged before its disk had the data" in sync.text  # type: ignore[attr-defined]


def test_small_files_held_by_round_trips_and_by_the_servers_commits(tmp_path: Path) -> None:
    # sync's untar took 8.9 s for 30 files: 297 ms a file
    results, sid = stored(tmp_path, SECOND_SESSION)
    slow_link = by_workload(results, sid, Ceilings(round_trip_ms=80.0))["small-files"]
    assert slow_link.bottleneck == "round trips" and "at least 3 round trips of 80 ms" in slow_link.text  # type: ignore[attr-defined]
    slow_disk = by_workload(results, sid, Ceilings(round_trip_ms=0.5, sync_write_ms=250.0))["small-files"]
    assert slow_disk.bottleneck == "disk flush" and "synchronous commits are the limit" in slow_disk.text  # type: ignore[attr-defined]


def test_a_busy_cpu_is_named_where_no_ceiling_explains_the_figure(tmp_path: Path) -> None:
    results, sid = stored(tmp_path, FIRST_SESSION, to_server=112.0, disk_write=400.0)
    data = results.session(sid)
    busy = {("sync-vs-async", "seq-write", "sync"): {"server": 35.0, "client": 97.0}}
    (write,) = [
        d for d in diagnose(summarize_session(data, RECIPES), ceilings_of(data), busy=busy) if d.workload == "seq-write"
    ]
    assert write.bottleneck == "CPU (client)" and "The client's CPU was 97 % busy during the run" in write.text


def test_the_answer_is_the_surest_gain_with_its_interval_and_its_risk(tmp_path: Path) -> None:
    results, sid = stored(tmp_path, FIRST_SESSION)
    found = session_findings(results, sid, RECIPES)
    change, gain, risk = found.answer.lines
    # async is the one gain here: said as the opt-in it is, never as the change (the recommendation keeps sync)
    assert change == (
        "Change: keep sync (the recommended export); the one faster setting found is async (sync-vs-async: async "
        "against sync), only as an opt-in."
    )
    assert gain.startswith("Gain: small-files: async is 4.") and gain.endswith(", if you opt in.")
    assert risk == f"Risk: {PLAIN_RISK} Only with a UPS on the server and data you can recreate."


def test_a_safe_gain_is_the_change_before_async(tmp_path: Path) -> None:
    # quick-check: async faster on small-files, and vers=3 faster on seq-read (a client mount option)
    runs = [
        ("quick-check", "baseline", "small-files", "sync", "vers=4.2", "", [9.1, 8.4, 8.9, 9.0]),
        ("quick-check", "async", "small-files", "async", "vers=4.2", "", [2.1, 1.9, 2.2, 2.0]),
        ("quick-check", "baseline", "seq-read", "sync", "vers=4.2", "", [30.2, 31.0, 30.5, 30.1]),
        ("quick-check", "vers=3", "seq-read", "sync", "vers=3", "", [45.1, 46.0, 45.6, 44.9]),
    ]
    results, sid = stored(tmp_path, runs)
    change, gain, risk = session_findings(results, sid, RECIPES).answer.lines
    assert change == "Change: Mount with vers=3 (quick-check: vers=3 against baseline)."
    assert gain.startswith("Gain: seq-read: vers=3 is ") and "faster than baseline" in gain
    assert risk == "Risk: none to your data: a mount option on the client, undone by taking it out of /etc/fstab."


def test_without_a_gain_the_answer_names_the_limit_the_hosts_are_at(tmp_path: Path) -> None:
    results, sid = stored(tmp_path, SECOND_SESSION[2:] + FIRST_SESSION[4:6], from_server=95.0)
    data = results.session(sid)
    groups = summarize_session(data, RECIPES)
    found = answer(groups, diagnose(groups, ceilings_of(data)), RECIPES)
    assert found.change == "nothing in NFS: these hosts are at their limit, which is network (seq-read, 94 % of it)."
    assert found.gain == f"none from NFS settings; only from {NETWORK[0]}."


def test_what_nfstune_never_recommends_is_no_answer_whatever_it_measured(tmp_path: Path) -> None:
    # a recipe of the admin's own found soft faster: nfs(5) says soft can silently corrupt read-write data
    (tmp_path / "recipes").mkdir()
    (tmp_path / "recipes" / "soft-test.toml").write_text(
        'id = "soft-test"\ntitle = "t"\nsummary = "s"\nwhy = "w"\nchanges_host = "client"\n'
        'workloads = ["sync-4k"]\nbaseline = "hard"\n[[configs]]\nlabel = "hard"\nmount = { hard = true }\n'
        '[[configs]]\nlabel = "soft"\nmount = { soft = true }\n'
    )
    loaded, errors = load_recipes([tmp_path / "recipes"])
    assert errors == []
    runs = [
        ("soft-test", "hard", "sync-4k", "", "hard", "", [9.1, 8.9, 9.3, 9.0]),
        ("soft-test", "soft", "sync-4k", "", "soft", "", [4.1, 4.0, 4.2, 4.1]),
    ]
    results, sid = stored(tmp_path, runs)
    data = results.session(sid)
    recipes = {r.id: r for r in loaded}
    groups = summarize_session(data, recipes)
    assert any(c.verdict is not None and c.verdict.kind == "faster" for g in groups for c in g.configs)
    found = answer(groups, diagnose(groups, ceilings_of(data)), recipes)
    assert found.change == (
        "nothing: soft measured faster, but nfstune does not recommend it (nfs(5): a soft timeout can cause silent "
        "data corruption for read-write data)."
    )
    assert found.gain.startswith("sync-4k: soft is 2.") and found.gain.endswith("; not worth what it risks.")


def test_a_ceiling_measured_below_the_figure_still_names_its_limit_and_says_it_came_out_low(tmp_path: Path) -> None:
    results, sid = stored(tmp_path, FIRST_SESSION, to_server=40.0)  # seq-write ran at 49.9 MB/s
    write = by_workload(results, sid)["seq-write"]
    assert write.bottleneck == "network"  # type: ignore[attr-defined]
    assert "above the network's 40 MB/s (client → server) as measured: that ceiling measured low" in write.text  # type: ignore[attr-defined]


def test_a_sync_write_near_its_flush_measured_apart_is_held_by_the_flush(tmp_path: Path) -> None:
    # 4.1 ms a write; the disk's flush measured apart (appending writes) came out at 5.0 ms
    results, sid = stored(tmp_path, SECOND_SESSION)
    sync = by_workload(results, sid, Ceilings(round_trip_ms=0.3, sync_write_ms=5.0))["sync-4k"]
    assert sync.bottleneck == "disk flush" and sync.share == 1.0  # type: ignore[attr-defined]
    assert (
        "about what the network round trip (0.3 ms) and the server disk's flush (5 ms) take measured apart" in sync.text
    )  # type: ignore[attr-defined]
