"""The workloads with dd, tar, the shell and coreutils only (clients without fio), and the parsers of their output.

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
    METADATA_DIR,
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


# $1 directory, $2 file count: the metadata workloads, one call per file on f.0, f.1, ... (`: >` is the shell's own
# open with O_CREAT and close, as fio's filecreate does; `[ -e ]` its own stat; rm gets the names from find and
# unlinks each, as `rm -rf` does). No final sync, as with fio: NFS makes each create and unlink stable before it
# replies. file-stat and file-delete always run here, never with fio's filestat and filedelete: fio stats every
# file in its setup, so its timed stats came from the client's cache (lab, 30 files after a cache drop: 65 us
# each with fio, 6.5 ms with this loop; tests/captures/bench/README.md).
_EACH = 'i=0\nwhile [ "$i" -lt "$2" ]; do\n  {}\n  i=$((i + 1))\ndone\n'
_FILES_LEFT = 'echo "NFSTUNE_FILES=$(find "$1" -type f | wc -l)"\n'
FILE_CREATE_SCRIPT = _START + _T0 + _EACH.format(': > "$1/f.$i"') + _T1 + _FILES_LEFT
# for stat and delete, the files are made by METADATA_LAY_OUT_SCRIPT before the caches are dropped
FILE_STAT_SCRIPT = _START + _T0 + _EACH.format('[ -e "$1/f.$i" ]') + _T1 + _FILES_LEFT
FILE_DELETE_SCRIPT = (
    _START
    + 'n=$(find "$1" -type f | wc -l)\n'
    + _T0
    + 'find "$1" -type f -name "f.*" -exec rm -f -- {} +\n'
    + _T1
    + 'echo "NFSTUNE_FILES=$((n - $(find "$1" -type f | wc -l)))"\n'
)
METADATA_LAY_OUT_SCRIPT = (
    _START + 'rm -rf -- "$1"\nmkdir -- "$1"\n' + _EACH.format('head -c 4096 /dev/zero > "$1/f.$i"')
)
# $1 tar file, $2 tree directory on the mount: the small-files tree is unpacked and synced by the prepare step
# (TREE_UNPACK_SCRIPT, before the caches are dropped); the time is that of `rm -rf` and a sync after it.
TREE_UNPACK_SCRIPT = _START + 'rm -rf -- "$2"\nmkdir -- "$2"\ntar -xf "$1" --no-same-owner -C "$2"\nsync\n'
TREE_DELETE_SCRIPT = (
    _START
    + 'n=$(find "$1" -type f | wc -l)\n'
    + _T0
    + 'rm -rf -- "$1"\nsync\n'
    + _T1
    + 'if [ -e "$1" ]; then echo "NFSTUNE_FILES=0"; else echo "NFSTUNE_FILES=$n"; fi\n'
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
    if workload in (WorkloadId.FILE_CREATE, WorkloadId.FILE_STAT, WorkloadId.FILE_DELETE):
        return _metadata_commands(workload, scratch_path(directory, METADATA_DIR), sizes.small_file_count)
    tree = scratch_path(directory, SMALL_FILES_DIR)
    tar_prepare = small_files_tar_command(sizes.small_file_count, sizes.small_file_bytes)
    if workload is WorkloadId.TREE_DELETE:
        return WorkloadCommands(
            workload,
            Tool.SH,
            _sh(TREE_DELETE_SCRIPT, "nfstune-tree-delete", tree),
            0,
            sizes.small_file_count,
            prepare=(tar_prepare, _sh(TREE_UNPACK_SCRIPT, "nfstune-tree-unpack", SMALL_FILES_TAR, tree)),
            cleanup=(("rm", "-rf", "--", tree),),
        )
    run = _sh(SMALL_FILES_SCRIPT, "nfstune-small-files", SMALL_FILES_TAR, tree)
    return WorkloadCommands(
        workload,
        Tool.TAR,
        run,
        sizes.small_file_count * sizes.small_file_bytes,
        sizes.small_file_count,
        prepare=(tar_prepare,),
        cleanup=(("rm", "-rf", "--", tree),),
    )


def _metadata_commands(workload: WorkloadId, directory: str, files: int) -> WorkloadCommands:
    count = str(files)
    cleanup = (("rm", "-rf", "--", directory),)
    if workload is WorkloadId.FILE_CREATE:
        fresh = (("rm", "-rf", "--", directory), ("mkdir", "--", directory))
        run = _sh(FILE_CREATE_SCRIPT, "nfstune-file-create", directory, count)
        return WorkloadCommands(workload, Tool.SH, run, 0, files, prepare=fresh, cleanup=cleanup)
    lay_out = _sh(METADATA_LAY_OUT_SCRIPT, "nfstune-metadata-lay-out", directory, count)
    script = FILE_STAT_SCRIPT if workload is WorkloadId.FILE_STAT else FILE_DELETE_SCRIPT
    run = _sh(script, f"nfstune-{workload}", directory, count)
    return WorkloadCommands(workload, Tool.SH, run, 0, files, prepare=(lay_out,), cleanup=cleanup)


def fallback_parser(commands: WorkloadCommands) -> WorkloadParser:
    if commands.tool in (Tool.TAR, Tool.SH):
        return TarParser(commands.workload, commands.expected_bytes, commands.expected_ops, commands.tool)
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
    """tar (and the shell's metadata loops) print nothing while they work: one Progress when the run is over."""

    def __init__(self, workload: WorkloadId, expected_bytes: int, expected_files: int, tool: Tool = Tool.TAR) -> None:
        self.workload, self.expected_bytes, self.expected_files = workload, expected_bytes, expected_files
        self.tool = tool
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
            problem = f"no start and end time ({self.tool} or sync failed)"
            raise WorkloadOutputError(self.workload, self.tool, problem, raw)
        files = self._marks.get("FILES", "")
        if files != str(self.expected_files):
            done = {
                WorkloadId.FILE_STAT: "stat'ed",
                WorkloadId.FILE_DELETE: "deleted",
                WorkloadId.TREE_DELETE: "deleted",
            }
            problem = f"{files or 'no'} files were {done.get(self.workload, 'created')}, not {self.expected_files}"
            raise WorkloadOutputError(self.workload, self.tool, problem, raw)
        return WorkloadResult(self.workload, self.tool, self.expected_bytes, seconds, self.expected_files, raw=raw)
