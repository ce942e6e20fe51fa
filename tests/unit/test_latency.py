"""The latency ceilings: ping's output and the server-side dd run as captured on the lab, their rows in the store
(a new table; older files migrate with their baselines intact), and where they are shown (the text report, the
HTML report)."""

from __future__ import annotations

import dataclasses
import html
import os
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from nfstune.bench.fallback import fallback_commands, fallback_parser
from nfstune.bench.ping import PingOutputError, parse_ping, ping_argv
from nfstune.bench.workloads import WorkloadId, WorkloadSizes
from nfstune.remote.local import LocalHost
from nfstune.report.html import session_html
from nfstune.results.latencies import LATENCY_NOTE, ROUND_TRIP, SYNC_WRITE, latency_label, latency_ms, latency_text
from nfstune.session.latency import SYNC_WRITES, Latency, LatencyFailed, round_trip, sync_write
from nfstune.store import Results, open_store

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
SIZES = WorkloadSizes(seq_file_bytes=24 * 1024 * 1024, small_file_count=30, small_file_bytes=4096, sync_4k_count=50)


def capture(name: str) -> str:
    return (CAPTURES / name).read_bytes().decode()


def test_ping_argv_is_a_short_run_a_user_may_ask_for() -> None:
    assert ping_argv("10.99.0.1") == ["ping", "-n", "-c", "20", "-i", "0.2", "-w", "15", "--", "10.99.0.1"]
    assert ping_argv("nas.local", 3)[-1] == "nas.local"


def test_ping_on_the_lab_reads_every_reply_and_its_median() -> None:
    result = parse_ping(capture("ping-lab.txt"))
    assert len(result.times_ms) == 20 and result.transmitted == 20
    assert result.times_ms[:2] == (24.8, 7.94)  # the first reply waited for ARP and the busy host
    assert min(result.times_ms) == 0.982 and max(result.times_ms) == 24.8  # as ping's own summary says
    assert result.median_ms == pytest.approx(5.315)
    assert result.mean_ms == pytest.approx(5.8886)  # ping's avg 5.883 is of its µs-exact times


def test_duplicate_replies_are_not_round_trips_and_a_lost_reply_leaves_the_others() -> None:
    lines = capture("ping-lab.txt").splitlines()  # the header, then reply 1 on lines[1]
    # reply 2 came twice, reply 3 was lost
    text = "\n".join([*lines[:3], lines[2] + " (DUP!)", *lines[4:]]).replace(
        "20 received", "19 received, +1 duplicates"
    )
    result = parse_ping(text)
    assert len(result.times_ms) == 19 and result.transmitted == 20
    assert result.times_ms[:3] == (24.8, 7.94, 10.9)


def test_no_reply_is_an_error_that_says_what_ping_said() -> None:
    with pytest.raises(PingOutputError, match="100% packet loss"):
        parse_ping(capture("ping-lab-no-reply.txt"))
    with pytest.raises(PingOutputError, match="it printed nothing"):
        parse_ping("")


def test_the_server_side_sync_writes_on_the_lab_read_as_the_mean_of_each() -> None:
    """What sync_write runs, as recorded on the lab's NAS (hdd profile: dm-delay 8 ms per write and flush)."""
    commands = fallback_commands(WorkloadId.SYNC_4K, "/x", dataclasses.replace(SIZES, sync_4k_count=SYNC_WRITES))
    parser = fallback_parser(commands)
    parser.feed(capture("dd-sync-write-nas.out"))
    result = parser.result()
    assert result.ops == SYNC_WRITES == 32
    assert result.lat_mean_us is not None
    assert result.lat_mean_us / 1000 == pytest.approx((1795757659.042323839 - 1795757657.087393364) / 32 * 1000)


@pytest.mark.skipif(os.geteuid() != 0, reason="sync_write runs with sudo, which asks a user for a password")
def test_sync_write_on_this_machine_times_its_writes_and_leaves_nothing(tmp_path: Path) -> None:
    latency = sync_write(LocalHost(), str(tmp_path), SIZES)
    assert (latency.kind, latency.tool, latency.count) == (SYNC_WRITE, "dd", SYNC_WRITES)
    assert latency.mean_ms > 0 and latency.median_ms is None
    assert "32+0 records out" in latency.raw_output
    assert list(tmp_path.iterdir()) == []  # its file removed (on a server: the scratch directory goes too)


@pytest.mark.skipif(shutil.which("ping") is not None, reason="ping is installed here")
def test_a_client_without_ping_is_told_how_to_get_it() -> None:
    with pytest.raises(LatencyFailed, match=r"ping is not installed \(apt install iputils-ping\)"):
        round_trip(LocalHost(), "127.0.0.1")


