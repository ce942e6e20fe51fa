"""What nfstune found when it waited for the hosts' writeback before each run (bench/writeback.py), kept with the
run in a real store and said where the session is shown: a run that started at the limit in its workload's details
(the HTML report, `nfstune report`'s text), each wait in the JSON export; a session stored before nfstune waited
reads back with nothing to say."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from nfstune.advice.outcome import session_outcome
from nfstune.bench.writeback import WritebackWait
from nfstune.recipes.loader import recipes_by_id
from nfstune.report.html import session_html
from nfstune.report.json_report import report_json
from nfstune.results.writeback import late_starts
from nfstune.store import Results, StoredWriteback, open_store
from nfstune.store.db import MIGRATIONS
from tests.unit.verdict_session import store_verdict_session

LATE = WritebackWait("server", found_kib=460 * 1024, left_kib=420 * 1024, seconds=30.1, limit_s=30, limit_hit=True)
IN_TIME = WritebackWait("client", found_kib=12 * 1024, left_kib=300, seconds=0.8, limit_s=30, limit_hit=False)
SENTENCE = "async, round 3: the server was still writing back 420 MiB after 30 s"


def stored_with_waits(tmp_path: Path) -> tuple[Results, int]:
    """The verdict session, with both hosts' waits kept for async's sync-4k round 3 (the server's at the limit)
    and a wait in time for every other repeat of that run."""
    conn = open_store(tmp_path / "s.sqlite3")
    results = Results(conn)
    sid = store_verdict_session(results)
    rows = conn.execute(
        "SELECT p.id, p.number FROM repeats p JOIN runs r ON r.id = p.run_id "
        "WHERE r.session_id = ? AND r.config_label = 'async' AND r.workload = 'sync-4k'",
        (sid,),
    ).fetchall()
    for repeat_id, number in rows:
        waits = [LATE, IN_TIME] if number == 3 else [IN_TIME]
        results.add_repeat_writeback(repeat_id, [w.record() for w in waits])
    return results, sid


def test_each_hosts_wait_is_kept_with_its_repeat_and_read_back_typed(tmp_path: Path) -> None:
    results, sid = stored_with_waits(tmp_path)
    run = next(r for r in results.stored_session(sid).runs if (r.config_label, r.workload) == ("async", "sync-4k"))
    by_round = {rep.number: rep.writeback for rep in run.repeats}
    assert by_round[3] == (
        StoredWriteback("server", 460 * 1024, 420 * 1024, 30.1, 30.0, True),
        StoredWriteback("client", 12 * 1024, 300, 0.8, 30.0, False),
    )
    assert by_round[2] == (StoredWriteback("client", 12 * 1024, 300, 0.8, 30.0, False),)
    # the other runs were stored without waits: nothing is made up for them
    other = next(r for r in results.stored_session(sid).runs if r.config_label == "baseline")
    assert all(rep.writeback == () for rep in other.repeats)


def test_a_run_started_at_the_limit_is_said_in_its_workloads_details(tmp_path: Path) -> None:
    results, sid = stored_with_waits(tmp_path)
    assert late_starts(results.stored_session(sid).runs) == {("quick-check", "sync-4k"): [SENTENCE]}
    page = session_html(results, sid)
    sync_section = page[page.index("quick-check: 4 KiB synchronous writes") :]
    sync_section = sync_section[: sync_section.index("<h3>", 1)]
    assert "Started before the hosts had finished writing back (a run;" in sync_section
    assert f"<li>{SENTENCE}</li>" in sync_section
    assert SENTENCE not in page.replace(sync_section, "")  # said once, under its own workload
    text = session_outcome(results, sid).results_text
    assert f"    - {SENTENCE}" in text.split("quick-check / sync-4k")[1].split("quick-check / ")[0]


def test_the_json_report_carries_every_wait(tmp_path: Path) -> None:
    results, sid = stored_with_waits(tmp_path)
    report = json.loads(report_json(results, sid, recipes_by_id()))
    run = next(r for r in report["runs"] if (r["config_label"], r["workload"]) == ("async", "sync-4k"))
    third = next(rep for rep in run["repeats"] if rep["number"] == 3)
    assert third["writeback"] == [LATE.record(), IN_TIME.record()]


def test_a_session_stored_before_nfstune_waited_reads_back_with_nothing_to_say(tmp_path: Path) -> None:
    """A file at schema 9 (before the waits were kept) is brought up to date; its session reads back with no wait
    on any repeat, and no view says a run started late."""
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as old:
        for migration in MIGRATIONS[:9]:
            for statement in migration:
                old.execute(statement)
        old.execute("PRAGMA user_version = 9")
    old.close()
    results = Results(open_store(path))
    sid = store_verdict_session(results)
    assert list(tmp_path.glob("old.sqlite3.v9.*.bak"))  # migrated, with the copy made first
    stored = results.stored_session(sid)
    assert stored.runs and all(rep.writeback == () for run in stored.runs for rep in run.repeats)
    assert late_starts(stored.runs) == {}
    assert "finished writing back" not in session_html(results, sid)
