"""Workload definitions, the dd/tar fallback (argv, the scripts run for real, the parsers on lab captures) and
the sizing rules."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfstune.bench.commands import parser_for, workload_commands
from nfstune.bench.fallback import (
    SEQ_READ_SCRIPT,
    SEQ_WRITE_SCRIPT,
    SMALL_FILES_SCRIPT,
    SMALL_FILES_TAR_SCRIPT,
    SYNC_4K_SCRIPT,
    DdStreamParser,
    TarParser,
    fallback_commands,
    small_files_tar_command,
)
from nfstune.bench.sizing import GIB, Scale, SizingError, default_sizes, plan_sizes
from nfstune.bench.steady import steady_mb_per_s
from nfstune.bench.workloads import (
    MIB,
    WORKLOADS,
    Progress,
    Tool,
    WorkloadId,
    WorkloadOutputError,
    WorkloadResult,
    WorkloadSizes,
)
from nfstune.recipes.model import WORKLOADS as RECIPE_WORKLOADS

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
SCRATCH = "/mnt/x/.nfstune-1"
SIZES = WorkloadSizes(seq_file_bytes=24 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=100)


def capture(name: str) -> str:
    # bytes, decoded by hand: read_text() would turn dd's "\r" separators into "\n"
    return (CAPTURES / name).read_bytes().decode()


def parse_whole(parser: DdStreamParser | TarParser, text: str) -> tuple[list[Progress], WorkloadResult]:
    progress = parser.feed(text)
    return progress, parser.result()


# --- definitions ------------------------------------------------------------------------------------------------


def test_the_reads_need_cold_caches_and_seq_read_reads_what_seq_write_wrote() -> None:
    """A read, a stat or an unlink served by the client's caches would not measure the server."""
    cold = [WorkloadId.SEQ_READ, WorkloadId.FILE_STAT, WorkloadId.FILE_DELETE, WorkloadId.TREE_DELETE]
    assert [w for w, spec in WORKLOADS.items() if spec.needs_cold_cache] == cold
    assert [w for w, spec in WORKLOADS.items() if spec.reads_file_of] == [WorkloadId.SEQ_READ]
    assert WORKLOADS[WorkloadId.SEQ_READ].reads_file_of is WorkloadId.SEQ_WRITE
    assert [str(w) for w in WorkloadId] == [
        "seq-write",
        "seq-read",
        "small-files",
        "sync-4k",
        "file-create",
        "file-stat",
        "file-delete",
        "tree-delete",
    ]
    written = workload_commands(WorkloadId.SEQ_WRITE, SCRATCH, SIZES, fio_available=False).run[-2]
    read = workload_commands(WorkloadId.SEQ_READ, SCRATCH, SIZES, fio_available=False).run[-1]
    assert written == read == "/mnt/x/.nfstune-1/nfstune-seq.dat"  # fio's file name: test_fio


def test_sizes_must_be_whole_mib_and_positive() -> None:
    with pytest.raises(ValueError, match="number of MiB"):
        WorkloadSizes(MIB + 1, 1, 1, 1)
    with pytest.raises(ValueError, match="positive"):
        WorkloadSizes(MIB, 0, 4096, 1)
    assert WorkloadSizes(3 * MIB, 1, 1, 1).seq_blocks == 3


def test_the_tool_is_fio_when_the_client_has_it_except_for_small_files_which_is_always_tar() -> None:
    tools = {
        (str(w), fio): workload_commands(w, SCRATCH, SIZES, fio_available=fio).tool
        for w in WorkloadId
        for fio in (True, False)
    }
    assert tools == {
        ("seq-write", True): Tool.FIO,
        ("seq-write", False): Tool.DD,
        ("seq-read", True): Tool.FIO,
        ("seq-read", False): Tool.DD,
        ("small-files", True): Tool.TAR,
        ("small-files", False): Tool.TAR,
        ("sync-4k", True): Tool.FIO,
        ("sync-4k", False): Tool.DD,
        ("file-create", True): Tool.FIO,
        ("file-create", False): Tool.SH,
        ("file-stat", True): Tool.SH,
        ("file-stat", False): Tool.SH,
        ("file-delete", True): Tool.SH,
        ("file-delete", False): Tool.SH,
        ("tree-delete", True): Tool.SH,
        ("tree-delete", False): Tool.SH,
    }
    for workload in WorkloadId:
        for fio in (True, False):
            commands = workload_commands(workload, SCRATCH, SIZES, fio_available=fio)
            assert (
                type(parser_for(commands)).__name__
                == {
                    Tool.FIO: "FioCreateParser" if workload is WorkloadId.FILE_CREATE else "FioStreamParser",
                    Tool.DD: "DdStreamParser",
                    Tool.TAR: "TarParser",
                    Tool.SH: "TarParser",
                }[commands.tool]
            )


