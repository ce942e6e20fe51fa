"""Open the store: WAL, foreign keys, `PRAGMA user_version` migrations (each in one transaction, a backup of the
file before the first one runs), and a refusal to open a file written by a newer nfstune."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from nfstune import paths
from nfstune.errors import NfstuneError

# Each migration is a list of statements, run in one transaction; never edit one that has shipped.
MIGRATIONS: list[list[str]] = [
    [
        """CREATE TABLE journal (
            id INTEGER PRIMARY KEY,
            host TEXT NOT NULL,            -- user@hostname:port of the host the change is on
            kind TEXT NOT NULL,            -- file | dir | mount | scratch | server_mount
            target TEXT NOT NULL,          -- the path it is about
            original BLOB,                 -- a file's bytes before the change (NULL: it did not exist)
            backup_path TEXT,              -- the copy of those bytes kept on the host itself
            detail TEXT NOT NULL DEFAULT '{}',
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'restored')),
            created_at REAL NOT NULL,
            restored_at REAL,
            pid INTEGER NOT NULL
        )""",
        "CREATE INDEX journal_pending ON journal (host, state)",
    ],
]
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(NfstuneError):
    pass


def default_path() -> Path:
    return paths.data_dir() / "nfstune.sqlite3"


def open_store(path: Path | None = None) -> sqlite3.Connection:
    path = path or default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    existed = path.exists() and path.stat().st_size > 0
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=10)  # transactions are explicit
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not an nfstune database ({exc}); move it aside to start afresh") from None
    if version > SCHEMA_VERSION:  # checked before anything (even WAL mode) touches the file
        conn.close()
        raise StoreError(
            f"{path} was written by a newer nfstune (schema {version}, this one knows {SCHEMA_VERSION}): "
            "update nfstune; the file was not changed"
        )
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    if version < SCHEMA_VERSION:
        if existed:
            backup = path.with_name(f"{path.name}.v{version}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
            with sqlite3.connect(backup) as copy:
                conn.backup(copy)
            copy.close()
        for number in range(version, SCHEMA_VERSION):
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in MIGRATIONS[number]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number + 1}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
    return conn
