"""The results database in odd states, as `nfstune` meets them: locked by another program, not SQLite, of a schema
lowered by hand. Each is exit 2 with a message naming the file, and the file is left as it was (its mode too)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nfstune.store import Results, open_store
from tests.unit.test_cli import nfstune


def database(tmp_path: Path) -> Path:
    return tmp_path / "data" / "nfstune" / "nfstune.sqlite3"


def a_session_left_running(tmp_path: Path) -> int:
    """A session whose process is gone: `history` marks it interrupted, a write."""
    conn = open_store(database(tmp_path))
    sid = Results(conn).start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    conn.execute("UPDATE sessions SET pid = ? WHERE id = ?", (2**31 - 1, sid))  # above pid_max: no such process
    conn.close()
    return sid


HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_database_another_program_holds_is_named_after_a_bounded_wait(tmp_path: Path) -> None:
    a_session_left_running(tmp_path)
    path = database(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        started = time.monotonic()
        result = nfstune(tmp_path, "history")
        waited = time.monotonic() - started
    finally:
        holder.communicate("", timeout=10)
    assert result.returncode == 2, result.stderr
    assert f"nfstune: error: {path} is in use by another program" in result.stderr
    assert "Traceback" not in result.stderr and waited < 30


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_text("these are notes, not a database\n" * 100), "is not an nfstune database"),
        (lambda p: os.mkfifo(p), "is not a regular file but a named pipe (FIFO)"),
        (lambda p: p.mkdir(), "is not a regular file but a folder"),
    ],
    ids=["text", "fifo", "folder"],
)
def test_a_file_that_is_not_a_database_is_refused_and_left_as_it_was(
    tmp_path: Path, make: object, message: str
) -> None:
    path = database(tmp_path)
    path.parent.mkdir(parents=True)
    assert callable(make)
    make(path)
    path.chmod(0o755 if path.is_dir() else 0o644)
    before = (mode(path), path.stat().st_size)
    result = nfstune(tmp_path, "history")
    assert result.returncode == 2 and f"nfstune: error: {path} {message}" in result.stderr, result.stderr
    assert (mode(path), path.stat().st_size) == before  # not even made private: it is not nfstune's
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_a_lowered_user_version_is_refused_each_time_without_a_copy_each_time(tmp_path: Path) -> None:
    a_session_left_running(tmp_path)
    path = database(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 3")
    conn.close()
    before = path.read_bytes()
    for _ in range(2):
        result = nfstune(tmp_path, "history")
        assert result.returncode == 2 and f"{path}: says schema 3" in result.stderr, result.stderr
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir() if ".bak" in p.name) == []


def test_a_store_readable_by_all_is_made_private_but_never_writable(tmp_path: Path) -> None:
    """0444: group and others lose their access; the owner does not gain the write access it was denied."""
    a_session_left_running(tmp_path)
    path = database(tmp_path)
    path.chmod(0o444)
    nfstune(tmp_path, "history")
    assert mode(path) == 0o400