# --- fallback argv ----------------------------------------------------------------------------------------------


def test_fallback_argv_passes_paths_as_arguments_never_inside_the_script() -> None:
    odd = "/mnt/my share/it's $HOME;`x`/.nfstune-1"
    write = fallback_commands(WorkloadId.SEQ_WRITE, odd, SIZES)
    assert write.run == ("sh", "-c", SEQ_WRITE_SCRIPT, "nfstune-seq-write", f"{odd}/nfstune-seq.dat", "24")
    assert (write.expected_bytes, write.expected_ops, write.prepare, write.cleanup) == (24 * MIB, 24, (), ())
    read = fallback_commands(WorkloadId.SEQ_READ, odd, SIZES)
    assert read.run == ("sh", "-c", SEQ_READ_SCRIPT, "nfstune-seq-read", f"{odd}/nfstune-seq.dat")
    assert read.cleanup == (("rm", "-f", "--", f"{odd}/nfstune-seq.dat"),)
    sync = fallback_commands(WorkloadId.SYNC_4K, odd + "/", SIZES)  # a trailing slash changes nothing
    assert sync.run == ("sh", "-c", SYNC_4K_SCRIPT, "nfstune-sync-4k", f"{odd}/nfstune-sync4k.dat", "100")
    assert (sync.expected_bytes, sync.expected_ops) == (409600, 100)
    small = fallback_commands(WorkloadId.SMALL_FILES, odd, SIZES)
    tree = f"{odd}/nfstune-smallfiles"
    assert small.run == ("sh", "-c", SMALL_FILES_SCRIPT, "nfstune-small-files", "/var/tmp/nfstune-smallfiles.tar", tree)
    assert small.prepare == (
        ("sh", "-c", SMALL_FILES_TAR_SCRIPT, "nfstune-smallfiles-tar", "/var/tmp/nfstune-smallfiles.tar", "30", "4096"),
    )
    assert small.cleanup == (("rm", "-rf", "--", tree),)
    assert (small.expected_bytes, small.expected_ops) == (30 * 4096, 30)
    for script in (SEQ_WRITE_SCRIPT, SEQ_READ_SCRIPT, SYNC_4K_SCRIPT, SMALL_FILES_SCRIPT, SMALL_FILES_TAR_SCRIPT):
        assert odd not in script and "nfstune-seq.dat" not in script


