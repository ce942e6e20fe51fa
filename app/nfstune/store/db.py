"""Open the store: WAL, foreign keys, `PRAGMA user_version` migrations (all in one transaction, a backup of the
file before they run), and a refusal to open a file written by a newer nfstune. The file itself (its folder, its
kind, its mode, SQLite's errors about it): store/files.py."""

from __future__ import annotations

import functools
import sqlite3
import threading
import time
from pathlib import Path

from nfstune import paths
from nfstune.store.files import (
    BUSY_SECONDS,
    StoreError,
    create,
    existing,
    failure,
    make_folder,
    make_private,
    read_only_message,
    writable,
)

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
    [
        """CREATE TABLE hosts (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,      -- user@hostname:port
            label TEXT NOT NULL,
            facts TEXT,                    -- HostFacts JSON of the last probe
            probed_at REAL
        )""",
        """CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            started_at REAL NOT NULL,
            ended_at REAL,
            status TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'completed', 'cancelled', 'failed')),
            server_host INTEGER REFERENCES hosts (id),
            client_host INTEGER REFERENCES hosts (id),
            share TEXT NOT NULL,
            scale TEXT NOT NULL,
            recipes TEXT NOT NULL,         -- JSON list of recipe ids
            server_facts TEXT,             -- the facts as they were for this session
            client_facts TEXT,
            message TEXT                   -- why it failed or was cancelled
        )""",
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            recipe TEXT NOT NULL,
            config_label TEXT NOT NULL,
            config TEXT NOT NULL,          -- JSON: the changes of this configuration
            workload TEXT NOT NULL,
            requested_options TEXT,        -- mount options asked for
            negotiated_options TEXT,       -- as read back from /proc/mounts
            export_options TEXT,           -- as exportfs -s showed them
            status TEXT NOT NULL DEFAULT 'running',
            started_at REAL NOT NULL,
            ended_at REAL
        )""",
        """CREATE TABLE repeats (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            warmup INTEGER NOT NULL DEFAULT 0,
            tool TEXT NOT NULL,
            bytes INTEGER,
            seconds REAL,
            mb_per_s REAL,
            ops INTEGER,
            ops_per_s REAL,
            lat_mean_us REAL,
            lat_p50_us REAL,
            lat_p99_us REAL,
            wire_bytes INTEGER,            -- bytes the client's mountstats counted for the repeat
            raw_output TEXT,
            started_at REAL NOT NULL
        )""",
        """CREATE TABLE samples (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            host TEXT NOT NULL,            -- server | client | local
            series TEXT NOT NULL,          -- e.g. nfs_read_Bps, disk_write_Bps:vdb, cpu_pct
            t REAL NOT NULL,
            value REAL NOT NULL
        )""",
        "CREATE INDEX samples_run ON samples (run_id, series, t)",
        "CREATE INDEX runs_session ON runs (session_id)",
        "CREATE INDEX repeats_run ON repeats (run_id)",
    ],
    [
        """CREATE TABLE baselines (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,            -- network | disk
            direction TEXT NOT NULL,       -- network: to-server | from-server; disk: write | read
            mb_per_s REAL NOT NULL,
            seconds REAL NOT NULL,
            bytes INTEGER NOT NULL,
            raw_output TEXT,
            created_at REAL NOT NULL
        )""",
        "CREATE INDEX baselines_session ON baselines (session_id)",
    ],
    [
        # a third journal state: 'committed', a change made for good (an applied recommendation), never undone.
        # SQLite cannot alter a CHECK constraint: the table is rebuilt with its rows.
        """CREATE TABLE journal_v4 (
            id INTEGER PRIMARY KEY,
            host TEXT NOT NULL,
            kind TEXT NOT NULL,
            target TEXT NOT NULL,
            original BLOB,
            backup_path TEXT,
            detail TEXT NOT NULL DEFAULT '{}',
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'restored', 'committed')),
            created_at REAL NOT NULL,
            restored_at REAL,
            pid INTEGER NOT NULL
        )""",
        "INSERT INTO journal_v4 SELECT * FROM journal",
        "DROP TABLE journal",
        "ALTER TABLE journal_v4 RENAME TO journal",
        "CREATE INDEX journal_pending ON journal (host, state)",
    ],
    [
        # a session run in rounds keeps its plan (seed, rounds, visit order; NULL before): its repeats are paired
        # by round (repeats.number); sequential figures keep their steady-state rate besides bytes over time
        "ALTER TABLE sessions ADD COLUMN plan TEXT",
        "ALTER TABLE repeats ADD COLUMN steady_mb_per_s REAL",
    ],
    [
        # the process that runs a session: one left "running" by a process that is gone was interrupted
        "ALTER TABLE sessions ADD COLUMN pid INTEGER",
    ],
    [
        # the admin's own configuration as read after the session's changes were undone (the server's exports
        # files, the client's /etc/fstab, the server's address as the client mounts it; JSON): a report written
        # later holds the same recommendation as the desktop showed
        "ALTER TABLE sessions ADD COLUMN admin_config TEXT",
    ],
    [
        # a repeat from several clients at once keeps the aggregate in repeats (its figure) and each client's own
        # part here: its share, the fairness between them, its own latency
        """CREATE TABLE repeat_clients (
            repeat_id INTEGER NOT NULL REFERENCES repeats (id) ON DELETE CASCADE,
            client TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            seconds REAL NOT NULL,
            mb_per_s REAL NOT NULL,
            ops INTEGER NOT NULL,
            ops_per_s REAL NOT NULL,
            lat_mean_us REAL,
            lat_p99_us REAL,
            PRIMARY KEY (repeat_id, client)
        )""",
    ],
    [
        # the latency ceilings of synchronous writes and metadata operations, measured with the baselines: rows of
        # their own, as they are in ms where a baseline is in MB/s (session/latency.py, results/latencies.py)
        """CREATE TABLE latencies (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            kind TEXT NOT NULL,            -- round-trip (the network, ping) | sync-write (the server's disk, dd)
            tool TEXT NOT NULL,            -- ping | dd
            mean_ms REAL NOT NULL,         -- per operation
            median_ms REAL,                -- NULL: the tool timed only the whole run (dd)
            min_ms REAL,
            max_ms REAL,
            count INTEGER NOT NULL,        -- operations timed
            raw_output TEXT,
            created_at REAL NOT NULL
        )""",
        "CREATE INDEX latencies_session ON latencies (session_id)",
    ],
    [
        # before every timed run each host's writeback was waited for (bench/writeback.py): what it had to write
        # back, what was left and how long it took; a run that started at the limit says so in its details
        """CREATE TABLE repeat_writeback (
            repeat_id INTEGER NOT NULL REFERENCES repeats (id) ON DELETE CASCADE,
            host TEXT NOT NULL,            -- server | client | client2 ...
            found_kib INTEGER NOT NULL,    -- Dirty + Writeback in /proc/meminfo before nfstune flushed
            left_kib INTEGER NOT NULL,     -- when the wait ended
            seconds REAL NOT NULL,         -- the flush and the wait
            limit_s REAL NOT NULL,
            limit_hit INTEGER NOT NULL,    -- 1: the run started with the host still writing back
            PRIMARY KEY (repeat_id, host)
        )""",
    ],
    [
        # sync-4k is judged by its typical write (bench/figure.py): each client's own p50 beside its p99 (a repeat
        # from several clients keeps in repeats.lat_p50_us and lat_p99_us those of all their writes, read from
        # their merged histogram). Rows stored before stay NULL: such a session is judged by its mean, and says so
        "ALTER TABLE repeat_clients ADD COLUMN lat_p50_us REAL",
    ],
    [
        # a guided hand change (session/hand_rounds.py): each block, what the admin was asked before it and when,
        # and at the end how the admin chose to leave the NAS; what the report says was changed by hand and when
        """CREATE TABLE hand_steps (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            recipe TEXT NOT NULL,
            kind TEXT NOT NULL,            -- block (one block of rounds) | leave (how the NAS is left at the end)
            block INTEGER,                 -- 0-based; NULL for leave
            config_label TEXT,             -- the block's configuration; for leave, the one the NAS is left with
            prompt TEXT,                   -- what the admin was asked before it; NULL for the first block
            asked_at REAL,
            answered_at REAL,
            answer TEXT                    -- continue | stop | as-it-was | with-change; NULL: not asked
        )""",
        "CREATE INDEX hand_steps_session ON hand_steps (session_id)",
    ],
    [
        # a check that an applied recommendation held (`nfstune check`) is a session of its own: the session whose
        # recommendation it checks, and its outcome (JSON: the headline, each workload's decision, the settings
        # verified and the ceilings that moved), which that session's report names
        "ALTER TABLE sessions ADD COLUMN checks INTEGER",
        "ALTER TABLE sessions ADD COLUMN check_outcome TEXT",
    ],
]
SCHEMA_VERSION = len(MIGRATIONS)


def default_path() -> Path:
    return paths.data_dir() / "nfstune.sqlite3"


# One opening at a time in this process: the desktop's connect jobs open the store on two threads at once, and
# SQLite answers a journal-mode switch or a migration racing another one with "database is locked" at once,
# whatever the busy timeout (seen under load in the suite). Other processes are kept apart by the write lock.
_OPENING = threading.Lock()


def open_store(path: Path | None = None, *, reading: bool = False) -> sqlite3.Connection:
    """The store at `path` (default: the user's), made or brought up to date. A file this user may not write is
    refused, unless `reading`: it is then opened read-only as it is (read_only() says so)."""
    path = path or default_path()
    with _OPENING:
        try:
            return _open_store(path, reading)
        except sqlite3.Error as exc:
            problem = failure(exc, path)
            if problem is None:
                raise
            raise problem from None


def read_only(conn: sqlite3.Connection) -> bool:
    """Whether `conn` was opened read-only (open_store's `reading`, on a file this user may not write)."""
    return bool(conn.execute("PRAGMA query_only").fetchone()[0])


@functools.cache
def _tables() -> frozenset[str]:
    """The tables the migrations make: read from an empty database migrated in memory, so never out of step."""
    conn = sqlite3.connect(":memory:")
    try:
        for statements in MIGRATIONS:
            for statement in statements:
                conn.execute(statement)
        return frozenset(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    finally:
        conn.close()


def _open_store(path: Path, reading: bool) -> sqlite3.Connection:
    make_folder(path)
    existed = existing(path)
    if not existed:
        create(path)
    can_write = writable(path)
    if not can_write and not reading:
        raise StoreError(read_only_message(path))
    if can_write:
        conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_SECONDS)  # transactions are explicit
    else:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, isolation_level=None)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:  # checked before anything (even WAL mode) touches the file
        conn.close()
        raise StoreError(
            f"{path} was written by a newer nfstune (schema {version}, this one knows {SCHEMA_VERSION}): "
            "update nfstune; the file was not changed"
        )
    make_private(path)  # only now: a file that is not SQLite, or a newer nfstune's, keeps its mode
    if not can_write:
        if version < SCHEMA_VERSION:
            conn.close()
            raise StoreError(
                f"{path} is read-only for this user and was written by an older nfstune (schema {version}): make "
                f"it writable once (chmod u+w {path}), so that nfstune can bring it up to date"
            )
        conn.execute("PRAGMA query_only = ON")
        _check_tables(conn, path)
        return conn
    # switched once, when the file is new: the switch needs the file to itself, and another thread's connection
    # closing at that moment answers it "database is locked" whatever the busy timeout
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    if version < SCHEMA_VERSION:
        _migrate(conn, path, version, existed)
    _check_tables(conn, path)
    return conn


def _backup(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    backup = path.with_name(f"{path.name}.v{version}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
    try:
        create(backup)
        make_private(backup)
        with sqlite3.connect(backup) as copy:
            conn.backup(copy)
        copy.close()
    except (OSError, sqlite3.Error, StoreError) as exc:
        backup.unlink(missing_ok=True)
        conn.close()
        raise StoreError(
            f"cannot copy {path} to {backup} before bringing it up to date ({exc}); nothing was changed"
        ) from None
    return backup


def _migrate(conn: sqlite3.Connection, path: Path, version: int, existed: bool) -> None:
    backup = _backup(conn, path, version) if existed else None
    try:
        conn.execute("BEGIN IMMEDIATE")
    except BaseException:
        if backup is not None:
            backup.unlink(missing_ok=True)  # nothing was changed: no copy to keep
        conn.close()
        raise
    # all of them in one transaction: a file they cannot move (e.g. a user_version lowered by hand over tables that
    # are already there) is left exactly as it was, and the copy made for it is removed, so that each attempt
    # does not leave one more
    number = version
    try:
        # another connection may have migrated since the version was read (the desktop connects to the server and
        # the client at once, each job opening the store): only the write lock makes it certain
        for number in range(conn.execute("PRAGMA user_version").fetchone()[0], SCHEMA_VERSION):
            for statement in MIGRATIONS[number]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")
        conn.execute("COMMIT")
    except BaseException as exc:
        conn.execute("ROLLBACK")
        conn.close()
        if backup is not None:
            backup.unlink(missing_ok=True)
        if isinstance(exc, sqlite3.DatabaseError) and failure(exc, path) is None:
            raise StoreError(
                f"{path}: says schema {version}, but moving it to schema {number + 1} failed ({exc}): it was "
                "changed outside nfstune. The file was left as it was; move it aside to start afresh"
            ) from None
        raise


def _check_tables(conn: sqlite3.Connection, path: Path) -> None:
    present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = sorted(_tables() - present)
    if missing:
        conn.close()
        raise StoreError(
            f"{path}: the table{'s' if len(missing) > 1 else ''} {', '.join(missing)} of schema {SCHEMA_VERSION} "
            f"{'are' if len(missing) > 1 else 'is'} missing: the file was changed outside nfstune. Nothing was "
            "changed; move it aside to start afresh (nfstune then makes a new one)"
        )
