"""fio: the job of each workload as an argv, and the parser of fio's streamed JSON.

With `--output-format=json+ --status-interval=1` fio 3.33 prints one complete, pretty-printed JSON document a
second and the final result last, with no separator between them. Counters are cumulative from the job's
start. Text (warnings, "Laying out IO file") may come before or between the documents.
"""

from __future__ import annotations

import json
import os
from typing import Any

from nfstune.bench.histogram import Histogram, histogram_of, percentile_ns
from nfstune.bench.steady import steady_mb_per_s
from nfstune.bench.workloads import (
    METADATA_DIR,
    MIB,
    SEQ_FILE,
    SYNC_4K_FILE,
    SYNC_BLOCK_BYTES,
    Progress,
    Tool,
    WorkloadCommands,
    WorkloadId,
    WorkloadOutputError,
    WorkloadResult,
    WorkloadSizes,
    scratch_path,
)

# --eta=never: with a pty fio would mix its ETA line into the JSON on stdout
OUTPUT_OPTIONS = ("--output-format=json+", "--status-interval=1", "--eta=never")
# psync: one plain pread/pwrite per block, what cp and most applications do; direct=0 goes through the page
# cache like them (cold reads come from dropping caches on both hosts); fallocate=none: fio's default would
# send an NFSv4.2 ALLOCATE before writing, which no ordinary application does.
IO_OPTIONS = ("--ioengine=psync", "--direct=0", "--fallocate=none")
# fio's filecreate wants a size per file, though it writes nothing
METADATA_FILE_BYTES = 4096


def fio_filename(path: str) -> str:
    """fio splits --filename at ':' (several files); a literal colon is written '\\:'."""
    return path.replace(":", "\\:")


def fio_commands(workload: WorkloadId, directory: str, sizes: WorkloadSizes) -> WorkloadCommands:
    """Sizes are given in bytes, never with fio's suffixes, whose meaning depends on kb_base."""
    seq_path = scratch_path(directory, SEQ_FILE)
    sync_path = scratch_path(directory, SYNC_4K_FILE)
    run: tuple[str, ...]
    seq_job = (f"--filename={fio_filename(seq_path)}", f"--bs={MIB}", f"--size={sizes.seq_file_bytes}")
    if workload is WorkloadId.SEQ_WRITE:
        # end_fsync=1: the data must be on the server's disk (COMMIT) before the clock stops; fio counts the
        # fsync in the job's runtime (lab: runtime 625 ms before the fsync, 1385 ms in the final document)
        run = ("fio", "--name=seq-write", *seq_job, "--rw=write", "--end_fsync=1", *IO_OPTIONS, *OUTPUT_OPTIONS)
        return WorkloadCommands(
            workload, Tool.FIO, run, sizes.seq_file_bytes, sizes.seq_blocks, prepare=(("rm", "-f", "--", seq_path),)
        )
    if workload is WorkloadId.SEQ_READ:
        # --readonly: if seq-write's file is missing fio stops with an error instead of laying it out (which
        # would also leave it in the page cache)
        run = ("fio", "--name=seq-read", *seq_job, "--rw=read", "--readonly", *IO_OPTIONS, *OUTPUT_OPTIONS)
        return WorkloadCommands(
            workload, Tool.FIO, run, sizes.seq_file_bytes, sizes.seq_blocks, cleanup=(("rm", "-f", "--", seq_path),)
        )
    if workload is WorkloadId.SYNC_4K:
        # sync=dsync opens with O_DSYNC, as dd oflag=dsync does in the fallback, and as databases write their
        # logs. fdatasync=1 would give the same RPCs on Linux NFS (a lone dirty page is flushed as one stable
        # WRITE), but adds a second syscall per op; O_SYNC would also flush mtime on a local baseline.
        size = sizes.sync_4k_count * SYNC_BLOCK_BYTES
        run = (
            "fio",
            "--name=sync-4k",
            f"--filename={fio_filename(sync_path)}",
            f"--bs={SYNC_BLOCK_BYTES}",
            f"--size={size}",
            "--rw=write",
            "--sync=dsync",
            # latency percentiles of the whole call (lat), not only of its completion part (clat)
            "--lat_percentiles=1",
            "--percentile_list=50:99",
            *IO_OPTIONS,
            *OUTPUT_OPTIONS,
        )
        rm = (("rm", "-f", "--", sync_path),)
        return WorkloadCommands(workload, Tool.FIO, run, size, sizes.sync_4k_count, prepare=rm, cleanup=rm)
    if workload is WorkloadId.FILE_CREATE:
        return _file_create(scratch_path(directory, METADATA_DIR), sizes.small_file_count)
    raise ValueError(f"{workload} has no fio job: it always runs with tar, rm or the shell")


