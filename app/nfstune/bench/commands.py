"""The commands of one repeat of a workload, and the parser of their output: fio where the client has it, else dd
and tar (fallback.py). The one module that knows both tools; fio.py and fallback.py know only the types of
workloads.py."""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.bench import fallback, fio
from nfstune.bench.workloads import (
    DROP_CACHES,
    Tool,
    WorkloadCommands,
    WorkloadId,
    WorkloadParser,
    WorkloadSizes,
)
from nfstune.shell_text import join, sh_line

FIO_WORKLOADS = (WorkloadId.SEQ_WRITE, WorkloadId.SEQ_READ, WorkloadId.SYNC_4K, WorkloadId.FILE_CREATE)
# printed before the mount's counters, so that whatever a prepare step prints cannot be read as them
COUNTERS_MARK = "NFSTUNE_MOUNTSTATS"
READ_COUNTERS = f"echo {COUNTERS_MARK} && cat /proc/self/mountstats"


def workload_commands(
    workload: WorkloadId, directory: str, sizes: WorkloadSizes, *, fio_available: bool
) -> WorkloadCommands:
    """The commands for one repeat of `workload` in `directory` (our scratch directory on the NFS mount).

    small-files is always tar, even where fio exists: the workload IS an untar (create, write, close, set
    mtime and mode per file), which fio cannot reproduce, and one tool keeps results comparable across hosts.
    tree-delete is always `rm -rf`, for the same reason; file-stat and file-delete always the shell, because fio
    stats every file in its setup, which warms the very cache a cold stat must miss (bench/fio.py)."""
    if fio_available and workload in FIO_WORKLOADS:
        return fio.fio_commands(workload, directory, sizes)
    return fallback.fallback_commands(workload, directory, sizes)


def parser_for(commands: WorkloadCommands) -> WorkloadParser:
    if commands.tool is Tool.FIO and commands.workload is WorkloadId.FILE_CREATE:
        return fio.FioCreateParser(commands.workload, commands.expected_ops)
    if commands.tool is Tool.FIO:
        return fio.FioStreamParser(commands.workload, commands.expected_bytes)
    return fallback.fallback_parser(commands)


@dataclass(frozen=True)
class RepeatSteps:
    """The remote commands of one repeat, as few as they can be: on the emulated lab every SSH round trip costs
    0.3-1.3 s, and a quick-check round spent ~90 s of its ~150 s on them (docs/bench/reproducibility.md).

    The client's steps before the tool are one shell: the untimed prepare, then a flush of the NFS mount (`sync -f`,
    what nfstune wrote there; a cold read: `sync` and a cache drop), then the mount's counters. The server's cache
    drop for a cold read follows it, never at the same time: what the client flushes must reach the server before
    the server flushes. Then each host flushes and waits until its writeback is idle (bench/writeback.py), the
    hosts at the same time. After the tool, one shell cleans up and reads the counters again (removing files
    moves no data bytes, so the difference is the tool's)."""

    before_client: tuple[str, ...]
    before_server: tuple[str, ...]  # () when the workload needs no cold cache: the wait flushes the server
    server_sudo: bool
    run: tuple[str, ...]
    after_client: tuple[str, ...]
    cleans_up: bool  # seq-write's file stays for seq-read; the scratch directory goes with the visit


def repeat_steps(commands: WorkloadCommands, mount_point: str) -> RepeatSteps:
    """`mount_point`: the NFS mount the workload runs on (any path on it: its filesystem is flushed)."""
    cold = commands.needs_cold_cache
    flush = DROP_CACHES if cold else sh_line("{{ sync -f {path} || sync; }}", path=mount_point)
    before = [*(join(argv) for argv in commands.prepare), flush, READ_COUNTERS]
    cleanup = () if commands.workload in (WorkloadId.SEQ_WRITE, WorkloadId.SEQ_READ) else commands.cleanup
    after = [*(join(argv) for argv in cleanup), READ_COUNTERS]
    return RepeatSteps(
        before_client=("sh", "-c", " && ".join(before)),
        before_server=("sh", "-c", DROP_CACHES) if cold else (),
        server_sudo=cold,
        run=commands.run,
        after_client=("sh", "-c", " && ".join(after)),
        cleans_up=bool(cleanup),
    )


def counters_text(output: str) -> str:
    """The mount's counters from the output of a step that reads them (what follows COUNTERS_MARK)."""
    _, mark, after = output.partition(COUNTERS_MARK + "\n")
    return after if mark else ""
