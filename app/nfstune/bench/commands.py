"""The commands of one repeat of a workload, and the parser of their output: fio where the client has it, else dd
and tar (fallback.py). The one module that knows both tools; fio.py and fallback.py know only the types of
workloads.py."""

from __future__ import annotations

from nfstune.bench import fallback, fio
from nfstune.bench.workloads import Tool, WorkloadCommands, WorkloadId, WorkloadParser, WorkloadSizes


def workload_commands(
    workload: WorkloadId, directory: str, sizes: WorkloadSizes, *, fio_available: bool
) -> WorkloadCommands:
    """The commands for one repeat of `workload` in `directory` (our scratch directory on the NFS mount).

    small-files is always tar, even where fio exists: the workload IS an untar (create, write, close, set
    mtime and mode per file), which fio cannot reproduce, and one tool keeps results comparable across hosts."""
    if fio_available and workload is not WorkloadId.SMALL_FILES:
        return fio.fio_commands(workload, directory, sizes)
    return fallback.fallback_commands(workload, directory, sizes)


def parser_for(commands: WorkloadCommands) -> WorkloadParser:
    if commands.tool is Tool.FIO:
        return fio.FioStreamParser(commands.workload, commands.expected_bytes)
    return fallback.fallback_parser(commands)