def test_the_fallback_scripts_run_for_real_in_a_directory_with_awkward_characters(tmp_path: Path) -> None:
    """The exact scripts, run by sh with dd, tar and coreutils on this machine."""
    scratch = tmp_path / 'my share: it\'s "$HOME"' / ".nfstune-1"
    scratch.mkdir(parents=True)
    sizes = WorkloadSizes(seq_file_bytes=2 * MIB, small_file_count=130, small_file_bytes=100, sync_4k_count=5)
    results = {}
    for workload in (WorkloadId.SEQ_WRITE, WorkloadId.SEQ_READ, WorkloadId.SYNC_4K):
        commands = fallback_commands(workload, str(scratch), sizes)
        done = subprocess.run(commands.run, capture_output=True, check=True)
        assert done.stderr == b""  # dd's messages come on stdout (2>&1), in order with the time marks
        parser = parser_for(commands)
        parser.feed(done.stdout.decode())
        results[workload] = parser.result()
    assert (scratch / "nfstune-seq.dat").stat().st_size == 2 * MIB
    assert (scratch / "nfstune-sync4k.dat").stat().st_size == 5 * 4096
    assert [(r.tool, r.bytes, r.ops) for r in results.values()] == [
        (Tool.DD, 2 * MIB, 2),
        (Tool.DD, 2 * MIB, 2),
        (Tool.DD, 20480, 5),
    ]
    assert results[WorkloadId.SYNC_4K].lat_mean_us == pytest.approx(results[WorkloadId.SYNC_4K].seconds / 5 * 1e6)

    tar = tmp_path / "tar dir" / "small files.tar"
    tar.parent.mkdir()
    generate = small_files_tar_command(130, 100, str(tar))
    subprocess.run(generate, check=True)
    listing = subprocess.run(["tar", "-tvf", str(tar)], capture_output=True, text=True, check=True).stdout
    files = [line for line in listing.splitlines() if line.startswith("-")]
    assert len(files) == 130 and all(" 100 " in line for line in files)
    assert {line.split()[-1].split("/")[1] for line in files} == {"d0", "d1"}  # 100 files a directory
    assert sorted(p.name for p in tar.parent.iterdir()) == ["small files.tar"]  # no work tree left behind
    mtime = tar.stat().st_mtime_ns
    subprocess.run(generate, check=True)
    assert tar.stat().st_mtime_ns == mtime  # the same tree: not built again

    tree = str(scratch / "nfstune-smallfiles")
    done = subprocess.run(("sh", "-c", SMALL_FILES_SCRIPT, "x", str(tar), tree), capture_output=True, check=True)
    parser = TarParser(WorkloadId.SMALL_FILES, 13000, 130)
    parser.feed(done.stdout.decode())
    result = parser.result()
    assert (result.tool, result.bytes, result.ops) == (Tool.TAR, 13000, 130)
    assert sum(1 for p in Path(tree).rglob("*") if p.is_file()) == 130


# --- fallback parsers on the lab's captures ---------------------------------------------------------------------


def test_dd_seq_write_capture_is_timed_from_before_dd_to_after_its_fsync() -> None:
    progress, result = parse_whole(DdStreamParser(WorkloadId.SEQ_WRITE, 24 * MIB), capture("dd-seq-write.out"))
    # dd printed no progress line (the writes went to the page cache within a second, then the fsync)
    assert progress == [Progress(1.63521, 25165824, 25165824)]
    assert (result.workload, result.tool, result.bytes, result.ops) == (WorkloadId.SEQ_WRITE, Tool.DD, 25165824, 24)
    # 1795319231.816430944 - 1795319230.043100187, to the nanosecond (float epoch times would be off by 0.2 us)
    assert result.seconds == 1.773330757
    assert result.seconds > 1.63521  # wall clock includes starting dd; dd says "15.4 MB/s" for its own time
    assert result.mb_per_s == pytest.approx(14.1913, abs=1e-4)
    assert result.mib_per_s == pytest.approx(result.mb_per_s * 1e6 / MIB)
    assert (result.lat_mean_us, result.lat_p50_us, result.lat_p99_us) == (None, None, None)
    assert result.raw == capture("dd-seq-write.out")


def test_dd_seq_read_capture_progress_lines_split_by_carriage_returns() -> None:
    progress, result = parse_whole(DdStreamParser(WorkloadId.SEQ_READ, 24 * MIB), capture("dd-seq-read.out"))
    assert progress == [
        Progress(1.0, 3145728, 3145728),
        Progress(2.0, 12582912, 15728640),
        Progress(3.0, 5242880, 20971520),
        Progress(3.62681, 4194304, 25165824),  # the summary, after "24+0 records out"
    ]
    assert sum(p.interval_bytes for p in progress) == result.bytes == 25165824
    assert result.seconds == 3.728257514
    assert result.mb_per_s == pytest.approx(25.165824 / 3.728257514)


def test_dd_sync_4k_capture_gives_ops_per_second_and_the_mean_latency() -> None:
    progress, result = parse_whole(DdStreamParser(WorkloadId.SYNC_4K, 409600), capture("dd-sync-4k.out"))
    assert [p.elapsed_s for p in progress] == [1.0, 2.0, 3.0, 4.0, 5.0, 5.29665]
    assert sum(p.interval_bytes for p in progress) == result.bytes == 409600
    assert result.ops == 100
    assert result.seconds == 5.422750235
    assert result.ops_per_s == pytest.approx(18.4408, abs=1e-4)
    assert result.lat_mean_us == pytest.approx(54227.50, abs=0.01)  # 54 ms a stable 4 KiB write in the lab
    assert (result.lat_p50_us, result.lat_p99_us) == (None, None)  # dd cannot tell


