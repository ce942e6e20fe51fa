"""The workloads with dd, tar and coreutils only (clients without fio), and the parsers of their output.

Each run is `sh -c SCRIPT NAME ARGS...`: the paths travel as positional parameters, never inside the script
text, so no quoting can go wrong. The script prints `NFSTUNE_T0=<epoch.ns>` and `NFSTUNE_T1=...` (`date +%s.%N`)
around the timed part, so the result is wall-clock time including the final fsync or sync, and sends dd's
stderr to stdout (`2>&1`) so that one stream holds everything in order. LC_ALL=C keeps dd's numbers in the
"1.5 s" form rather than a locale's "1,5 s".
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from nfstune.bench.steady import steady_mb_per_s
from nfstune.bench.workloads import (
    MIB,
    SEQ_FILE,
    SMALL_FILES_DIR,
    SMALL_FILES_TAR,
    SYNC_4K_FILE,
    SYNC_BLOCK_BYTES,
    Progress,
    Tool,
    WorkloadCommands,
    WorkloadId,
    WorkloadOutputError,
    WorkloadParser,
    WorkloadResult,
    WorkloadSizes,
    scratch_path,
)

_START = "set -e; LC_ALL=C; export LC_ALL\n"
_T0 = 'echo "NFSTUNE_T0=$(date +%s.%N)"\n'
_T1 = 'echo "NFSTUNE_T1=$(date +%s.%N)"\n'

# $1 file, $2 count of 1 MiB blocks. conv=fsync: dd fsyncs (NFS COMMIT) before it prints its summary.
SEQ_WRITE_SCRIPT = (
    _START
    + 'rm -f -- "$1"\n'
    + _T0
    + f'dd if=/dev/zero of="$1" bs={MIB} count="$2" conv=fsync status=progress 2>&1\n'
    + _T1
)
# $1 file. The engine has synced and dropped the caches on both hosts just before.
SEQ_READ_SCRIPT = _START + _T0 + f'dd if="$1" of=/dev/null bs={MIB} status=progress 2>&1\n' + _T1
# $1 file, $2 count. oflag=dsync: every 4 KiB write returns only once it is stable on the server.
SYNC_4K_SCRIPT = (
    _START
    + 'rm -f -- "$1"\n'
    + _T0
    + f'dd if=/dev/zero of="$1" bs={SYNC_BLOCK_BYTES} count="$2" oflag=dsync status=progress 2>&1\n'
    + _T1
)
# $1 tar file, $2 tree directory on the mount. The old tree is removed and everything is synced BEFORE T0, so
# that neither is charged to this run. --no-same-owner: with root_squash a chown to the archive's owner fails.
SMALL_FILES_SCRIPT = (
    _START
    + 'rm -rf -- "$2"\nmkdir -- "$2"\nsync\n'
    + _T0
    + 'tar -xf "$1" --no-same-owner -C "$2" 2>&1\nsync\n'
    + _T1
    + 'echo "NFSTUNE_FILES=$(find "$2" -type f | wc -l)"\n'
)
# $1 tar file, $2 file count, $3 file size. Runs on the client's local disk (the tree is built beside the tar);
# skipped when the tar already holds this tree (its top directory names count and size). Directories of 100
# files, like a source tree's; random bytes, so that nothing on the way can compress them.
SMALL_FILES_TAR_SCRIPT = (
    _START
    + 'top="nfstune-smallfiles-$2-$3"\n'
    + 'if [ "$(tar -tf "$1" 2>/dev/null | head -n 1)" = "$top/" ]; then exit 0; fi\n'
    + 'work=$(mktemp -d "$1.XXXXXX")\n'
    + "i=0\n"
    + 'while [ "$i" -lt "$2" ]; do\n'
    + '  n=$(($2 - i)); if [ "$n" -gt 100 ]; then n=100; fi\n'
    + '  d="$work/$top/d$((i / 100))"; mkdir -p "$d"\n'
    + '  head -c $((n * $3)) /dev/urandom | split -b "$3" -a 3 -d - "$d/f"\n'
    + "  i=$((i + n))\n"
    + "done\n"
    + 'tar -cf "$1.tmp" -C "$work" "$top"\nmv -f "$1.tmp" "$1"\nrm -rf "$work"\n'
)


def _sh(script: str, name: str, *args: str) -> tuple[str, ...]:
    return ("sh", "-c", script, name, *args)


def small_files_tar_command(count: int, size: int, tar_path: str = SMALL_FILES_TAR) -> tuple[str, ...]:
    """Builds the small-files tree as a tar on the client's local disk (once: reruns return at once)."""
    return _sh(SMALL_FILES_TAR_SCRIPT, "nfstune-smallfiles-tar", tar_path, str(count), str(size))


