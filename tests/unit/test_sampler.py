"""The /proc sampler: its shell command (run here for real), its parser on lab captures taken while the
workloads ran, and the psutil sampler of this machine.

Tolerances against the bytes a workload moved (tests/captures/bench/README.md):
- NFS (mountstats server_write/server_read): the sum of rate x interval telescopes to last - first counter,
  and the window holds the whole workload, so it is equal up to float rounding.
- NIC: payload plus TCP/IP/Ethernet headers (66 bytes per 1448-byte segment at MTU 1500, 4.6 %), plus RPC
  headers and the other direction's ACKs: 0-8 % more for 128 KiB WRITE/READs (measured 4.7 %); for 4 KiB sync
  writes each op carries ~400 bytes of RPC and TCP on top, so 0-25 % (measured 10 %).
- Server disk: the file plus ext4's journal and inode updates: 0-2 % more (measured 0.18 %).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfstune.bench.sampler import (
    SNAPSHOT_AWK,
    TICKING_AWK,
    LocalSampler,
    Sample,
    SampleParser,
    pick_disks,
    sampler_command,
)

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
SEQ_BYTES = 24 * 1024 * 1024


def capture(name: str) -> list[Sample]:
    return SampleParser().feed((CAPTURES / name).read_bytes().decode())


def total(samples: list[Sample], rate: str, key: str | None = None) -> float:
    """Bytes over the capture: the sum of rate x interval."""
    sums = 0.0
    for sample in samples:
        value = getattr(sample, rate)
        sums += (value[key] if key is not None else value) * sample.interval_s
    return sums


def assert_sane(samples: list[Sample]) -> None:
    for sample in samples:
        assert sample.interval_s > 0
        assert sample.cpu_busy_percent is not None and 0 <= sample.cpu_busy_percent <= 100
        rates = [sample.nfs_read_bytes_per_s, sample.nfs_write_bytes_per_s]
        for mapping in (
            sample.disk_read_bytes_per_s,
            sample.disk_write_bytes_per_s,
            sample.net_rx_bytes_per_s,
            sample.net_tx_bytes_per_s,
        ):
            rates += list(mapping.values())
        assert all(rate is None or rate >= 0 for rate in rates)


# --- the command ------------------------------------------------------------------------------------------------


def test_the_command_quotes_the_escaped_mount_point() -> None:
    loop = (
        'while :; do sleep 0.5 & echo "NFSTUNE_SAMPLE $(date +%s.%N)"; '
        f"awk '{SNAPSHOT_AWK}' /proc/diskstats /proc/net/dev /proc/stat@MORE@; echo NFSTUNE_SAMPLE_END; wait; done"
    )
    assert sampler_command(None, 0.5) == loop.replace("@MORE@", "")
    # the kernel writes a space as \040 in mountstats; the shell gets the escaped form, quoted
    assert sampler_command("/mnt/it's here", 0.5) == (
        "NFSTUNE_MP='/mnt/it'\"'\"'s\\040here'; export NFSTUNE_MP; " + loop.replace("@MORE@", " /proc/self/mountstats")
    )
    assert sampler_command("/mnt/x/") == sampler_command("/mnt/x")
    with pytest.raises(ValueError):
        sampler_command(None, 0)


def test_a_whole_second_is_ticked_by_vmstat_where_it_exists_else_by_the_loop() -> None:
    command = sampler_command("/mnt/x", 2)
    assert command.startswith("NFSTUNE_MP=/mnt/x; export NFSTUNE_MP; if command -v vmstat >/dev/null 2>&1; then ")
    ticking, _, loop = command.partition("; else ")
    assert "vmstat -n 2 | $A " in ticking and "'" + TICKING_AWK + "'" in ticking
    assert loop == (
        'while :; do sleep 2 & echo "NFSTUNE_SAMPLE $(date +%s.%N)"; '
        f"awk '{SNAPSHOT_AWK}' /proc/diskstats /proc/net/dev /proc/stat /proc/self/mountstats; "
        "echo NFSTUNE_SAMPLE_END; wait; done; fi"
    )


def run_for(seconds: float, command: str, path: str | None = None) -> str:
    env = None if path is None else {"PATH": path}
    out = subprocess.run(
        [shutil.which("timeout") or "timeout", str(seconds), "sh", "-c", command],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 124 and out.stderr == ""  # stopped by timeout, no complaint on the way
    return out.stdout


def test_vmstat_ticks_one_snapshot_a_second_with_the_wall_clock_time() -> None:
    assert shutil.which("vmstat"), "procps is one of make test's packages: without it this tests the loop"
    before = time.time()
    out = run_for(3.6, sampler_command("/proc"))
    samples = SampleParser().feed(out)
    assert len(samples) >= 2
    assert all(0.9 < s.interval_s < 1.1 for s in samples)
    # the time is the epoch (worked out from /proc/uptime), not seconds since boot
    assert all(before - 1 < s.time < time.time() + 1 for s in samples)
    assert {
        part.split("@/proc/self/mountstats\n")[1].split("NFSTUNE_SAMPLE_END")[0]
        for part in out.split("NFSTUNE_SAMPLE ")[1:]
        if "NFSTUNE_SAMPLE_END" in part
    } == {"device proc mounted on /proc with fstype proc\n"}
    assert_sane(samples)


def test_without_vmstat_the_loop_samples(tmp_path: Path) -> None:
    """A host with a shell and awk but no vmstat (a small appliance): the same snapshots from the loop."""
    for tool in ("sh", "awk", "date", "sleep"):
        (tmp_path / tool).symlink_to(shutil.which(tool) or tool)
    out = run_for(2.5, sampler_command(None), str(tmp_path))
    samples = SampleParser().feed(out)
    assert len(samples) >= 1 and all(0.9 < s.interval_s < 1.2 for s in samples)
    assert_sane(samples)


def test_the_command_runs_here_and_keeps_only_our_mount_point() -> None:
    """/proc is a mount point everywhere: its mountstats line is the only one kept."""
    out = subprocess.run(["timeout", "1.8", "sh", "-c", sampler_command("/proc", 0.4)], capture_output=True, text=True)
    assert out.returncode == 124 and out.stderr == ""  # stopped by timeout, no complaint on the way
    blocks = [
        part.split("@/proc/self/mountstats\n")[1]
        for part in out.stdout.split("NFSTUNE_SAMPLE ")[1:]
        if "NFSTUNE_SAMPLE_END" in part
    ]
    assert len(blocks) >= 3
    assert {block.split("NFSTUNE_SAMPLE_END")[0] for block in blocks} == {
        "device proc mounted on /proc with fstype proc\n"
    }
    samples = SampleParser().feed(out.stdout)
    assert len(samples) == len(blocks) - 1
    assert all(0.35 < s.interval_s < 1.0 for s in samples)  # one snapshot every 0.4 s
    assert all(s.nfs_read_bytes_per_s is None for s in samples)  # /proc is no NFS mount
    assert_sane(samples)


# --- the lab's captures -----------------------------------------------------------------------------------------


def test_client_during_fio_seq_write_sees_the_file_go_out() -> None:
    samples = capture("sampler-client-fio-seq-write.txt")
    assert len(samples) == 5
    assert_sane(samples)
    assert total(samples, "nfs_write_bytes_per_s") == pytest.approx(SEQ_BYTES, rel=1e-12)
    assert total(samples, "nfs_read_bytes_per_s") == 0
    assert [round(s.nfs_write_bytes_per_s or 0) for s in samples] == [0, 0, 0, 19014005, 700634]
    assert set(samples[0].disk_write_bytes_per_s) == {"vda"}  # sr0 and loop0-7 are not disks
    assert set(samples[0].net_tx_bytes_per_s) == {"eth0", "eth1"}  # no lo
    assert 1.0 <= total(samples, "net_tx_bytes_per_s", "eth1") / SEQ_BYTES <= 1.08


def test_nas_during_fio_seq_write_writes_the_file_to_its_disk() -> None:
    samples = capture("sampler-nas-fio-seq-write.txt")
    assert len(samples) == 26
    assert_sane(samples)
    assert {s.nfs_write_bytes_per_s for s in samples} == {None}  # no mount point given on the server
    # the export's dm device and the disk under it count the same bytes (pick_disks keeps both)
    assert set(samples[0].disk_write_bytes_per_s) == {"dm-0", "vda", "vdb"}
    written = total(samples, "disk_write_bytes_per_s", "dm-0")
    assert written == pytest.approx(total(samples, "disk_write_bytes_per_s", "vdb"))
    assert 1.0 <= written / SEQ_BYTES <= 1.02
    assert 1.0 <= total(samples, "net_rx_bytes_per_s", "eth1") / SEQ_BYTES <= 1.08


def test_client_during_fio_seq_read_sees_the_file_come_in() -> None:
    samples = capture("sampler-client-fio-seq-read.txt")
    assert_sane(samples)
    assert total(samples, "nfs_read_bytes_per_s") == pytest.approx(SEQ_BYTES, rel=1e-12)
    assert total(samples, "nfs_write_bytes_per_s") == 0
    assert 1.0 <= total(samples, "net_rx_bytes_per_s", "eth1") / SEQ_BYTES <= 1.08


def test_client_during_sync_4k_and_small_files() -> None:
    sync = capture("sampler-client-fio-sync-4k.txt")
    assert_sane(sync)
    assert total(sync, "nfs_write_bytes_per_s") == pytest.approx(100 * 4096, rel=1e-12)
    assert 1.0 <= total(sync, "net_tx_bytes_per_s", "eth1") / (100 * 4096) <= 1.25
    small = capture("sampler-client-tar-small-files.txt")
    assert_sane(small)
    assert total(small, "nfs_write_bytes_per_s") == pytest.approx(30 * 4096, rel=1e-12)


def test_requests_a_second_count_every_rpc_of_our_mount() -> None:
    """What the live graph shows where bytes a second say little: 100 synchronous 4 KiB writes are at least 100
    WRITE requests (the few more: the file's OPEN, GETATTRs, CLOSE); 30 small files at least an OPEN, a WRITE and a
    CLOSE each; an idle mount none."""
    sync = capture("sampler-client-fio-sync-4k.txt")
    assert 100 <= total(sync, "nfs_ops_per_s") <= 130
    small = capture("sampler-client-tar-small-files.txt")
    assert 3 * 30 <= total(small, "nfs_ops_per_s") <= 10 * 30
    assert {s.nfs_ops_per_s for s in capture("sampler-idle.txt")} == {0.0}


def test_idle_client() -> None:
    samples = capture("sampler-idle.txt")
    assert len(samples) == 4
    assert {s.nfs_read_bytes_per_s for s in samples} == {s.nfs_write_bytes_per_s for s in samples} == {0.0}
    assert {s.net_rx_bytes_per_s["eth1"] for s in samples} == {0.0}
    # ~11 % of the lab's emulated (TCG) CPU is the sampler's own two processes a second, and sshd
    assert all(10 < (s.cpu_busy_percent or 0) < 13 for s in samples)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_chunking_gives_the_same_samples(data: st.DataObject) -> None:
    text = (CAPTURES / "sampler-client-fio-seq-write.txt").read_bytes().decode()
    cuts = sorted(data.draw(st.sets(st.integers(min_value=1, max_value=len(text) - 1), max_size=100)))
    parser, samples = SampleParser(), []
    for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):
        samples += parser.feed(text[start:end])
    assert samples == capture("sampler-client-fio-seq-write.txt")


# --- resets, noise, cut snapshots -------------------------------------------------------------------------------


def snapshot(time: str, sda_sectors: tuple[int, int], eth0: tuple[int, int], cpu: str, nfs: tuple[int, int]) -> str:
    return (
        f"NFSTUNE_SAMPLE {time}\n@/proc/diskstats\n"
        f"   8       0 sda 10 0 {sda_sectors[0]} 5 20 0 {sda_sectors[1]} 9 0 0 0 0 0 0 0 0 0\n"
        f"   8       1 sda1 10 0 {sda_sectors[0]} 5 20 0 {sda_sectors[1]} 9 0 0 0 0 0 0 0 0 0\n"
        "   7       0 loop0 1 0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
        "@/proc/net/dev\nInter-|   Receive                            |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets\n"
        "    lo:    1440      22    0    0    0     0          0         0     1440      22    0 0 0 0 0 0\n"
        f"  eth0:{eth0[0]} 9 0 0 0 0 0 0 {eth0[1]} 9 0 0 0 0 0 0\n"
        f"@/proc/stat\n{cpu}\n@/proc/self/mountstats\n"
        "device nas:/export mounted on /mnt/x with fstype nfs4 statvers=1.1\n"
        f"\tbytes:\t0 0 0 0 {nfs[0]} {nfs[1]} 0 0\nNFSTUNE_SAMPLE_END\n"
    )


def test_resets_give_no_rate_rather_than_a_negative_one() -> None:
    text = (
        (
            "Last login: banner text before the first snapshot\n"
            + snapshot("100.0", (0, 0), (1000, 2000), "cpu  100 0 100 800 0 0 0 0 0 0", (0, 0))
            + snapshot("102.0", (2048, 4096), (3000, 2500), "cpu  150 0 150 900 0 0 0 0 0 0", (4096, 8192))
            # the NIC was re-created, the mount remounted, the disk re-plugged: counters start again
            + snapshot("103.0", (0, 8), (10, 20), "cpu  160 0 160 980 0 0 0 0 0 0", (0, 100))
            + snapshot("104.0", (8, 16), (110, 20), "cpu  160 0 160 980 0 0 0 0 0 0", (1, 100))
            + snapshot("105.0", (8, 16), (110, 20), "cpu  1", (1, 100))[:150]  # killed while printing
        ).replace("\n", "\r\n")
    )  # and read through a pty
    first, reset, after = SampleParser().feed(text)
    assert (first.time, first.interval_s, first.cpu_busy_percent) == (102.0, 2.0, 50.0)
    assert (first.nfs_read_bytes_per_s, first.nfs_write_bytes_per_s) == (2048.0, 4096.0)
    assert (first.disk_read_bytes_per_s, first.disk_write_bytes_per_s) == ({"sda": 512 * 1024.0}, {"sda": 1048576.0})
    assert (first.net_rx_bytes_per_s, first.net_tx_bytes_per_s) == ({"eth0": 1000.0}, {"eth0": 250.0})
    assert (reset.disk_read_bytes_per_s, reset.net_rx_bytes_per_s) == ({}, {})
    assert (reset.nfs_read_bytes_per_s, reset.nfs_write_bytes_per_s, reset.cpu_busy_percent) == (None, None, 20.0)
    assert (after.disk_read_bytes_per_s["sda"], after.net_rx_bytes_per_s["eth0"]) == (4096.0, 100.0)
    assert (after.nfs_read_bytes_per_s, after.cpu_busy_percent) == (1.0, None)  # no CPU time passed: no figure


def test_pick_disks_drops_partitions_of_present_disks_and_virtual_devices() -> None:
    names = [
        "sda",
        "sda1",
        "sda2",
        "nvme0n1",
        "nvme0n1p1",
        "mmcblk0p1",
        "vdb1",
        "dm-0",
        "md127",
        "loop0",
        "loop12",
        "zram0",
        "ram0",
        "sr0",
        "fd0",
    ]
    assert pick_disks(names) == {"sda", "nvme0n1", "mmcblk0p1", "vdb1", "dm-0", "md127"}
    assert pick_disks(names, wanted=["dm-0", "sdz"]) == {"dm-0"}


def test_local_sampler_gives_rates_of_this_machine() -> None:
    sampler = LocalSampler()
    time.sleep(0.2)  # CPU times move in 10 ms ticks: without a pause no time may have passed
    first = sampler.sample()
    time.sleep(0.2)
    second = sampler.sample()
    assert_sane([first, second])
    for sample in (first, second):
        assert not any(name.startswith(("loop", "zram", "ram")) for name in sample.disk_read_bytes_per_s)
        assert "lo" not in sample.net_rx_bytes_per_s
        assert sample.nfs_read_bytes_per_s is None
    assert second.time >= first.time