def test_tar_small_files_capture() -> None:
    progress, result = parse_whole(TarParser(WorkloadId.SMALL_FILES, 30 * 4096, 30), capture("tar-small-files.out"))
    seconds = 6.281787103  # 1795319255.324463517 - 1795319249.042676414
    assert [(p.elapsed_s, p.interval_bytes, p.total_bytes) for p in progress] == [(seconds, 122880, 122880)]
    assert result.seconds == seconds
    assert (result.tool, result.bytes, result.ops) == (Tool.TAR, 122880, 30)
    assert result.ops_per_s == pytest.approx(30 / seconds)  # 4.8 files/s: 0.21 s a file on the lab's sync export


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=60))
def test_dd_parser_gives_the_same_whatever_the_chunks(cuts: list[int]) -> None:
    text = capture("dd-sync-4k.out")
    whole = parse_whole(DdStreamParser(WorkloadId.SYNC_4K), text)
    parser, progress, position = DdStreamParser(WorkloadId.SYNC_4K), [], 0
    for cut in cuts * (len(text) // sum(cuts) + 1):
        progress += parser.feed(text[position : position + cut])
        position += cut
    assert (progress, parser.result()) == whole


def test_dd_failures_are_reported_with_its_last_words() -> None:
    failed = "NFSTUNE_T0=1.0\ndd: error writing '/mnt/x/f': No space left on device\n3+0 records in\n2+0 records out\n"
    parser = DdStreamParser(WorkloadId.SEQ_WRITE, 3 * MIB)
    parser.feed(failed + "2097152 bytes (2.1 MB, 2.0 MiB) copied, 0.1 s, 21 MB/s\n")
    with pytest.raises(WorkloadOutputError, match=r"dd moved 2097152 bytes, not 3145728(.|\n)*No space left"):
        parser.result()
    parser = DdStreamParser(WorkloadId.SEQ_READ)
    parser.feed("NFSTUNE_T0=1.0\ndd: failed to open '/mnt/x/f': No such file or directory\n")
    with pytest.raises(WorkloadOutputError, match="no summary"):
        parser.result()
    parser = TarParser(WorkloadId.SMALL_FILES, 300, 3)
    parser.feed("NFSTUNE_T0=1.0\nNFSTUNE_T1=2.5\nNFSTUNE_FILES=2\n")
    with pytest.raises(WorkloadOutputError, match="2 files were created, not 3"):
        parser.result()


def test_dd_without_nanoseconds_falls_back_to_its_own_time() -> None:
    parser = DdStreamParser(WorkloadId.SEQ_WRITE)
    parser.feed("NFSTUNE_T0=1795319230.%N\n1+0 records in\n1+0 records out\n")
    parser.feed("1048576 bytes (1.0 MB, 1.0 MiB) copied, 0.5 s, 2.1 MB/s\nNFSTUNE_T1=1795319231.%N")
    assert parser.result().seconds == 0.5


# --- sizing -----------------------------------------------------------------------------------------------------


def written_bytes(sizes: WorkloadSizes) -> int:
    """What one configuration's workloads leave on the share, by their own commands (seq-read reads seq-write's)."""
    writers = (WorkloadId.SEQ_WRITE, WorkloadId.SMALL_FILES, WorkloadId.SYNC_4K)
    return sum(workload_commands(w, SCRATCH, sizes, fio_available=False).expected_bytes for w in writers)


def test_small_scale_gives_a_cold_read_its_steady_seconds_in_the_lab() -> None:
    sizing = plan_sizes(1 * GIB, 1 * GIB, 3 * GIB, "small")
    seq = sizing.sizes.seq_file_bytes
    # the lab's fastest cold read, 12.0 MB/s (docs/lab-poc/README.md, unshaped link), reported once a second as dd
    # and fio do: the read still lasts long enough for bench/steady.py to give its steady rate
    rate = 12.0e6
    points = [(float(t), int(t * rate)) for t in range(1, int(seq / rate) + 1)] + [(seq / rate, seq)]
    assert steady_mb_per_s(points) == pytest.approx(12.0)
    assert sizing.needed_bytes >= written_bytes(sizing.sizes) > seq  # the share's space covers every file


def test_normal_scale_lasts_about_eight_seconds_at_the_links_speed_between_256_mib_and_4_gib() -> None:
    big_free = 1000 * GIB
    for link_mbps in (100, 1000, 2500, 10000):
        seq = plan_sizes(8 * GIB, 2 * GIB, big_free, Scale.NORMAL, link_mbps).sizes.seq_file_bytes
        payload = link_mbps * 1e6 / 8 * 0.88  # what NFS over TCP moves on such a link, about
        assert seq % MIB == 0 and 256 * MIB <= seq <= 4 * GIB
        if 256 * MIB < seq < 4 * GIB:
            assert 7.0 <= seq / payload <= 9.0  # the five steady seconds bench/steady.py needs, and start-up
    assert plan_sizes(8 * GIB, 2 * GIB, big_free, Scale.NORMAL, 100).sizes.seq_file_bytes == 256 * MIB  # at least
    assert plan_sizes(8 * GIB, 2 * GIB, big_free, Scale.NORMAL, 10000).sizes.seq_file_bytes == 4 * GIB  # at most
    # the RAM no longer enters (the caches are dropped before every read); an unknown speed: 1 GiB
    assert plan_sizes(512 * MIB, 256 * MIB, big_free, Scale.NORMAL).sizes.seq_file_bytes == GIB
    assert plan_sizes(64 * GIB, 64 * GIB, big_free, Scale.NORMAL).sizes.seq_file_bytes == GIB
    normal, small = plan_sizes(8 * GIB, 2 * GIB, big_free, "normal"), plan_sizes(8 * GIB, 2 * GIB, big_free, "small")
    assert normal.sizes.small_file_count > small.sizes.small_file_count
    assert normal.sizes.sync_4k_count > small.sizes.sync_4k_count


def test_never_more_than_half_the_free_space() -> None:
    free = 3 * GIB
    sizing = plan_sizes(8 * GIB, 8 * GIB, free, Scale.NORMAL, 10000)
    # the seq file takes what is left of half the free space, in whole MiB, below the 4 GiB it would like
    assert free // 2 - MIB < sizing.needed_bytes <= free // 2
    assert sizing.sizes.seq_file_bytes % MIB == 0 and sizing.needed_bytes >= written_bytes(sizing.sizes)
    others = sizing.needed_bytes - sizing.sizes.seq_file_bytes
    # just enough for the 256 MiB minimum, then just too little
    assert plan_sizes(GIB, GIB, 2 * (256 * MIB + others), "normal").sizes.seq_file_bytes == 256 * MIB
    with pytest.raises(SizingError, match="never uses more than half"):
        plan_sizes(GIB, GIB, 2 * (256 * MIB + others) - 2, "normal")
    with pytest.raises(SizingError, match="has 8 MiB free"):
        plan_sizes(GIB, GIB, 8 * MIB, "small")
    assert plan_sizes(GIB, GIB, 10 * MIB, "small").sizes.seq_file_bytes == 4 * MIB


def test_sizing_refuses_nonsense_inputs() -> None:
    with pytest.raises(ValueError):
        plan_sizes(0, GIB, GIB, "small")
    with pytest.raises(ValueError):
        plan_sizes(GIB, GIB, GIB, "huge")


def test_default_sizes_are_the_rules_for_a_1_gib_host_with_room_to_spare() -> None:
    """Unprobed hosts and the plan shown before connecting get the sizes a probed 1 GiB host would."""
    for scale in Scale:
        assert default_sizes(scale) == plan_sizes(GIB, GIB, 1000 * GIB, scale).sizes
    assert default_sizes("small").seq_file_bytes < default_sizes("normal").seq_file_bytes


def test_one_workload_registry_for_recipes_and_the_bench() -> None:
    """The recipes' text-keyed view holds the very specs the bench runs, and every workload has a unit."""
    assert list(RECIPE_WORKLOADS) == [str(w) for w in WorkloadId]
    assert all(RECIPE_WORKLOADS[str(w)] is WORKLOADS[w] for w in WorkloadId)
    assert {w: (s.unit, s.higher_is_better) for w, s in RECIPE_WORKLOADS.items()} == {
        "seq-write": ("MB/s", True),
        "seq-read": ("MB/s", True),
        "small-files": ("s", False),
        "sync-4k": ("ms", False),
        "file-create": ("files/s", True),
        "file-stat": ("files/s", True),
        "file-delete": ("files/s", True),
        "tree-delete": ("s", False),
    }