def _file_create(directory: str, files: int) -> WorkloadCommands:
    """fio's filecreate engine: one open with O_CREAT (and a close) per file, f.0, f.1, ... in `directory`, each
    timed; create_on_open, so that the files are created while the clock runs, not in fio's setup. (Its filestat
    and filedelete engines are not used: fio's setup stats every file before the timed part, so on the lab the
    timed stats came from the client's attribute cache, 65 us each against 6.5 ms cold: see bench/fallback.py.)"""
    run = (
        "fio",
        "--name=file-create",
        f"--directory={fio_filename(directory)}",
        "--filename_format=f.$filenum",
        f"--nrfiles={files}",
        f"--filesize={METADATA_FILE_BYTES}",
        f"--bs={METADATA_FILE_BYTES}",
        "--ioengine=filecreate",
        "--rw=write",
        "--create_on_open=1",
        "--openfiles=1",
        "--fallocate=none",
        *OUTPUT_OPTIONS,
    )
    fresh = (("rm", "-rf", "--", directory), ("mkdir", "--", directory))
    return WorkloadCommands(
        WorkloadId.FILE_CREATE, Tool.FIO, run, 0, files, prepare=fresh, cleanup=(("rm", "-rf", "--", directory),)
    )


def _document_ends(buffer: str, start: int) -> bool:
    """fio closes each document with "}" alone on a line: only then is a decode worth trying."""
    return buffer.find("\n}", start) != -1


class FioStreamParser:
    """feed() stdout as it arrives, in chunks cut anywhere; result() once fio has exited."""

    def __init__(self, workload: WorkloadId, expected_bytes: int | None = None) -> None:
        self.workload = workload
        self.expected_bytes = expected_bytes
        self._direction = "read" if workload is WorkloadId.SEQ_READ else "write"
        self._decoder = json.JSONDecoder()
        self._buffer = ""
        self._raw: list[str] = []
        self._last: dict[str, Any] | None = None
        self._total_bytes = 0
        self._points: list[tuple[float, int]] = []  # (runtime s, bytes so far) of each status document

    def feed(self, chunk: str) -> list[Progress]:
        self._raw.append(chunk)
        self._buffer += chunk
        progress: list[Progress] = []
        while (document := self._next_document(final=False)) is not None:
            if (step := self._take(document)) is not None:
                progress.append(step)
        return progress

    def _final(self) -> tuple[dict[str, Any], str]:
        """The last document's first job, and the raw output; once fio has exited."""
        while (document := self._next_document(final=True)) is not None:
            self._take(document)
        raw = "".join(self._raw)
        if self._last is None:
            raise WorkloadOutputError(self.workload, Tool.FIO, "fio printed no JSON result", raw)
        try:
            return self._last["jobs"][0], raw
        except (LookupError, TypeError) as exc:
            raise WorkloadOutputError(self.workload, Tool.FIO, f"fio's JSON result lacks {exc}", raw) from None

    def _check_error(self, error: object, raw: str) -> None:
        if error:  # an errno; fio's own message went to stderr
            reason = os.strerror(error) if isinstance(error, int) and 0 < error < 2**31 else "unknown"
            raise WorkloadOutputError(self.workload, Tool.FIO, f"fio reported error {error!r:.40} ({reason})", raw)

    def result(self) -> WorkloadResult:
        job, raw = self._final()
        try:
            error = job.get("error")
            stats = job[self._direction]
            io_bytes, runtime_ms, total_ios = (_count(stats[key]) for key in ("io_bytes", "runtime", "total_ios"))
            histogram = histogram_of(stats) if self.workload is WorkloadId.SYNC_4K else None
            mean, p50, p99 = _latencies_us(stats, histogram) if self.workload is WorkloadId.SYNC_4K else (None,) * 3
        except (LookupError, TypeError, AttributeError, ValueError, OverflowError) as exc:
            # ValueError, OverflowError: a latency that is a string or beyond a float
            raise WorkloadOutputError(self.workload, Tool.FIO, f"fio's JSON result lacks {exc}", raw) from None
        self._check_error(error, raw)
        if self.expected_bytes is not None and io_bytes != self.expected_bytes:
            problem = f"fio moved {io_bytes} bytes, not {self.expected_bytes}"
            raise WorkloadOutputError(self.workload, Tool.FIO, problem, raw)
        if runtime_ms <= 0:
            raise WorkloadOutputError(self.workload, Tool.FIO, "fio reported a runtime of 0 ms", raw)
        steady = None
        if self.workload is WorkloadId.SEQ_READ:  # a write's figure is its durable rate: see bench/steady.py
            steady = steady_mb_per_s([*self._points, (runtime_ms / 1000, io_bytes)])
        return WorkloadResult(
            self.workload, Tool.FIO, io_bytes, runtime_ms / 1000, total_ios, mean, p50, p99, raw, steady, histogram
        )

    def _next_document(self, *, final: bool) -> dict[str, Any] | None:
        while (start := self._buffer.find("{")) != -1:
            if not final and not _document_ends(self._buffer, start):
                self._buffer = self._buffer[start:]  # text before it is not JSON: drop it, keep the start
                return None
            try:
                document, end = self._decoder.raw_decode(self._buffer, start)
            except (ValueError, RecursionError):  # ValueError: not JSON, or an integer int() refuses
                self._buffer = self._buffer[start + 1 :]  # a "{" in a text line: look for the next one
                continue
            self._buffer = self._buffer[end:]
            if isinstance(document, dict) and document.get("jobs"):
                return document
        self._buffer = ""  # no "{" left: only text, which the raw output keeps
        return None

    def _take(self, document: dict[str, Any]) -> Progress | None:
        """The progress in one document; None when it holds no counters (result() reports it if it is the last)."""
        self._last = document
        try:
            stats = document["jobs"][0][self._direction]
            total, runtime_ms = _count(stats["io_bytes"]), _count(stats["runtime"])
        except (LookupError, TypeError):
            return None
        # counters only grow within one fio run; a smaller one would be a new run: count it from zero
        interval = total - self._total_bytes if total >= self._total_bytes else total
        self._total_bytes = total
        self._points.append((runtime_ms / 1000, total))
        return Progress(runtime_ms / 1000, interval, total)