def fallback_commands(workload: WorkloadId, directory: str, sizes: WorkloadSizes) -> WorkloadCommands:
    seq_path = scratch_path(directory, SEQ_FILE)
    if workload is WorkloadId.SEQ_WRITE:
        run = _sh(SEQ_WRITE_SCRIPT, "nfstune-seq-write", seq_path, str(sizes.seq_blocks))
        return WorkloadCommands(workload, Tool.DD, run, sizes.seq_file_bytes, sizes.seq_blocks)
    if workload is WorkloadId.SEQ_READ:
        run = _sh(SEQ_READ_SCRIPT, "nfstune-seq-read", seq_path)
        rm = (("rm", "-f", "--", seq_path),)
        return WorkloadCommands(workload, Tool.DD, run, sizes.seq_file_bytes, sizes.seq_blocks, cleanup=rm)
    if workload is WorkloadId.SYNC_4K:
        sync_path = scratch_path(directory, SYNC_4K_FILE)
        run = _sh(SYNC_4K_SCRIPT, "nfstune-sync-4k", sync_path, str(sizes.sync_4k_count))
        size = sizes.sync_4k_count * SYNC_BLOCK_BYTES
        rm = (("rm", "-f", "--", sync_path),)
        return WorkloadCommands(workload, Tool.DD, run, size, sizes.sync_4k_count, cleanup=rm)
    tree = scratch_path(directory, SMALL_FILES_DIR)
    run = _sh(SMALL_FILES_SCRIPT, "nfstune-small-files", SMALL_FILES_TAR, tree)
    return WorkloadCommands(
        workload,
        Tool.TAR,
        run,
        sizes.small_file_count * sizes.small_file_bytes,
        sizes.small_file_count,
        prepare=(small_files_tar_command(sizes.small_file_count, sizes.small_file_bytes),),
        cleanup=(("rm", "-rf", "--", tree),),
    )


def fallback_parser(commands: WorkloadCommands) -> WorkloadParser:
    if commands.tool is Tool.TAR:
        return TarParser(commands.workload, commands.expected_bytes, commands.expected_ops)
    return DdStreamParser(commands.workload, commands.expected_bytes)


# "67108864 bytes (67 MB, 64 MiB) copied, 6.3 s, 10.6 MB/s" (progress and summary alike; small counts print
# "512 bytes copied, ...", and a run that copied nothing "0 bytes copied, ...")
# counts and times as int() and float() take them: ASCII digits, far fewer than int()'s limit
DD_COPIED = re.compile(r"^([0-9]{1,20}) bytes(?: \([^)]*\))? copied, ([0-9]{1,20}(?:\.[0-9]{1,20})?) s, ")
DD_RECORDS_OUT = re.compile(r"^([0-9]{1,20})\+([0-9]{1,20}) records out$")
MARK = re.compile(r"^NFSTUNE_(T0|T1|FILES)=(\S*)$")


class _Lines:
    """Whole lines from chunks cut anywhere; dd ends its progress lines with '\\r', the rest with '\\n'."""

    def __init__(self) -> None:
        self._partial = ""
        self.raw: list[str] = []

    def feed(self, chunk: str) -> list[str]:
        self.raw.append(chunk)
        lines = re.split(r"[\r\n]", self._partial + chunk)
        self._partial = lines.pop()
        return [line.strip() for line in lines if line.strip()]

    def flush(self) -> list[str]:
        rest, self._partial = self._partial.strip(), ""
        return [rest] if rest else []


def _wall_seconds(marks: dict[str, str]) -> float | None:
    # Decimal: a float holds an epoch time in ns only to ~0.2 us
    try:
        seconds = float(Decimal(marks["T1"]) - Decimal(marks["T0"]))
    except (KeyError, ArithmeticError):  # no marks, or a `date` without %N ("1795319230.%N")
        return None
    return seconds if math.isfinite(seconds) else None