@pytest.mark.skipif(shutil.which("ping") is None, reason="no ping here")
def test_round_trip_on_loopback() -> None:
    latency = round_trip(LocalHost(), "127.0.0.1")
    assert latency.kind == ROUND_TRIP and latency.count == 20
    assert latency.min_ms is not None and latency.max_ms is not None and latency.median_ms is not None
    assert latency.min_ms <= latency.median_ms <= latency.max_ms


PING = Latency(ROUND_TRIP, "ping", 5.8886, 5.315, 0.982, 24.8, 20, "ping's output")
DD = Latency(SYNC_WRITE, "dd", 61.09, None, None, None, 32, "dd's output")


def test_the_budget_figure_is_the_median_where_each_was_timed_else_the_mean() -> None:
    assert latency_ms(PING.row) == 5.315 and latency_ms(DD.row) == 61.09
    assert latency_text(PING.row) == "5.32 ms (median of 20 replies, 0.982\u201324.8 ms)"
    assert latency_text(DD.row) == "61.1 ms (mean of 32 writes)"
    assert latency_label(PING.row) == "network round trip (ping, client → server → client)"
    assert latency_label(DD.row) == "server disk, one 4 KiB synchronous write (dd, O_DSYNC)"


def stored(results: Results, *latencies: Latency) -> int:
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    for t in latencies:
        results.add_latency(
            sid,
            kind=t.kind,
            tool=t.tool,
            mean_ms=t.mean_ms,
            median_ms=t.median_ms,
            min_ms=t.min_ms,
            max_ms=t.max_ms,
            count=t.count,
            raw_output=t.raw_output,
        )
    results.end_session(sid, "completed")
    return sid


def test_a_session_keeps_its_latencies_beside_its_baselines(tmp_path: Path) -> None:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid = stored(results, PING, DD)
    results.add_baseline(sid, kind="disk", direction="write", mb_per_s=12.3, seconds=2.0, size=24 << 20, raw="")
    data = results.session(sid)
    assert [b["kind"] for b in data["baselines"]] == ["disk"]
    rows = data["latencies"]
    assert [{k: r[k] for k in PING.row} for r in rows] == [PING.row, DD.row]
    other = stored(results)
    assert results.session(other)["latencies"] == []


def test_an_older_file_migrates_with_its_baselines_and_no_latencies(tmp_path: Path) -> None:
    from nfstune.store.db import MIGRATIONS

    path = tmp_path / "s.sqlite3"
    # the schema just before the latencies table
    before = next(i for i, m in enumerate(MIGRATIONS) if any("CREATE TABLE latencies" in s for s in m))
    with sqlite3.connect(path) as old:
        for migration in MIGRATIONS[:before]:
            for statement in migration:
                old.execute(statement)
        old.execute(f"PRAGMA user_version = {before}")
        old.execute(
            "INSERT INTO sessions (id, started_at, share, scale, recipes) VALUES (1, 0, '/export', 'small', '[]')"
        )
        old.execute(
            "INSERT INTO baselines (session_id, kind, direction, mb_per_s, seconds, bytes, created_at) "
            "VALUES (1, 'network', 'to-server', 41.5, 5.0, 207500000, 0)"
        )
    old.close()
    data = Results(open_store(path)).session(1)
    assert [(b["kind"], b["mb_per_s"]) for b in data["baselines"]] == [("network", 41.5)]
    assert data["latencies"] == []


def test_the_reports_show_them_in_ms_with_what_they_bound(tmp_path: Path) -> None:
    from nfstune.cli.run import report_text

    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid = stored(results, PING, DD)
    text = report_text(results, sid, {})
    assert "ceilings (measured before the recipes)" in text
    assert "  network round trip (ping, client → server → client): 5.32 ms (median of 20 replies" in text
    assert "  server disk, one 4 KiB synchronous write (dd, O_DSYNC): 61.1 ms (mean of 32 writes)" in text
    assert LATENCY_NOTE in text
    page = html.unescape(re.sub(r"<[^>]+>", " ", session_html(results, sid, {})))
    assert re.search(r"Ceilings\s+" + re.escape(LATENCY_NOTE) + r"\s+what\s+time\s+network round trip", page)
    assert re.search(r"O_DSYNC\)\s+61\.1 ms \(mean of 32 writes\)", page)


def test_a_session_without_them_shows_no_latency_ceiling(tmp_path: Path) -> None:
    from nfstune.cli.run import report_text

    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid = stored(results)
    assert "ceilings" not in report_text(results, sid, {})
    assert "Ceilings" not in session_html(results, sid, {})