class FioCreateParser(FioStreamParser):
    """fio's filecreate engine moves no data: each create is one completion-latency sample of the write direction,
    and the figure is files over the job's run time."""

    def __init__(self, workload: WorkloadId, expected_files: int) -> None:
        super().__init__(workload)
        self.expected_files = expected_files

    def _take(self, document: dict[str, Any]) -> Progress | None:
        self._last = document
        try:
            runtime_ms = _count(document["jobs"][0]["job_runtime"])
        except (LookupError, TypeError):
            return None
        return Progress(runtime_ms / 1000, 0, 0)

    def result(self) -> WorkloadResult:
        job, raw = self._final()
        try:
            error, runtime_ms = job.get("error"), _count(job["job_runtime"])
            files, mean_ns = _count(job["write"]["clat_ns"]["N"]), float(job["write"]["clat_ns"]["mean"])
        except (LookupError, TypeError, AttributeError, ValueError, OverflowError) as exc:
            raise WorkloadOutputError(self.workload, Tool.FIO, f"fio's JSON result lacks {exc}", raw) from None
        self._check_error(error, raw)
        if files != self.expected_files:
            raise WorkloadOutputError(
                self.workload, Tool.FIO, f"fio timed {files} files, not {self.expected_files}", raw
            )
        if runtime_ms <= 0:
            raise WorkloadOutputError(self.workload, Tool.FIO, "fio reported a runtime of 0 ms", raw)
        return WorkloadResult(self.workload, Tool.FIO, 0, runtime_ms / 1000, files, mean_ns / 1000, raw=raw)


def _count(value: object) -> int:
    """A counter of fio's JSON: an integer (a bool, a string or a float is not one)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"a counter that is not an integer: {value!r:.40}")
    return value


def _latencies_us(
    stats: dict[str, Any], histogram: Histogram | None
) -> tuple[float | None, float | None, float | None]:
    """Mean, p50 and p99 of the whole call in microseconds. For psync fio puts the I/O time in clat (slat is 0,
    lat = clat + a few us). The percentiles are read from the json+ histogram, as several clients' are from their
    merged one (bench/histogram.py); without one (plain json), from fio's own list (--lat_percentiles=1: under
    lat_ns), which fio reads from the same histogram the same way."""
    lat = stats.get("lat_ns") or {}
    if not lat.get("N"):
        return None, None, None
    if histogram:
        p50, p99 = percentile_ns(histogram, 50), percentile_ns(histogram, 99)
        return float(lat["mean"]) / 1000, _us(p50), _us(p99)
    percentiles = lat.get("percentile") or (stats.get("clat_ns") or {}).get("percentile") or {}
    return float(lat["mean"]) / 1000, _us(percentiles.get("50.000000")), _us(percentiles.get("99.000000"))


def _us(ns: float | None) -> float | None:
    return None if ns is None else float(ns) / 1000
