"""The pairs of hosts and shares the store has sessions of, and one pair's completed sessions oldest first, with
what a trend of their figures needs (results/trend.py): each run's options and configuration and its counted repeats'
figure columns, and the ceilings measured before the runs (results/watch.py), in the shape Results.session() gives
them. Five queries whatever the number of sessions, and without the raw tool output, which is most of a session's
bytes and which no figure is read from."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

# the repeat columns bench.figure.repeat_figures() reads, with the round number (the repeat's number) and warm-up flag
FIGURE_COLUMNS = (
    "number",
    "warmup",
    "tool",
    "bytes",
    "seconds",
    "mb_per_s",
    "ops",
    "ops_per_s",
    "lat_mean_us",
    "lat_p50_us",
    "lat_p99_us",
    "steady_mb_per_s",
)
RUN_COLUMNS = (
    "id",
    "session_id",
    "recipe",
    "config_label",
    "config",
    "workload",
    "requested_options",
    "negotiated_options",
    "export_options",
    "status",
)
SESSION_COLUMNS = ("id", "started_at", "ended_at", "status", "share", "scale", "recipes", "plan")
# a session's facts as they were for it (the hosts table keeps only the last probe)
FACTS_COLUMNS = ("server_facts", "client_facts")
# the ceilings a session measured, as results.ceilings.ceilings_of reads them (a watch's canaries)
CEILING_COLUMNS = {
    "baselines": ("kind", "direction", "mb_per_s"),
    "latencies": ("kind", "tool", "mean_ms", "median_ms", "count"),
}


@dataclass(frozen=True)
class HostPair:
    """A server, a client and a share that sessions ran on: hosts by their key (user@hostname:port), which stays
    when a label is renamed."""

    server_key: str
    server: str  # the label, as History shows it
    client_key: str
    client: str
    share: str
    sessions: int  # completed sessions of this pair
    last_started_at: float

    @property
    def key(self) -> tuple[str, str, str]:
        """What tells two pairs apart (the counts and times change as sessions are added)."""
        return self.server_key, self.client_key, self.share

    @property
    def text(self) -> str:
        return f"{self.server} → {self.client}: {self.share}"


_PAIR_SELECT = (
    "SELECT hs.key, hs.label, hc.key, hc.label, s.share, COUNT(*), MAX(s.started_at) FROM sessions s "
    "JOIN hosts hs ON hs.id = s.server_host JOIN hosts hc ON hc.id = s.client_host "
)


def host_pairs(conn: sqlite3.Connection) -> list[HostPair]:
    """Every pair with a completed session, the one used last first."""
    rows = conn.execute(
        _PAIR_SELECT + "WHERE s.status = 'completed' "
        "GROUP BY s.server_host, s.client_host, s.share ORDER BY MAX(s.started_at) DESC, MAX(s.id) DESC"
    ).fetchall()
    return [HostPair(*row) for row in rows]


def pair_of(conn: sqlite3.Connection, session_id: int) -> HostPair | None:
    """The pair a session ran on, with the count of its completed sessions; None for a session without both hosts
    (or no such session)."""
    row = conn.execute(
        "SELECT hs.key, hs.label, hc.key, hc.label, s.share FROM sessions s "
        "JOIN hosts hs ON hs.id = s.server_host JOIN hosts hc ON hc.id = s.client_host WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    count, last = conn.execute(
        "SELECT COUNT(*), MAX(s.started_at) FROM sessions s JOIN hosts hs ON hs.id = s.server_host "
        "JOIN hosts hc ON hc.id = s.client_host "
        "WHERE s.status = 'completed' AND hs.key = ? AND hc.key = ? AND s.share = ?",
        (row[0], row[2], row[4]),
    ).fetchone()
    server_key, server, client_key, client, share = row
    return HostPair(server_key, server, client_key, client, share, count, last if last is not None else 0.0)


def last_session(conn: sqlite3.Connection, pair: HostPair) -> tuple[int, float, str] | None:
    """The pair's newest session whatever became of it (id, start, status): a watch's last run, which may have
    failed."""
    row = conn.execute(
        "SELECT s.id, s.started_at, s.status FROM sessions s JOIN hosts hs ON hs.id = s.server_host "
        "JOIN hosts hc ON hc.id = s.client_host WHERE hs.key = ? AND hc.key = ? AND s.share = ? "
        "ORDER BY s.started_at DESC, s.id DESC LIMIT 1",
        pair.key,
    ).fetchone()
    return None if row is None else (int(row[0]), float(row[1]), str(row[2]))


def pair_sessions(
    conn: sqlite3.Connection, pair: HostPair, until: int | None = None, last: int | None = None
) -> list[dict[str, Any]]:
    """The pair's completed sessions, oldest first (by start, then id), each with its runs in the order they ran
    and each run's counted repeats (warm-ups left out) by round. `until`: only that session and those that started
    before it (a report's trend ends at its own session); `last`: only the newest that many of those."""
    where = "s.status = 'completed' AND hs.key = ? AND hc.key = ? AND s.share = ?"
    params: tuple[Any, ...] = (pair.server_key, pair.client_key, pair.share)
    if until is not None:
        where += " AND s.started_at <= (SELECT started_at FROM sessions WHERE id = ?)"
        params += (until,)
    chosen = (
        "SELECT s.id FROM sessions s JOIN hosts hs ON hs.id = s.server_host "
        f"JOIN hosts hc ON hc.id = s.client_host WHERE {where} ORDER BY s.started_at DESC, s.id DESC"
    )
    if last is not None:
        chosen += " LIMIT ?"
        params += (last,)
    sessions = _rows(
        conn,
        f"SELECT {', '.join(SESSION_COLUMNS + FACTS_COLUMNS)} FROM sessions WHERE id IN ({chosen}) "
        "ORDER BY started_at, id",
        params,
    )
    by_id = {s["id"]: s for s in sessions}
    for s in sessions:
        s["recipes"] = json.loads(s["recipes"])
        s["runs"] = []
        s["baselines"], s["latencies"] = [], []
    for table, columns in CEILING_COLUMNS.items():
        for row in _rows(
            conn,
            f"SELECT session_id, {', '.join(columns)} FROM {table} WHERE session_id IN ({chosen}) ORDER BY id",
            params,
        ):
            by_id[row.pop("session_id")][table].append(row)
    runs: dict[int, dict[str, Any]] = {}
    for run in _rows(
        conn,
        f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE session_id IN ({chosen}) ORDER BY id",
        params,
    ):
        run["config"] = json.loads(run["config"])
        run["repeats"] = []
        runs[run["id"]] = run
        by_id[run["session_id"]]["runs"].append(run)
    for repeat in _rows(
        conn,
        f"SELECT p.run_id, {', '.join('p.' + c for c in FIGURE_COLUMNS)} FROM repeats p "
        f"JOIN runs r ON r.id = p.run_id WHERE p.warmup = 0 AND r.session_id IN ({chosen}) ORDER BY p.run_id, "
        "p.number",
        params,
    ):
        runs[repeat.pop("run_id")]["repeats"].append(repeat)
    return sessions


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
