"""The SQLite store: migrations, a backup before migrating, refusal of a newer schema, and the journal."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from nfstune.store import SCHEMA_VERSION, Journal, StoreError, open_store


def test_new_store_is_at_the_current_schema_in_wal_mode(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "s.sqlite3")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert not list(tmp_path.glob("*.bak"))  # nothing to back up


def test_an_older_file_is_backed_up_before_migrating(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE keepme (x)")
        old.execute("INSERT INTO keepme VALUES (42)")
    old.close()
    open_store(path).close()
    (backup,) = tmp_path.glob("s.sqlite3.v0.*.bak")
    with sqlite3.connect(backup) as copy:
        assert copy.execute("SELECT x FROM keepme").fetchall() == [(42,)]
        assert copy.execute("PRAGMA user_version").fetchone()[0] == 0
    copy.close()


def test_a_newer_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with sqlite3.connect(path) as newer:
        newer.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    newer.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="written by a newer nfstune"):
        open_store(path)
    assert path.read_bytes() == before


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    path.write_text("this is not sqlite, just text that is long enough to have a header" * 10)
    with pytest.raises(StoreError, match="not an nfstune database"):
        open_store(path)


def test_journal_pending_newest_first_and_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    j = Journal(open_store(path))
    a = j.record("root@nas:22", "file", "/etc/exports", original=b"orig\x00bytes\n", backup_path="/var/x")
    b = j.record("root@client:22", "mount", "/mnt/nfstune/1")
    c = j.record("root@nas:22", "scratch", "/export/.nfstune-1", detail={"why": "test"})
    j.mark_restored(b)
    again = Journal(open_store(path))  # another process after a crash
    assert [e.id for e in again.pending()] == [c, a]
    assert [e.id for e in again.pending("root@nas:22")] == [c, a]
    entry = again.pending()[1]
    assert (entry.original, entry.backup_path, entry.kind) == (b"orig\x00bytes\n", "/var/x", "file")
    assert again.pending()[0].detail == {"why": "test"}


def test_migration_from_v1_keeps_the_journal(tmp_path: Path) -> None:
    from nfstune.store.db import MIGRATIONS

    path = tmp_path / "s.sqlite3"
    with sqlite3.connect(path) as v1:
        for statement in MIGRATIONS[0]:
            v1.execute(statement)
        v1.execute("PRAGMA user_version = 1")
        v1.execute(
            "INSERT INTO journal (host, kind, target, created_at, pid) VALUES ('root@nas:22', 'dir', '/x', 0, 1)"
        )
    v1.close()
    conn = open_store(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert [e.target for e in Journal(conn).pending()] == ["/x"]
    assert list(tmp_path.glob("s.sqlite3.v1.*.bak"))


def test_migration_to_rounds_keeps_older_sessions_unpaired(tmp_path: Path) -> None:
    """A file made by the schema before rounds: its session reads back with plan None (its repeats are not paired)
    and its repeats with steady_mb_per_s None; new sessions store both."""
    from nfstune.store import Results
    from nfstune.store.db import MIGRATIONS

    path = tmp_path / "s.sqlite3"
    with sqlite3.connect(path) as old:
        for migration in MIGRATIONS[:4]:
            for statement in migration:
                old.execute(statement)
        old.execute("PRAGMA user_version = 4")
        old.execute(
            "INSERT INTO sessions (id, started_at, share, scale, recipes) VALUES (1, 0, '/export', 'small', '[]')"
        )
        old.execute(
            "INSERT INTO runs (id, session_id, recipe, config_label, config, workload, started_at) "
            "VALUES (1, 1, 'quick-check', 'baseline', '{}', 'seq-write', 0)"
        )
        old.execute("INSERT INTO repeats (run_id, number, tool, mb_per_s, started_at) VALUES (1, 1, 'fio', 9.5, 0)")
    old.close()
    results = Results(open_store(path))
    before = results.session(1)
    assert before["plan"] is None
    assert [(r["mb_per_s"], r["steady_mb_per_s"]) for r in before["runs"][0]["repeats"]] == [(9.5, None)]
    assert list(tmp_path.glob("s.sqlite3.v4.*.bak"))
    sid = results.start_session(
        server_host=None,
        client_host=None,
        share="/export",
        scale="small",
        recipes=["quick-check"],
        plan='{"seed": 7}',
    )
    run = results.start_run(sid, recipe="quick-check", config_label="baseline", config={}, workload="seq-read")
    results.add_repeat(run, 1, warmup=False, values={"tool": "fio", "mb_per_s": 9.0, "steady_mb_per_s": 11.5})
    after = results.session(sid)
    assert after["plan"] == '{"seed": 7}' and after["runs"][0]["repeats"][0]["steady_mb_per_s"] == 11.5


def test_results_round_trip_and_exports(tmp_path: Path) -> None:
    import csv
    import json

    from nfstune.store import Results

    r = Results(open_store(tmp_path / "s.sqlite3"))
    nas = r.upsert_host("root@127.0.0.1:2222", "lab nas", '{"kernel": "6.1"}')
    assert r.upsert_host("root@127.0.0.1:2222", "lab nas", '{"kernel": "6.2"}') == nas  # same host, new facts
    client = r.upsert_host("root@127.0.0.1:2223", "lab client", None)
    sid = r.start_session(server_host=nas, client_host=client, share="/export", scale="small", recipes=["quick-check"])
    run = r.start_run(
        sid, recipe="sync-vs-async", config_label="async", config={"export": "async"}, workload="seq-write"
    )
    r.set_run_options(run, requested="vers=4.2", negotiated="vers=4.2,rsize=131072", export="async,wdelay")
    r.add_repeat(run, 0, warmup=True, values={"tool": "fio", "bytes": 8 << 20, "seconds": 1.0, "mb_per_s": 8.39})
    r.add_repeat(run, 1, warmup=False, values={"tool": "fio", "bytes": 8 << 20, "seconds": 0.8, "raw_output": "{}"})
    r.add_samples(run, "client", [("nfs_write_Bps", 1.0, 5e6), ("nfs_write_Bps", 2.0, 6e6)])
    r.end_run(run, "completed")
    r.end_session(sid, "completed")
    with pytest.raises(ValueError, match="unknown repeat fields"):
        r.add_repeat(run, 2, warmup=False, values={"tool": "fio", "speed": 1})

    (row,) = r.sessions()
    assert (row.status, row.server, row.client, row.recipes) == ("completed", "lab nas", "lab client", ["quick-check"])
    assert r.samples(run, "client", "nfs_write_Bps") == [(1.0, 5e6), (2.0, 6e6)]
    r.export_json(sid, tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["runs"][0]["negotiated_options"] == "vers=4.2,rsize=131072"
    assert [rep["seconds"] for rep in data["runs"][0]["repeats"]] == [1.0, 0.8]
    r.export_csv(sid, tmp_path / "s.csv")
    with (tmp_path / "s.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(x["config"], x["repeat"], x["warmup"], x["bytes"]) for x in rows] == [
        ("async", "0", "1", str(8 << 20)),
        ("async", "1", "0", str(8 << 20)),
    ]


def test_sessions_of_a_process_that_is_gone_are_marked_interrupted(tmp_path: Path) -> None:
    """A session whose process still runs stays "running"; one whose process ended (a crash, a kill), one stored
    before pids were kept, and one whose pid now belongs to a younger process become failed, saying why."""
    import subprocess
    import time

    from nfstune.store import Results
    from nfstune.store.results import INTERRUPTED

    results = Results(open_store(tmp_path / "s.sqlite3"))

    def session() -> int:
        return results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=[])

    ours = session()  # this process: still running
    gone, legacy, reused = session(), session(), session()
    ended = subprocess.Popen(["true"])
    ended.wait()  # its pid is free now
    child = subprocess.Popen(["sleep", "30"])
    try:
        conn = results._conn
        conn.execute("UPDATE sessions SET pid = ? WHERE id = ?", (ended.pid, gone))
        conn.execute("UPDATE sessions SET pid = NULL WHERE id = ?", (legacy,))
        # the child started after this session did: its pid cannot be the session's process
        conn.execute("UPDATE sessions SET pid = ?, started_at = ? WHERE id = ?", (child.pid, time.time() - 60, reused))
        assert sorted(results.mark_interrupted()) == sorted([gone, legacy, reused])
    finally:
        child.kill()
        child.wait()
    by_id = {row.id: row for row in results.sessions()}
    assert by_id[ours].status == "running" and by_id[ours].message is None
    assert all((by_id[i].status, by_id[i].message) == ("failed", INTERRUPTED) for i in (gone, legacy, reused))
    assert results.mark_interrupted() == []  # nothing left to mark


def openings_on_threads(path: Path, *, threads: int, each: int) -> list[BaseException]:
    """`threads` threads, started together, each opening and closing the store at `path` `each` times: what failed."""
    start = threading.Barrier(threads)
    failures: list[BaseException] = []

    def open_and_close() -> None:
        start.wait()
        for _ in range(each):
            try:
                open_store(path).close()
            except BaseException as exc:
                failures.append(exc)

    running = [threading.Thread(target=open_and_close) for _ in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join()
    return failures


def test_openings_and_closings_on_threads_at_once_never_fail(tmp_path: Path) -> None:
    """A connection closed on one thread removes the -wal and -shm files while another thread opens the store and
    checks their mode: that check failed with "cannot create ...: No such file or directory" (this test failed in
    3 runs of 3 before the fix, and the migration test below once in a full run under load)."""
    path = tmp_path / "s.sqlite3"
    open_store(path).close()
    assert openings_on_threads(path, threads=6, each=200) == []


def test_connections_opening_a_new_store_at_once_migrate_it_once(tmp_path: Path) -> None:
    """The desktop's connect jobs (server and client) open the store at the same moment; one of them used to
    find the other's migration done under it ("duplicate column name: admin_config") when the machine was busy."""
    for attempt in range(10):
        path = tmp_path / f"s{attempt}.sqlite3"
        assert openings_on_threads(path, threads=6, each=1) == []
        conn = open_store(path)
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def journal_rows(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT host, target FROM journal").fetchall()
    conn.close()
    return rows


def test_a_lowered_user_version_is_a_clear_error_and_nothing_is_lost(tmp_path: Path) -> None:
    """Migrations run again over tables that are already there: "table already exists" was a traceback."""
    path = tmp_path / "s.sqlite3"
    journal = Journal(open_store(path))
    journal.record("root@nas:22", "file", "/etc/exports", original=b"before\n")
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 3")
    conn.close()
    with pytest.raises(
        StoreError, match=r"says schema 3, but moving it to schema \d+ failed .*changed outside nfstune"
    ):
        open_store(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3  # every migration rolled back together
    conn.close()
    assert journal_rows(path) == [("root@nas:22", "/etc/exports")]
    assert not list(tmp_path.glob("*.bak"))  # the file is as it was: the copy made before trying is not kept


def test_a_missing_table_is_named_and_the_file_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    Journal(open_store(path)).record("root@nas:22", "file", "/etc/exports", original=b"before\n")
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE samples")
    conn.close()
    with pytest.raises(StoreError, match=r"the table samples of schema \d+ is missing"):
        open_store(path)
    assert journal_rows(path) == [("root@nas:22", "/etc/exports")]


def test_a_data_folder_that_is_a_dangling_symlink_is_named(tmp_path: Path) -> None:
    gone = tmp_path / "usb-disk" / "nfstune"
    (tmp_path / "data").symlink_to(gone)
    with pytest.raises(StoreError, match=rf"{tmp_path / 'data'} is a symbolic link to {gone}, which does not exist"):
        open_store(tmp_path / "data" / "nfstune.sqlite3")
    assert not (tmp_path / "usb-disk").exists()
