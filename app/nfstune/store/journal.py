"""The journal of changes made on hosts: written (and committed) before each change is made, marked restored
after it is undone. Whatever is still pending after a crash is undone at the next connect."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class JournalEntry:
    id: int
    host: str
    kind: str
    target: str
    original: bytes | None
    backup_path: str | None
    detail: dict[str, Any] = field(default_factory=dict)
    state: str = "pending"
    pid: int = 0
    created_at: float = 0.0


class Journal:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def record(
        self,
        host: str,
        kind: str,
        target: str,
        *,
        original: bytes | None = None,
        backup_path: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> int:
        """Journal a change about to be made; committed when this returns."""
        cur = self._conn.execute(
            "INSERT INTO journal (host, kind, target, original, backup_path, detail, created_at, pid) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (host, kind, target, original, backup_path, json.dumps(detail or {}), time.time(), os.getpid()),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def mark_restored(self, entry_id: int) -> None:
        self._conn.execute(
            "UPDATE journal SET state = 'restored', restored_at = ? WHERE id = ?", (time.time(), entry_id)
        )

    def pending(self, host: str | None = None) -> list[JournalEntry]:
        """Changes not yet undone, newest first (the order to undo them in)."""
        sql = "SELECT id, host, kind, target, original, backup_path, detail, state, pid FROM journal "
        sql += "WHERE state = 'pending'" + (" AND host = ?" if host else "") + " ORDER BY id DESC"
        rows = self._conn.execute(sql, (host,) if host else ()).fetchall()
        return [JournalEntry(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7], r[8]) for r in rows]

    def committed(self, hosts: Sequence[str]) -> list[JournalEntry]:
        """Changes made for good on these hosts (applied recommendations), newest first."""
        marks = ",".join("?" * len(hosts))
        rows = self._conn.execute(
            "SELECT id, host, kind, target, original, backup_path, detail, state, pid, created_at FROM journal "
            f"WHERE state = 'committed' AND host IN ({marks}) ORDER BY id DESC",
            tuple(hosts),
        ).fetchall()
        return [JournalEntry(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7], r[8], r[9]) for r in rows]

    def applied_sessions(self) -> set[int]:
        """The sessions whose recommendation an Apply still in force wrote (Apply keeps its session since
        `nfstune check`): those History offers to check."""
        rows = self._conn.execute(
            "SELECT DISTINCT json_extract(detail, '$.session') FROM journal WHERE state = 'committed' "
            "AND json_extract(detail, '$.apply') AND json_extract(detail, '$.session') IS NOT NULL"
        ).fetchall()
        return {int(r[0]) for r in rows}

    def mark_committed(self, entry_ids: Sequence[int]) -> None:
        """These changes were made for good (an applied recommendation): never to be undone. One statement, so
        all or none; restored_at holds the time of the commit."""
        if not entry_ids:
            return
        marks = ",".join("?" * len(entry_ids))
        self._conn.execute(
            f"UPDATE journal SET state = 'committed', restored_at = ? WHERE id IN ({marks})",
            (time.time(), *entry_ids),
        )
