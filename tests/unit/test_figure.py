"""The figure a workload is judged by (bench/figure.py): one function, whether the repeat was just measured or is
read back from the store, so the engine's stop rule and the summary see the same numbers. Results are parsed from
the lab's real tool output and go through a real SQLite store."""

from __future__ import annotations

from pathlib import Path

from nfstune.bench.commands import parser_for, workload_commands
from nfstune.bench.figure import figure, repeat_record
from nfstune.bench.workloads import MIB, Tool, WorkloadId, WorkloadResult, WorkloadSizes
from nfstune.store import Results, open_store

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
# the sizes the captures were made with (tests/captures/bench/make_captures.py)
SIZES = WorkloadSizes(seq_file_bytes=24 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=100)
CAPTURED = [
    (WorkloadId.SEQ_WRITE, True, "fio-seq-write.out"),
    (WorkloadId.SEQ_READ, True, "fio-seq-read.out"),
    (WorkloadId.SYNC_4K, True, "fio-sync-4k.out"),
    (WorkloadId.SEQ_WRITE, False, "dd-seq-write.out"),
    (WorkloadId.SEQ_READ, False, "dd-seq-read.out"),
    (WorkloadId.SYNC_4K, False, "dd-sync-4k.out"),
    (WorkloadId.SMALL_FILES, False, "tar-small-files.out"),
]


def parsed(workload: WorkloadId, fio: bool, capture: str) -> WorkloadResult:
    parser = parser_for(workload_commands(workload, "/mnt/x/.nfstune-1", SIZES, fio_available=fio))
    parser.feed((CAPTURES / capture).read_bytes().decode())
    return parser.result()


def test_a_repeat_has_the_same_figure_fresh_and_read_back_from_the_store(tmp_path: Path) -> None:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["r"])
    fresh: dict[int, tuple[str, float, WorkloadResult]] = {}
    for workload, fio, capture in CAPTURED:
        result = parsed(workload, fio, capture)
        record = repeat_record(result, wire_bytes=result.bytes + 4096)
        run = results.start_run(sid, recipe="r", config_label=capture, config={}, workload=str(workload))
        results.add_repeat(run, 1, warmup=False, values=record)
        fresh[run] = (str(workload), figure(workload, record), result)
    for run in results.session(sid)["runs"]:
        workload, value, result = fresh[run["id"]]
        assert value == figure(workload, run["repeats"][0]), run["config_label"]
        # what each figure means, in its recipe's unit
        if workload == "small-files":
            assert value == result.seconds
        elif workload == "sync-4k":  # ms per write: fio measures each, dd's is the mean over the run
            assert result.lat_mean_us is not None and value == result.lat_mean_us / 1000
        elif result.steady_mb_per_s is not None:
            assert value == result.steady_mb_per_s != result.mb_per_s
        else:
            assert value == result.mb_per_s


def test_sequential_figures_are_the_steady_state_when_known() -> None:
    short = WorkloadResult(WorkloadId.SEQ_WRITE, Tool.FIO, bytes=8 * MIB, seconds=2.0, ops=8)
    steady = WorkloadResult(WorkloadId.SEQ_WRITE, Tool.FIO, bytes=8 * MIB, seconds=2.0, ops=8, steady_mb_per_s=9.5)
    assert figure("seq-write", repeat_record(short, 0)) == 8 * MIB / 2.0 / 1e6
    assert figure("seq-write", repeat_record(steady, 0)) == 9.5
    assert figure("seq-read", {"mb_per_s": 4.2, "steady_mb_per_s": None}) == 4.2
    assert figure("seq-read", {"mb_per_s": 4.2, "steady_mb_per_s": 6.0}) == 6.0
    assert figure("seq-read", {"mb_per_s": 4.2}) == 4.2  # a repeat read from an older export


def test_a_sync_4k_run_that_counted_no_write_has_a_figure_not_a_division_by_zero() -> None:
    """engine.metric divided by the result's ops where stored_value divided by at least 1."""
    empty = WorkloadResult(WorkloadId.SYNC_4K, Tool.DD, bytes=4096, seconds=0.5, ops=0)
    assert figure("sync-4k", repeat_record(empty, 0)) == 500.0