class DdStreamParser:
    def __init__(self, workload: WorkloadId, expected_bytes: int | None = None) -> None:
        self.workload, self.expected_bytes = workload, expected_bytes
        self._lines = _Lines()
        self._marks: dict[str, str] = {}
        self._records_out: int | None = None
        self._summary: tuple[int, float] | None = None  # bytes, dd's own seconds
        self._total_bytes = 0
        self._points: list[tuple[float, int]] = []  # (dd's seconds, bytes so far) of each progress line

    def feed(self, chunk: str) -> list[Progress]:
        return self._read(self._lines.feed(chunk))

    def _read(self, lines: list[str]) -> list[Progress]:
        progress: list[Progress] = []
        for line in lines:
            if mark := MARK.match(line):
                self._marks[mark[1]] = mark[2]
            elif records := DD_RECORDS_OUT.match(line):
                self._records_out = int(records[1]) + int(records[2])
            elif copied := DD_COPIED.match(line):
                total, seconds = int(copied[1]), float(copied[2])
                if self._records_out is not None:
                    self._summary = (total, seconds)  # the line after "records out" is the summary
                progress.append(Progress(seconds, total - self._total_bytes, total))
                self._points.append((seconds, total))
                self._total_bytes = total
        return progress

    def result(self) -> WorkloadResult:
        self._read(self._lines.flush())
        raw = "".join(self._lines.raw)
        if self._summary is None or self._records_out is None:
            raise WorkloadOutputError(self.workload, Tool.DD, "dd printed no summary (it failed or was stopped)", raw)
        total, dd_seconds = self._summary
        if self.expected_bytes is not None and total != self.expected_bytes:
            raise WorkloadOutputError(self.workload, Tool.DD, f"dd moved {total} bytes, not {self.expected_bytes}", raw)
        seconds = _wall_seconds(self._marks) or dd_seconds
        if seconds <= 0:
            raise WorkloadOutputError(self.workload, Tool.DD, "no time elapsed", raw)
        ops = self._records_out
        # dd gives no per-operation times: the mean is the whole run over the count (the writes are serial)
        mean_us = seconds / ops * 1e6 if self.workload is WorkloadId.SYNC_4K and ops else None
        steady = None
        if self.workload is WorkloadId.SEQ_READ:  # a write's figure is its durable rate: see bench/steady.py
            steady = steady_mb_per_s([*self._points[:-1], (seconds, total)])
        return WorkloadResult(
            self.workload, Tool.DD, total, seconds, ops, lat_mean_us=mean_us, raw=raw, steady_mb_per_s=steady
        )


class TarParser:
    """tar prints nothing while it works: one Progress when the run is over."""

    def __init__(self, workload: WorkloadId, expected_bytes: int, expected_files: int) -> None:
        self.workload, self.expected_bytes, self.expected_files = workload, expected_bytes, expected_files
        self._lines = _Lines()
        self._marks: dict[str, str] = {}

    def feed(self, chunk: str) -> list[Progress]:
        return self._read(self._lines.feed(chunk))

    def _read(self, lines: list[str]) -> list[Progress]:
        progress: list[Progress] = []
        for line in lines:
            if mark := MARK.match(line):
                self._marks[mark[1]] = mark[2]
                if mark[1] == "T1" and (seconds := _wall_seconds(self._marks)) is not None:
                    progress.append(Progress(seconds, self.expected_bytes, self.expected_bytes))
        return progress

    def result(self) -> WorkloadResult:
        self._read(self._lines.flush())
        raw = "".join(self._lines.raw)
        seconds = _wall_seconds(self._marks)
        if seconds is None or seconds <= 0:
            raise WorkloadOutputError(self.workload, Tool.TAR, "no start and end time (tar or sync failed)", raw)
        files = self._marks.get("FILES", "")
        if files != str(self.expected_files):
            problem = f"{files or 'no'} files were created, not {self.expected_files}"
            raise WorkloadOutputError(self.workload, Tool.TAR, problem, raw)
        return WorkloadResult(self.workload, Tool.TAR, self.expected_bytes, seconds, self.expected_files, raw=raw)
