"""fio jobs as argv, and the streamed-JSON parser on fio 3.33's real output from the lab."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfstune.bench.commands import workload_commands
from nfstune.bench.fio import FioStreamParser, fio_commands
from nfstune.bench.workloads import (
    MIB,
    Progress,
    Tool,
    WorkloadId,
    WorkloadOutputError,
    WorkloadResult,
    WorkloadSizes,
)
from nfstune.nfs.mountstats import parse_mountstats

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
SIZES = WorkloadSizes(seq_file_bytes=24 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=100)
OUTPUT = ["--output-format=json+", "--status-interval=1", "--eta=never"]
IO = ["--ioengine=psync", "--direct=0", "--fallocate=none"]


def capture(name: str) -> str:
    return (CAPTURES / name).read_bytes().decode()


def parse(workload: WorkloadId, text: str, expected: int | None = None) -> tuple[list[Progress], WorkloadResult]:
    parser = FioStreamParser(workload, expected)
    progress = parser.feed(text)
    return progress, parser.result()


# --- argv -------------------------------------------------------------------------------------------------------


def test_fio_argv_of_each_workload() -> None:
    write = fio_commands(WorkloadId.SEQ_WRITE, "/mnt/x/.nfstune-1", SIZES)
    assert list(write.run) == [
        "fio",
        "--name=seq-write",
        "--filename=/mnt/x/.nfstune-1/nfstune-seq.dat",
        "--bs=1048576",
        "--size=25165824",
        "--rw=write",
        "--end_fsync=1",
        *IO,
        *OUTPUT,
    ]
    assert write.prepare == (("rm", "-f", "--", "/mnt/x/.nfstune-1/nfstune-seq.dat"),)
    assert (write.tool, write.expected_bytes, write.expected_ops, write.cleanup) == (Tool.FIO, 25165824, 24, ())
    read = fio_commands(WorkloadId.SEQ_READ, "/mnt/x/.nfstune-1", SIZES)
    assert list(read.run) == [
        "fio",
        "--name=seq-read",
        "--filename=/mnt/x/.nfstune-1/nfstune-seq.dat",
        "--bs=1048576",
        "--size=25165824",
        "--rw=read",
        "--readonly",
        *IO,
        *OUTPUT,
    ]
    assert read.needs_cold_cache and read.prepare == ()
    assert read.cleanup == (("rm", "-f", "--", "/mnt/x/.nfstune-1/nfstune-seq.dat"),)
    sync = fio_commands(WorkloadId.SYNC_4K, "/mnt/x/.nfstune-1", SIZES)
    assert list(sync.run) == [
        "fio",
        "--name=sync-4k",
        "--filename=/mnt/x/.nfstune-1/nfstune-sync4k.dat",
        "--bs=4096",
        "--size=409600",
        "--rw=write",
        "--sync=dsync",
        "--lat_percentiles=1",
        "--percentile_list=50:99",
        *IO,
        *OUTPUT,
    ]
    assert sync.prepare == sync.cleanup == (("rm", "-f", "--", "/mnt/x/.nfstune-1/nfstune-sync4k.dat"),)
    assert (sync.expected_bytes, sync.expected_ops) == (409600, 100)
    with pytest.raises(ValueError, match="always runs with tar"):
        fio_commands(WorkloadId.SMALL_FILES, "/mnt/x", SIZES)


def test_fio_argv_is_safe_for_any_directory_name() -> None:
    """Spaces and quotes need nothing (one argv element each); fio itself splits --filename at ':'."""
    commands = workload_commands(WorkloadId.SEQ_WRITE, "/mnt/my share/it's:here", SIZES, fio_available=True)
    assert commands.run[2] == "--filename=/mnt/my share/it's\\:here/nfstune-seq.dat"
    assert commands.prepare == (("rm", "-f", "--", "/mnt/my share/it's:here/nfstune-seq.dat"),)


# --- the lab's captures -----------------------------------------------------------------------------------------


def test_seq_write_capture_counts_the_end_fsync_in_the_time() -> None:
    progress, result = parse(WorkloadId.SEQ_WRITE, capture("fio-seq-write.out"), 24 * MIB)
    # 24 MiB were in the page cache after 0.646 s; the fsync (COMMIT) took until 2.13 s; the last two documents
    # are the status report printed at the end and the final result
    assert progress == [
        Progress(0.646, 25165824, 25165824),
        Progress(2.13, 0, 25165824),
        Progress(2.13, 0, 25165824),
    ]
    assert sum(p.interval_bytes for p in progress) == result.bytes == 25165824
    assert (result.workload, result.tool, result.seconds, result.ops) == (WorkloadId.SEQ_WRITE, Tool.FIO, 2.13, 24)
    assert result.mb_per_s == pytest.approx(11.8149, abs=1e-4)
    # fio's own figure agrees: bw is KiB/s over the same runtime
    final = json.loads(capture("fio-seq-write.out")[capture("fio-seq-write.out").rfind('{\n  "fio version"') :])
    assert final["jobs"][0]["write"]["bw"] == int(result.bytes / 1024 / result.seconds) == 11538
    assert (result.lat_mean_us, result.lat_p50_us, result.lat_p99_us) == (None, None, None)
    assert result.raw == capture("fio-seq-write.out")


def test_seq_read_capture() -> None:
    progress, result = parse(WorkloadId.SEQ_READ, capture("fio-seq-read.out"), 24 * MIB)
    assert progress == [
        Progress(0.767, 7340032, 7340032),
        Progress(1.767, 14680064, 22020096),
        Progress(1.928, 3145728, 25165824),
    ]
    assert sum(p.interval_bytes for p in progress) == result.bytes == 25165824
    assert (result.seconds, result.ops) == (1.928, 24)
    assert result.mb_per_s == pytest.approx(25.165824 / 1.928)


def test_sync_4k_capture_gives_latency_and_iops() -> None:
    progress, result = parse(WorkloadId.SYNC_4K, capture("fio-sync-4k.out"), 409600)
    assert [p.elapsed_s for p in progress] == [0.782, 1.782, 2.781, 3.781, 4.781, 5.437]
    assert [p.interval_bytes for p in progress] == [57344, 73728, 73728, 73728, 77824, 53248]
    assert sum(p.interval_bytes for p in progress) == result.bytes == 409600
    assert (result.ops, result.seconds) == (100, 5.437)
    assert result.ops_per_s == pytest.approx(18.3925, abs=1e-4)
    assert result.lat_mean_us == pytest.approx(54154.95279)
    assert (result.lat_p50_us, result.lat_p99_us) == (52690.944, 66846.72)
    # one write at a time: 100 latencies add up to nearly the whole runtime
    assert result.lat_mean_us * result.ops / 1e6 == pytest.approx(result.seconds, rel=0.01)


def test_sync_4k_capture_o_dsync_gives_one_stable_write_per_op_and_no_commit() -> None:
    """Why sync=dsync rather than fdatasync=1: the client's mountstats around the run (from the sampler) show
    exactly one WRITE per operation and no COMMIT, so each op is one round trip to stable storage."""
    text = capture("sampler-client-fio-sync-4k.txt")
    blocks = [
        part.split("@/proc/self/mountstats\n")[1].split("NFSTUNE_SAMPLE_END")[0]
        for part in text.split("NFSTUNE_SAMPLE ")[1:]
    ]
    first, last = (parse_mountstats(block)[-1].nfs for block in (blocks[0], blocks[-1]))
    assert first is not None and last is not None and first.rpc is not None and last.rpc is not None
    ops = {op.name: op.ops for op in last.rpc.ops}
    ops_before = {op.name: op.ops for op in first.rpc.ops}
    assert {name: n - ops_before[name] for name, n in ops.items() if n != ops_before[name]} == {
        "WRITE": 100,
        "OPEN": 1,
        "OPEN_NOATTR": 1,
        "CLOSE": 2,
        "LOOKUP": 1,
    }
    assert last.bytes["server_write_bytes"] - first.bytes["server_write_bytes"] == 409600


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_chunking_gives_the_same_progress_and_result(data: st.DataObject) -> None:
    name, workload = data.draw(
        st.sampled_from([("fio-sync-4k.out", WorkloadId.SYNC_4K), ("fio-seq-read.out", WorkloadId.SEQ_READ)])
    )
    text = capture(name)
    whole = parse(workload, text)
    cuts = sorted(data.draw(st.sets(st.integers(min_value=1, max_value=len(text) - 1), max_size=80)))
    parser, progress = FioStreamParser(workload), []
    for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):
        progress += parser.feed(text[start:end])
    assert (progress, parser.result()) == whole


def test_text_before_and_between_documents_is_skipped() -> None:
    docs = capture("fio-seq-read.out")
    first_end = docs.index("\n}\n") + 3
    noisy = (
        "seq-read: Laying out IO file (1 file / 24MiB)\nfio: a {brace} in a warning\n"
        + docs[:first_end]
        + "note: {not json\n"
        + docs[first_end:]
    )
    progress, result = parse(WorkloadId.SEQ_READ, noisy)
    clean_progress, clean_result = parse(WorkloadId.SEQ_READ, docs)
    assert progress == clean_progress
    assert replace(result, raw="") == replace(clean_result, raw="")
    assert result.raw == noisy


def test_failures_are_errors_with_the_output() -> None:
    text = capture("fio-seq-write.out")
    with pytest.raises(WorkloadOutputError, match="fio printed no JSON result"):
        parse(WorkloadId.SEQ_WRITE, text[: len(text) // 5])  # killed during its first second
    with pytest.raises(WorkloadOutputError, match=r"fio reported error 28 \(No space left on device\)"):
        parse(WorkloadId.SEQ_WRITE, text.replace('"error" : 0', '"error" : 28'))
    with pytest.raises(WorkloadOutputError, match="fio moved 25165824 bytes, not 26214400"):
        parse(WorkloadId.SEQ_WRITE, text, 25 * MIB)
