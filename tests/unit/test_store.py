"""The SQLite store: migrations, a backup before migrating, refusal of a newer schema, and the journal."""

from __future__ import annotations

import sqlite3
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
