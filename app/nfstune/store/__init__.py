"""nfstune's SQLite store: one file in the user data folder, migrated in order, never downgraded."""

from nfstune.store.db import SCHEMA_VERSION, default_path, open_store, read_only
from nfstune.store.files import StoreError, failure
from nfstune.store.journal import Journal, JournalEntry
from nfstune.store.pair_sessions import HostPair
from nfstune.store.results import Results, SessionRow
from nfstune.store.stored import (
    ClientShare,
    RawRows,
    RunConfig,
    StoredCeiling,
    StoredHandStep,
    StoredLatency,
    StoredRepeat,
    StoredRun,
    StoredSession,
    StoredWriteback,
)

__all__ = [
    "SCHEMA_VERSION",
    "ClientShare",
    "HostPair",
    "Journal",
    "JournalEntry",
    "RawRows",
    "Results",
    "RunConfig",
    "SessionRow",
    "StoreError",
    "StoredCeiling",
    "StoredHandStep",
    "StoredLatency",
    "StoredRepeat",
    "StoredRun",
    "StoredSession",
    "StoredWriteback",
    "default_path",
    "failure",
    "open_store",
    "read_only",
]
