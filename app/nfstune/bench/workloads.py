"""The workloads nfstune measures, as types: what each needs, the commands of one repeat, what a run gave.

Types only: the commands themselves come from `fio.py` (preferred when the client has fio) and `fallback.py` (dd,
tar and coreutils only), which both import this module; `commands.py` chooses between them. Both report the same
`WorkloadResult`. Every command is an argv list: the runner quotes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from nfstune.errors import NfstuneError

MIB = 1024 * 1024
SYNC_BLOCK_BYTES = 4096  # sync-4k writes one 4 KiB block per operation

# Fixed names inside our scratch directory, so that seq-read reads exactly the file seq-write wrote.
SEQ_FILE = "nfstune-seq.dat"
SYNC_4K_FILE = "nfstune-sync4k.dat"
SMALL_FILES_DIR = "nfstune-smallfiles"
# the metadata workloads' flat directory of empty files, named f.0, f.1, ... by fio and by the shell alike
METADATA_DIR = "nfstune-metadata"
# The small-files tree is packed once on the client's own disk, so that reading it costs (almost) nothing.
SMALL_FILES_TAR = "/var/tmp/nfstune-smallfiles.tar"
# run on BOTH hosts before a cold read: drop_caches frees only clean pages, so sync first
DROP_CACHES = "sync && echo 3 > /proc/sys/vm/drop_caches"


class WorkloadId(StrEnum):
    SEQ_WRITE = "seq-write"
    SEQ_READ = "seq-read"
    SMALL_FILES = "small-files"
    SYNC_4K = "sync-4k"
    # metadata: files a second over a directory of empty files, and the time of an `rm -rf` of a whole tree
    FILE_CREATE = "file-create"
    FILE_STAT = "file-stat"
    FILE_DELETE = "file-delete"
    TREE_DELETE = "tree-delete"


# what fio's front end starts on several clients at once (bench/clients_runner.py); the others run on one client
FRONT_END_WORKLOADS = (WorkloadId.SEQ_WRITE, WorkloadId.SEQ_READ, WorkloadId.SYNC_4K)
# their figure is files a second (ops/s), not bytes: nothing but metadata moves
METADATA_RATES = frozenset({WorkloadId.FILE_CREATE, WorkloadId.FILE_STAT, WorkloadId.FILE_DELETE})


class Tool(StrEnum):
    FIO = "fio"
    DD = "dd"
    TAR = "tar"
    SH = "sh"  # the metadata workloads without fio: a shell loop, timed like tar


@dataclass(frozen=True)
class WorkloadSpec:
    """One workload, the one registry of them: recipes name workloads by id, the report and the pages show the
    title and unit."""

    id: WorkloadId
    title: str
    unit: str  # of the figure it is judged by (bench/figure.py)
    higher_is_better: bool
    # the engine runs `sync` and drops the page cache on BOTH hosts right before the run
    needs_cold_cache: bool = False
    # this workload reads the file another one wrote: run that one first, with the same sizes
    reads_file_of: WorkloadId | None = None
    noun: str = ""  # what it measures in an admin's few words, after "faster on": "small files"


WORKLOADS: Mapping[WorkloadId, WorkloadSpec] = {
    WorkloadId.SEQ_WRITE: WorkloadSpec(
        WorkloadId.SEQ_WRITE, "sequential write, ending in fsync", "MB/s", True, noun="sequential writes"
    ),
    WorkloadId.SEQ_READ: WorkloadSpec(
        WorkloadId.SEQ_READ,
        "sequential read, caches dropped on both hosts first",
        "MB/s",
        True,
        needs_cold_cache=True,
        reads_file_of=WorkloadId.SEQ_WRITE,
        noun="sequential reads",
    ),
    WorkloadId.SMALL_FILES: WorkloadSpec(
        WorkloadId.SMALL_FILES,
        "untar of a generated tree, timed including a final sync",
        "s",
        False,
        noun="small files",
    ),
    WorkloadId.SYNC_4K: WorkloadSpec(
        WorkloadId.SYNC_4K, "4 KiB synchronous writes", "ms", False, noun="4 KiB sync writes"
    ),
    WorkloadId.FILE_CREATE: WorkloadSpec(
        WorkloadId.FILE_CREATE,
        "empty files created (open with O_CREAT, then close), files a second",
        "files/s",
        True,
        noun="creating files",
    ),
    # cold: with the client's caches dropped a stat is a LOOKUP and a GETATTR on the server, as after a reboot or
    # on another client; with them warm it would measure the client's attribute cache
    WorkloadId.FILE_STAT: WorkloadSpec(
        WorkloadId.FILE_STAT,
        "files stat'ed, caches dropped on both hosts first, files a second",
        "files/s",
        True,
        needs_cold_cache=True,
        noun="reading file attributes",
    ),
    WorkloadId.FILE_DELETE: WorkloadSpec(
        WorkloadId.FILE_DELETE,
        "files deleted (unlink), caches dropped on both hosts first, files a second",
        "files/s",
        True,
        needs_cold_cache=True,
        noun="deleting files",
    ),
    WorkloadId.TREE_DELETE: WorkloadSpec(
        WorkloadId.TREE_DELETE,
        "rm -rf of the small-files tree, caches dropped first, timed including a final sync",
        "s",
        False,
        needs_cold_cache=True,
        noun="deleting a tree",
    ),
}


@dataclass(frozen=True)
class WorkloadSizes:
    seq_file_bytes: int  # a whole number of MiB: both tools move it in 1 MiB blocks
    small_file_count: int
    small_file_bytes: int
    sync_4k_count: int

    def __post_init__(self) -> None:
        if self.seq_file_bytes <= 0 or self.seq_file_bytes % MIB:
            raise ValueError(f"seq_file_bytes must be a positive number of MiB, not {self.seq_file_bytes}")
        if min(self.small_file_count, self.small_file_bytes, self.sync_4k_count) <= 0:
            raise ValueError(f"every size must be positive: {self}")

    @property
    def seq_blocks(self) -> int:
        return self.seq_file_bytes // MIB


@dataclass(frozen=True)
class WorkloadCommands:
    """What the runner (runner.py) runs for one repeat, in this order: `prepare` (untimed; before the cache drop
    when the workload needs a cold cache), then `run` with its stdout fed to `commands.parser_for(self)`; `cleanup`
    removes what the workload left in the scratch directory (seq-write's file is kept for seq-read: clean up after
    both)."""

    workload: WorkloadId
    tool: Tool
    run: tuple[str, ...]
    expected_bytes: int  # payload the run must move; a parser refuses a result that moved something else
    expected_ops: int
    prepare: tuple[tuple[str, ...], ...] = ()
    cleanup: tuple[tuple[str, ...], ...] = ()

    @property
    def needs_cold_cache(self) -> bool:
        return WORKLOADS[self.workload].needs_cold_cache


@dataclass(frozen=True)
class Progress:
    """One progress report while a workload runs (about once a second)."""

    elapsed_s: float  # since the tool started moving data
    interval_bytes: int  # moved since the previous report; the reports of a run sum to its total
    total_bytes: int


@dataclass(frozen=True)
class WorkloadResult:
    workload: WorkloadId
    tool: Tool
    bytes: int  # payload moved (file bytes, not protocol overhead)
    seconds: float  # wall-clock time of the timed part, final fsync/sync included
    ops: int  # I/O calls (seq: 1 MiB blocks, sync-4k: 4 KiB writes) or files (small-files, metadata)
    lat_mean_us: float | None = None  # per operation; only sync-4k measures latency
    lat_p50_us: float | None = None  # read from lat_histogram (bench/histogram.py)
    lat_p99_us: float | None = None
    raw: str = field(default="", repr=False)  # the tool's output, unedited, for the store
    # sequential workloads: the rate once start-up is over (median of the per-second stream), MB/s; None when
    # the run was too short to tell
    steady_mb_per_s: float | None = None
    # fio's latency histogram of the run (latency ns -> operations), what several clients' are merged from; None
    # where the tool gives none (dd)
    lat_histogram: Mapping[int, int] | None = field(default=None, repr=False)

    # derived, so that they can never disagree with bytes/seconds/ops
    @property
    def mb_per_s(self) -> float:
        return self.bytes / self.seconds / 1e6

    @property
    def mib_per_s(self) -> float:
        return self.bytes / self.seconds / MIB

    @property
    def ops_per_s(self) -> float:
        return self.ops / self.seconds


class WorkloadOutputError(NfstuneError):
    """The tool's output holds no usable result (it failed, was cut short, or moved the wrong amount)."""

    def __init__(self, workload: WorkloadId, tool: Tool, problem: str, raw: str) -> None:
        self.workload, self.tool, self.raw = workload, tool, raw
        tail = "\n".join(raw.strip().splitlines()[-5:])
        super().__init__(f"{workload} ({tool}): {problem}" + (f"\nlast output:\n{tail}" if tail else ""))


class WorkloadParser(Protocol):
    def feed(self, chunk: str) -> list[Progress]: ...

    def result(self) -> WorkloadResult: ...


def scratch_path(directory: str, name: str) -> str:
    return directory.rstrip("/") + "/" + name
