"""Sessions, runs, repeats and samples: every measurement nfstune makes, with its raw tool output, and the
session export to CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from nfstune.store import pair_sessions
from nfstune.store.pair_sessions import HostPair
from nfstune.store.stored import RawRows, StoredSession

REPEAT_FIELDS = (
    "tool",
    "bytes",
    "seconds",
    "mb_per_s",
    "ops",
    "ops_per_s",
    "lat_mean_us",
    "lat_p50_us",
    "lat_p99_us",
    "wire_bytes",
    "steady_mb_per_s",
    "raw_output",
)

CLIENT_SHARE_FIELDS = (
    "client",
    "bytes",
    "seconds",
    "mb_per_s",
    "ops",
    "ops_per_s",
    "lat_mean_us",
    "lat_p50_us",
    "lat_p99_us",
)
WRITEBACK_FIELDS = ("host", "found_kib", "left_kib", "seconds", "limit_s", "limit_hit")


@dataclass(frozen=True)
class SessionRow:
    id: int
    started_at: float
    ended_at: float | None
    status: str
    share: str
    scale: str
    recipes: list[str]
    server: str | None
    client: str | None
    message: str | None


INTERRUPTED = "interrupted: nfstune stopped while this session ran (its changes are undone at the next connect)"


def process_runs(pid: int | None, started_at: float) -> bool:
    """Whether the process that started a session at `started_at` still runs: its pid exists and is at least as
    old as the session (a pid reused after a restart is younger). A session without a pid (stored before nfstune
    kept them) counts as gone."""
    if pid is None:
        return False
    try:
        return psutil.Process(pid).create_time() <= started_at + 1
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:  # another user's process: it may be the one, so it is left alone
        return True


class Results:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    # --- writing --------------------------------------------------------------------------------------------

    def upsert_host(self, key: str, label: str, facts_json: str | None) -> int:
        self._conn.execute(
            "INSERT INTO hosts (key, label, facts, probed_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET label = excluded.label, facts = excluded.facts, "
            "probed_at = excluded.probed_at",
            (key, label, facts_json, time.time()),
        )
        return int(self._conn.execute("SELECT id FROM hosts WHERE key = ?", (key,)).fetchone()[0])

    def start_session(
        self,
        *,
        server_host: int | None,
        client_host: int | None,
        share: str,
        scale: str,
        recipes: Sequence[str],
        server_facts: str | None = None,
        client_facts: str | None = None,
        plan: str | None = None,
    ) -> int:
        """`plan`: recipes.plan_text.plan_json of the plan the session runs (its repeats are then paired by round)."""
        cur = self._conn.execute(
            "INSERT INTO sessions (started_at, server_host, client_host, share, scale, recipes, server_facts, "
            "client_facts, plan, pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                time.time(),
                server_host,
                client_host,
                share,
                scale,
                json.dumps(list(recipes)),
                server_facts,
                client_facts,
                plan,
                os.getpid(),
            ),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def mark_interrupted(self, running: Callable[[int | None, float], bool] | None = None) -> list[int]:
        """Sessions still "running" whose process is gone (killed, crashed, the machine powered off) become
        failed, saying they were interrupted; returns their ids. `running(pid, started_at)`: whether the session's
        process still runs (default: that pid exists and started before the session did)."""
        running = running or process_runs
        rows = self._conn.execute("SELECT id, pid, started_at FROM sessions WHERE status = 'running'").fetchall()
        gone = [row[0] for row in rows if not running(row[1], row[2])]
        for session_id in gone:
            self._conn.execute(
                "UPDATE sessions SET status = 'failed', message = ? WHERE id = ?", (INTERRUPTED, session_id)
            )
        return gone

    def past_runs(self, server_key: str, client_key: str, scale: str) -> list[tuple[str, float, int, bool]]:
        """(recipe id, seconds, rounds, on this pair of hosts) of every completed run at this scale, newest first:
        from a recipe's first run to its last repeat's end, the session's ceilings left out. What the Recipes
        page's estimate is made from (recipes.estimate): these hosts' own pace, and the rounds a recipe took."""
        rows = self._conn.execute(
            "SELECT s.id, r.recipe, MIN(r.started_at), MAX(p.started_at + COALESCE(p.seconds, 0)), MAX(p.number), "
            "hs.key = ? AND hc.key = ? "
            "FROM sessions s JOIN hosts hs ON hs.id = s.server_host JOIN hosts hc ON hc.id = s.client_host "
            "JOIN runs r ON r.session_id = s.id JOIN repeats p ON p.run_id = r.id "
            "WHERE s.status = 'completed' AND s.scale = ? "
            "GROUP BY s.id, r.recipe ORDER BY s.id DESC, MIN(r.started_at) DESC",
            (server_key, client_key, scale),
        ).fetchall()
        return [
            (recipe, max(0.0, last - first), int(rounds), bool(here))
            for _sid, recipe, first, last, rounds, here in rows
        ]

    def keep_admin_config(self, session_id: int, config_json: str) -> None:
        """The admin's configuration a session's recommendation starts from (workflow.keep_current)."""
        self._conn.execute("UPDATE sessions SET admin_config = ? WHERE id = ?", (config_json, session_id))

    def link_check(self, check_id: int, session_id: int) -> None:
        """`check_id` is a check of `session_id`'s applied recommendation (`nfstune check`)."""
        self._conn.execute("UPDATE sessions SET checks = ? WHERE id = ?", (session_id, check_id))

    def keep_check_outcome(self, check_id: int, outcome_json: str) -> None:
        self._conn.execute("UPDATE sessions SET check_outcome = ? WHERE id = ?", (outcome_json, check_id))

    def checks_of(self, session_id: int) -> list[tuple[int, float, dict[str, Any] | None]]:
        """(check session, when it started, its outcome or None while it has none) of every check of
        `session_id`, oldest first."""
        rows = self._conn.execute(
            "SELECT id, started_at, check_outcome FROM sessions WHERE checks = ? ORDER BY id", (session_id,)
        ).fetchall()
        return [(r[0], r[1], json.loads(r[2]) if r[2] else None) for r in rows]

    def end_session(self, session_id: int, status: str, message: str | None = None) -> None:
        self._conn.execute(
            "UPDATE sessions SET ended_at = ?, status = ?, message = ? WHERE id = ?",
            (time.time(), status, message, session_id),
        )

    def start_run(
        self, session_id: int, *, recipe: str, config_label: str, config: dict[str, Any], workload: str
    ) -> int:
        cur = self._conn.execute(
            "INSERT INTO runs (session_id, recipe, config_label, config, workload, started_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (session_id, recipe, config_label, json.dumps(config, sort_keys=True), workload, time.time()),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def set_run_options(
        self, run_id: int, *, requested: str | None, negotiated: str | None, export: str | None
    ) -> None:
        self._conn.execute(
            "UPDATE runs SET requested_options = ?, negotiated_options = ?, export_options = ? WHERE id = ?",
            (requested, negotiated, export, run_id),
        )

    def end_run(self, run_id: int, status: str) -> None:
        self._conn.execute("UPDATE runs SET ended_at = ?, status = ? WHERE id = ?", (time.time(), status, run_id))

    def add_repeat(self, run_id: int, number: int, *, warmup: bool, values: dict[str, Any]) -> int:
        unknown = set(values) - set(REPEAT_FIELDS)
        if unknown:
            raise ValueError(f"unknown repeat fields: {sorted(unknown)}")
        cols = ["run_id", "number", "warmup", "started_at", *values]
        params = [run_id, number, int(warmup), time.time(), *values.values()]
        cur = self._conn.execute(
            f"INSERT INTO repeats ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", params
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def add_repeat_clients(self, repeat_id: int, shares: Iterable[Mapping[str, Any]]) -> None:
        """Each client's part of a repeat from several clients at once (bench.figure.client_shares)."""
        self._conn.executemany(
            f"INSERT INTO repeat_clients (repeat_id, {', '.join(CLIENT_SHARE_FIELDS)}) "
            f"VALUES (?, {', '.join('?' * len(CLIENT_SHARE_FIELDS))})",
            ([repeat_id, *(share.get(name) for name in CLIENT_SHARE_FIELDS)] for share in shares),
        )

    def add_repeat_writeback(self, repeat_id: int, waits: Iterable[Mapping[str, Any]]) -> None:
        """Each host's wait for its writeback before the repeat's run (bench.writeback.WritebackWait.record)."""
        self._conn.executemany(
            f"INSERT INTO repeat_writeback (repeat_id, {', '.join(WRITEBACK_FIELDS)}) "
            f"VALUES (?, {', '.join('?' * len(WRITEBACK_FIELDS))})",
            ([repeat_id, *(wait[name] for name in WRITEBACK_FIELDS)] for wait in waits),
        )

    def add_samples(self, run_id: int, host: str, rows: Iterable[tuple[str, float, float]]) -> None:
        """rows: (series, t, value). One transaction for the batch (samples arrive every second)."""
        self._conn.execute("BEGIN")
        try:
            self._conn.executemany(
                "INSERT INTO samples (run_id, host, series, t, value) VALUES (?, ?, ?, ?, ?)",
                ((run_id, host, series, t, value) for series, t, value in rows),
            )
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise

    def add_baseline(
        self, session_id: int, *, kind: str, direction: str, mb_per_s: float, seconds: float, size: int, raw: str
    ) -> None:
        self._conn.execute(
            "INSERT INTO baselines (session_id, kind, direction, mb_per_s, seconds, bytes, raw_output, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, kind, direction, mb_per_s, seconds, size, raw, time.time()),
        )

    def add_latency(
        self,
        session_id: int,
        *,
        kind: str,
        tool: str,
        mean_ms: float,
        median_ms: float | None,
        min_ms: float | None,
        max_ms: float | None,
        count: int,
        raw_output: str,
    ) -> None:
        self._conn.execute(
            "INSERT INTO latencies (session_id, kind, tool, mean_ms, median_ms, min_ms, max_ms, count, raw_output, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, kind, tool, mean_ms, median_ms, min_ms, max_ms, count, raw_output, time.time()),
        )

    def add_hand_step(
        self,
        session_id: int,
        *,
        recipe: str,
        kind: str,
        block: int | None,
        config_label: str | None,
        prompt: str | None,
        asked_at: float | None,
        answered_at: float | None,
        answer: str | None,
    ) -> None:
        """One step of a guided hand change (db.py's hand_steps)."""
        self._conn.execute(
            "INSERT INTO hand_steps (session_id, recipe, kind, block, config_label, prompt, asked_at, answered_at, "
            "answer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, recipe, kind, block, config_label, prompt, asked_at, answered_at, answer),
        )

    # --- reading --------------------------------------------------------------------------------------------

    def sessions(self) -> list[SessionRow]:
        rows = self._conn.execute(
            "SELECT s.id, s.started_at, s.ended_at, s.status, s.share, s.scale, s.recipes, hs.label, hc.label, "
            "s.message FROM sessions s LEFT JOIN hosts hs ON hs.id = s.server_host "
            "LEFT JOIN hosts hc ON hc.id = s.client_host ORDER BY s.id DESC"
        ).fetchall()
        return [SessionRow(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7], r[8], r[9]) for r in rows]

    def session(self, session_id: int) -> dict[str, Any]:
        """Everything about one session as plain data (what the JSON export writes)."""
        row = self._conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise KeyError(f"no session {session_id}")
        names = [d[0] for d in self._conn.execute("SELECT * FROM sessions LIMIT 0").description]
        data = dict(zip(names, row, strict=True))
        data["recipes"] = json.loads(data["recipes"])
        shares: dict[int, list[dict[str, Any]]] = {}
        for share in self._rows(
            f"SELECT c.repeat_id, {', '.join('c.' + name for name in CLIENT_SHARE_FIELDS)} FROM repeat_clients c "
            "JOIN repeats p ON p.id = c.repeat_id JOIN runs r ON r.id = p.run_id WHERE r.session_id = ? "
            "ORDER BY c.rowid",
            (session_id,),
        ):
            shares.setdefault(share.pop("repeat_id"), []).append(share)
        waits: dict[int, list[dict[str, Any]]] = {}
        for wait in self._rows(
            f"SELECT w.repeat_id, {', '.join('w.' + name for name in WRITEBACK_FIELDS)} FROM repeat_writeback w "
            "JOIN repeats p ON p.id = w.repeat_id JOIN runs r ON r.id = p.run_id WHERE r.session_id = ? "
            "ORDER BY w.rowid",
            (session_id,),
        ):
            waits.setdefault(wait.pop("repeat_id"), []).append(wait)
        runs = []
        for run in self._rows("SELECT * FROM runs WHERE session_id = ? ORDER BY id", (session_id,)):
            run["config"] = json.loads(run["config"])
            run["repeats"] = self._rows("SELECT * FROM repeats WHERE run_id = ? ORDER BY number", (run["id"],))
            for rep in run["repeats"]:
                if rep["id"] in shares:  # a repeat from several clients at once: each one's part
                    rep["clients"] = shares[rep["id"]]
                if rep["id"] in waits:  # each host's writeback before the run (none before nfstune waited)
                    rep["writeback"] = waits[rep["id"]]
            runs.append(run)
        data["runs"] = runs
        data["baselines"] = self._rows("SELECT * FROM baselines WHERE session_id = ? ORDER BY id", (session_id,))
        data["latencies"] = self._rows("SELECT * FROM latencies WHERE session_id = ? ORDER BY id", (session_id,))
        data["hand_steps"] = self._rows("SELECT * FROM hand_steps WHERE session_id = ? ORDER BY id", (session_id,))
        return data

    def stored_session(self, session_id: int) -> StoredSession:
        """One session as typed records, its JSON columns parsed once (stored.py)."""
        return StoredSession.of(self.session(session_id))

    def raw_rows(self, session_id: int) -> RawRows:
        data = self.session(session_id)
        return RawRows(data["runs"], data["baselines"], data["latencies"])

    def host_pairs(self) -> list[HostPair]:
        """Every server, client and share with a completed session, the one used last first."""
        return pair_sessions.host_pairs(self._conn)

    def pair_of(self, session_id: int) -> HostPair | None:
        return pair_sessions.pair_of(self._conn, session_id)

    def pair_sessions(self, pair: HostPair, until: int | None = None, last: int | None = None) -> list[dict[str, Any]]:
        """The pair's completed sessions oldest first, with what a trend of their figures reads (runs, options,
        counted repeats; no raw output); `until`: up to that session; `last`: the newest that many."""
        return pair_sessions.pair_sessions(self._conn, pair, until, last)

    def last_session(self, pair: HostPair) -> tuple[int, float, str] | None:
        """The pair's newest session, completed or not: (id, start, status)."""
        return pair_sessions.last_session(self._conn, pair)

    def samples(self, run_id: int, host: str, series: str) -> list[tuple[float, float]]:
        return [
            (t, v)
            for t, v in self._conn.execute(
                "SELECT t, value FROM samples WHERE run_id = ? AND host = ? AND series = ? ORDER BY t",
                (run_id, host, series),
            )
        ]

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        cur = self._conn.execute(sql, params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    # --- export ---------------------------------------------------------------------------------------------

    def export_json(self, session_id: int, path: Path) -> None:
        path.write_text(self.json_text(session_id))

    def json_text(self, session_id: int) -> str:
        data = self.session(session_id)
        # an export is made to be sent: the server's whole exports files and the client's whole fstab (which can
        # hold credentials) stay in the private store; the report quotes only the share's own lines
        data.pop("admin_config", None)
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    def export_csv(self, session_id: int, path: Path) -> None:
        path.write_text(self.csv_text(session_id), newline="")

    def csv_text(self, session_id: int) -> str:
        """One row per repeat, with its run's recipe, configuration and options."""
        data = self.session(session_id)
        header = [
            "session",
            "recipe",
            "config",
            "workload",
            "requested_options",
            "negotiated_options",
            "export_options",
            "repeat",
            "warmup",
            *REPEAT_FIELDS[:-1],
        ]
        f = io.StringIO(newline="")
        out = csv.writer(f)
        out.writerow(header)
        for run in data["runs"]:
            for rep in run["repeats"]:
                out.writerow(
                    [
                        session_id,
                        run["recipe"],
                        run["config_label"],
                        run["workload"],
                        run["requested_options"],
                        run["negotiated_options"],
                        run["export_options"],
                        rep["number"],
                        rep["warmup"],
                    ]
                    + [rep[k] for k in REPEAT_FIELDS[:-1]]
                )
        return f.getvalue()
