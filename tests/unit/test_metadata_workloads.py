"""The metadata workloads: fio's filecreate, filestat and filedelete engines (their output replayed from the lab's
captures, tests/captures/bench/README.md), and the shell loops used without fio, run here for real on a local
directory, as the client runs them on the mount."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nfstune.bench.commands import parser_for, workload_commands
from nfstune.bench.fallback import fallback_commands, small_files_tar_command
from nfstune.bench.figure import figure, repeat_record
from nfstune.bench.workloads import METADATA_DIR, Tool, WorkloadId, WorkloadOutputError, WorkloadSizes

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
SIZES = WorkloadSizes(seq_file_bytes=1024 * 1024, small_file_count=25, small_file_bytes=512, sync_4k_count=10)
RATES = (WorkloadId.FILE_CREATE, WorkloadId.FILE_STAT, WorkloadId.FILE_DELETE)


def run_local(argv: tuple[str, ...]) -> str:
    done = subprocess.run(list(argv), capture_output=True, text=True, check=True)
    return done.stdout


def test_without_fio_the_shell_creates_stats_and_deletes_every_file_and_says_how_long(tmp_path: Path) -> None:
    directory = tmp_path / METADATA_DIR
    seen = {}
    for workload in RATES:
        commands = fallback_commands(workload, str(tmp_path), SIZES)
        assert commands.tool is Tool.SH and commands.expected_ops == SIZES.small_file_count
        for argv in commands.prepare:
            run_local(argv)
        if workload is WorkloadId.FILE_CREATE:
            assert directory.is_dir() and list(directory.iterdir()) == []
        parser = parser_for(commands)
        progress = parser.feed(run_local(commands.run))
        result = parser.result()
        assert len(progress) == 1 and result.ops == SIZES.small_file_count and result.seconds > 0
        seen[workload] = sorted(p.name for p in directory.iterdir())
        assert figure(str(workload), repeat_record(result, 0)) == pytest.approx(result.ops / result.seconds)
        for argv in commands.cleanup:
            run_local(argv)
        assert not directory.exists()
    names = sorted(f"f.{i}" for i in range(SIZES.small_file_count))
    assert seen == {WorkloadId.FILE_CREATE: names, WorkloadId.FILE_STAT: names, WorkloadId.FILE_DELETE: []}


def test_a_stat_that_finds_a_file_missing_is_an_error_not_a_figure(tmp_path: Path) -> None:
    commands = fallback_commands(WorkloadId.FILE_STAT, str(tmp_path), SIZES)
    for argv in commands.prepare:
        run_local(argv)
    (tmp_path / METADATA_DIR / "f.7").unlink()
    done = subprocess.run(list(commands.run), capture_output=True, text=True, check=False)
    assert done.returncode != 0
    parser = parser_for(commands)
    parser.feed(done.stdout)
    with pytest.raises(WorkloadOutputError, match="no start and end time"):
        parser.result()


def test_tree_delete_times_rm_rf_of_the_small_files_tree_unpacked_before(tmp_path: Path) -> None:
    tar = str(tmp_path / "tree.tar")
    commands = fallback_commands(WorkloadId.TREE_DELETE, str(tmp_path / "share"), SIZES)
    assert commands.tool is Tool.SH and commands.needs_cold_cache
    (tmp_path / "share").mkdir()
    build, unpack = commands.prepare
    assert build == small_files_tar_command(SIZES.small_file_count, SIZES.small_file_bytes)
    run_local(small_files_tar_command(SIZES.small_file_count, SIZES.small_file_bytes, tar))
    run_local((*unpack[:-2], tar, unpack[-1]))  # the same script, with the tar file of this test
    tree = Path(unpack[-1])
    assert sum(1 for p in tree.rglob("*") if p.is_file()) == SIZES.small_file_count
    parser = parser_for(commands)
    parser.feed(run_local(commands.run))
    result = parser.result()
    assert not tree.exists() and result.ops == SIZES.small_file_count and result.seconds > 0
    assert figure("tree-delete", repeat_record(result, 0)) == result.seconds


def test_fio_creates_the_files_where_it_is_and_stat_delete_and_tree_delete_are_always_the_shell() -> None:
    commands = workload_commands(WorkloadId.FILE_CREATE, "/mnt/x/s", SIZES, fio_available=True)
    assert commands.tool is Tool.FIO and f"--nrfiles={SIZES.small_file_count}" in commands.run
    assert "--directory=/mnt/x/s/nfstune-metadata" in commands.run and "--filename_format=f.$filenum" in commands.run
    assert "--ioengine=filecreate" in commands.run and "--create_on_open=1" in commands.run
    for workload in (WorkloadId.FILE_STAT, WorkloadId.FILE_DELETE, WorkloadId.TREE_DELETE):
        assert workload_commands(workload, "/mnt/x/s", SIZES, fio_available=True).tool is Tool.SH


def test_fio_file_create_capture_gives_files_a_second_and_the_time_per_create() -> None:
    """30 files created under sync on the hdd lab (each create waits for the 8 ms flush): fio's two documents,
    the status one and the final one."""
    sizes = WorkloadSizes(24 * 1024 * 1024, 30, 4096, 100)  # the capture's (make_captures.SIZES)
    commands = workload_commands(WorkloadId.FILE_CREATE, "/mnt/bench-cap/nfstune-bench-cap", sizes, fio_available=True)
    parser = parser_for(commands)
    text = (CAPTURES / "fio-file-create.out").read_text()
    progress = [step for cut in range(0, len(text), 997) for step in parser.feed(text[cut : cut + 997])]
    result = parser.result()
    assert (result.ops, result.seconds, result.bytes) == (30, 1.401, 0)
    assert result.lat_mean_us is not None and 41_000 < result.lat_mean_us < 43_000  # clat mean 41826365 ns
    assert [p.elapsed_s for p in progress][-1] == 1.401 and all(p.total_bytes == 0 for p in progress)
    assert figure("file-create", repeat_record(result, 0)) == pytest.approx(30 / 1.401)


def test_a_fio_create_that_timed_fewer_files_is_refused() -> None:
    sizes = WorkloadSizes(24 * 1024 * 1024, 31, 4096, 100)
    parser = parser_for(workload_commands(WorkloadId.FILE_CREATE, "/s", sizes, fio_available=True))
    parser.feed((CAPTURES / "fio-file-create.out").read_text())
    with pytest.raises(WorkloadOutputError, match="fio timed 30 files, not 31"):
        parser.result()


def test_the_shells_captures_from_the_lab_parse_to_their_times() -> None:
    sizes = WorkloadSizes(24 * 1024 * 1024, 30, 4096, 100)
    seconds = {}
    for workload in (*RATES, WorkloadId.TREE_DELETE):
        parser = parser_for(fallback_commands(workload, "/mnt/bench-cap/nfstune-bench-cap", sizes))
        parser.feed((CAPTURES / f"sh-{workload}.out").read_text())
        result = parser.result()
        assert result.ops == 30
        seconds[str(workload)] = round(result.seconds, 3)
    # a cold stat is a LOOKUP and a GETATTR (~6.5 ms each), a create or an unlink waits for the hdd's flush too
    assert seconds == {"file-create": 1.402, "file-stat": 0.195, "file-delete": 1.431, "tree-delete": 1.544}
