"""One repeat of a workload on a client (bench/runner.py), run for real with dd on this machine as both hosts
(LocalHost: the same Host as over SSH, local processes): the parsed result, the cleanup, and a cancel."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from nfstune.bench.runner import ClientRunner
from nfstune.bench.workloads import MIB, Progress, WorkloadId, WorkloadSizes
from nfstune.remote.local import LocalHost
from nfstune.session.engine import Cancelled

SIZES = WorkloadSizes(seq_file_bytes=2 * MIB, small_file_count=10, small_file_bytes=1024, sync_4k_count=25)


def runner(cancel: threading.Event, steps: list[Progress], logs: list[str]) -> ClientRunner:
    here = LocalHost()
    return ClientRunner(here, here, fio_available=False, cancel=cancel, progress=steps.append, log=logs.append)


def test_a_repeat_gives_the_tools_result_and_leaves_only_the_sequential_file(tmp_path: Path) -> None:
    steps: list[Progress] = []
    logs: list[str] = []
    run = runner(threading.Event(), steps, logs)
    here = str(tmp_path)
    sync = run.run(WorkloadId.SYNC_4K, SIZES, scratch=here, mount_point=here, export_path=here)
    assert (sync.result.workload, sync.result.bytes, sync.result.ops) == (WorkloadId.SYNC_4K, 25 * 4096, 25)
    assert sync.result.lat_mean_us is not None and sync.result.lat_mean_us > 0
    assert sync.wire_bytes == 0  # not an NFS mount: nothing moved on a wire
    assert sum(s.interval_bytes for s in steps) == 25 * 4096  # the progress reports sum to the run's bytes
    assert list(tmp_path.iterdir()) == []  # its file was removed after the run
    # before the run both hosts (here: this machine twice) flushed and waited for their writeback, within the limit
    assert [(w.host, w.limit_hit) for w in sync.writeback] == [("client", False), ("server", False)]
    write = run.run(WorkloadId.SEQ_WRITE, SIZES, scratch=here, mount_point=here, export_path=here)
    assert write.result.bytes == 2 * MIB and run.seq_file_bytes == 2 * MIB
    # seq-write leaves its file for seq-read
    assert [(p.name, p.stat().st_size) for p in tmp_path.iterdir()] == [("nfstune-seq.dat", 2 * MIB)]
    assert logs == []


def test_a_cancel_before_the_tool_raises_the_engines_cancelled(tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    steps: list[Progress] = []
    here = str(tmp_path)
    with pytest.raises(Cancelled, match="cancelled while waiting for the hosts to finish writing back"):
        runner(cancel, steps, []).run(WorkloadId.SYNC_4K, SIZES, scratch=here, mount_point=here, export_path=here)
    assert steps == []  # the tool never started


def test_the_wire_counters_are_read_after_the_mark_only() -> None:
    """The step before a run prints the mount's mountstats after its prepare and flush (one SSH round trip for
    all three): whatever the prepare printed before the mark is never taken for the counters."""
    capture = (Path(__file__).parents[1] / "captures" / "nfs" / "client-mountstats.txt").read_text()
    # /mnt/capture-b's bytes: line: server_read 8388608 + server_write 1048576
    output = "device nas:/x mounted on /mnt/capture-b with fstype nfs4\n\tbytes:\t1 1 0 0 5 5 1 1\n"
    output += "NFSTUNE_MOUNTSTATS\n" + capture
    assert ClientRunner.wire_bytes(output, "/mnt/capture-b") == 8388608 + 1048576
    assert ClientRunner.wire_bytes(output, "/mnt/elsewhere") == 0
    assert ClientRunner.wire_bytes(capture, "/mnt/capture-b") == 0  # no mark: nothing is taken on trust
