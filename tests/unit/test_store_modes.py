"""The store holds verbatim copies of /etc/fstab (which can carry credentials): the database, its -wal and -shm
files, its migration backups and a folder nfstune creates are the user's alone, whatever the umask."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.store import Journal, open_store


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_a_new_store_and_its_folder_are_private(tmp_path: Path, permissive_umask: None) -> None:
    path = tmp_path / "new folder" / "s.sqlite3"
    conn = open_store(path)
    Journal(conn).record("root@nas:22", "file", "/etc/fstab", original=b"//nas/x /mnt cifs password=hunter2 0 0\n")
    files = sorted(path.parent.iterdir())
    assert [p.name for p in files] == ["s.sqlite3", "s.sqlite3-shm", "s.sqlite3-wal"]  # WAL files exist now
    assert {p.name: mode(p) for p in files} == dict.fromkeys(["s.sqlite3", "s.sqlite3-shm", "s.sqlite3-wal"], 0o600)
    assert mode(path.parent) == 0o700
    conn.close()


def test_a_migration_backup_is_private_and_an_old_store_is_tightened(tmp_path: Path, permissive_umask: None) -> None:
    path = tmp_path / "s.sqlite3"
    with sqlite3.connect(path) as old:  # as an older nfstune left it: 0644
        old.execute("CREATE TABLE keepme (x)")
    old.close()
    assert mode(path) == 0o644
    open_store(path).close()
    (backup,) = tmp_path.glob("s.sqlite3.v0.*.bak")
    assert (mode(path), mode(backup)) == (0o600, 0o600)
    assert all(mode(p) == 0o600 for p in tmp_path.iterdir())
