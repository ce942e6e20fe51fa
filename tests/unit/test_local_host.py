"""'This computer' as a host: the same Host surface (run, sudo, start/cancel of a whole process group, atomic file
writes), on local processes; and the live sampler of this machine through psutil."""

from __future__ import annotations

import os
import subprocess
import threading
import time

import psutil
import pytest

from nfstune.bench.live import HostSampler
from nfstune.remote.local import LocalChannel, LocalHost


def test_cancel_kills_the_whole_process_group() -> None:
    h = LocalHost()
    proc = h.start("sleep 300 & sleep 301 & (trap '' TERM; sleep 302) & wait")
    assert proc.pgid is not None and proc.pgid != os.getpgid(0)
    deadline = time.monotonic() + 10  # the shell forks its three children after it reported the group
    while len(_group(proc.pgid)) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(_group(proc.pgid)) >= 3
    threading.Timer(0.3, proc.cancel).start()
    for _ in proc.chunks():
        pass
    deadline = time.monotonic() + 10
    while _group(proc.pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _group(proc.pgid) == []  # including the one that ignores SIGTERM
    assert proc.exit_status == -1  # cancelled


def _group(pgid: int) -> list[int]:
    """The live (not zombie) members of a process group."""
    found = []
    for p in psutil.process_iter(["pid", "status"]):
        if _pgid(p.pid) == pgid and p.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(p.pid)
    return found


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def test_this_machine_is_sampled_through_psutil() -> None:
    got: list[tuple[str, float, dict[str, float]]] = []
    with HostSampler(None, "client", lambda *s: got.append(s), interval_s=0.2):
        deadline = time.monotonic() + 5
        while len(got) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    assert len(got) >= 3
    role, t, series = got[-1]
    assert role == "client" and abs(t - time.time()) < 5
    assert 0.0 <= series["cpu_percent"] <= 100.0 and "net_rx_bps" in series
    assert "nfs_read_bps" not in series  # no NFS mount given: no NFS series, rather than zeros


def test_a_bug_in_a_sampler_is_logged_with_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    """The measurement goes on without the live graph, and the log says where the bug is."""

    def broken(_role: str, _t: float, series: dict[str, float]) -> None:
        raise KeyError("nfs_read_bps")

    sampler = HostSampler(None, "client", broken, interval_s=0.05)
    with caplog.at_level("WARNING", logger="nfstune.bench.live"):
        sampler.start()
        deadline = time.monotonic() + 10
        while sampler.error is None and time.monotonic() < deadline:
            time.sleep(0.02)
        sampler.stop()
    assert sampler.error == "client sampler stopped: 'nfs_read_bps'"
    (record,) = [r for r in caplog.records if r.name == "nfstune.bench.live"]
    assert record.exc_info is not None and record.exc_info[0] is KeyError


class _HeldChannel(LocalChannel):
    """A local channel whose command has exited before any of its output is read: each stream is read only when a
    test's channel says so (`_read`), in the order a busy machine can give."""

    def exec_command(self, command: str) -> None:
        self._proc = subprocess.Popen(
            ["/bin/sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._proc.wait()

    def _read(self, name: str, *, wait: bool) -> None:
        assert self._proc is not None
        reader = threading.Thread(target=self._pump, args=(name, getattr(self._proc, f"std{name}")), daemon=True)
        reader.start()
        if wait:
            reader.join()
        self._readers.append(reader)


class _LateChannel(_HeldChannel):
    """Output read only after someone has seen the command exit (the wrapper's first line still in the pipe when
    the exit is known)."""

    def exit_status_ready(self) -> bool:
        ready = super().exit_status_ready()
        if ready and not self._readers:
            self._read("out", wait=False)
            self._read("err", wait=False)
        return ready


class _LateHost(LocalHost):
    def _open_channel(self, text: str) -> LocalChannel:
        return _LateChannel()


def test_the_group_line_is_taken_even_when_the_command_exited_before_its_output_was_read() -> None:
    proc = _LateHost().start("echo out")
    assert proc.pgid is not None
    assert [text for stream, text in proc.chunks() if stream == "out"] == ["out\n"]


class _LateErrChannel(_HeldChannel):
    """stderr read only once the command has exited and its stdout checked: the output arrives between the
    reader's checks and the end of the command."""

    def __init__(self) -> None:
        super().__init__()
        self.err_checks = 0

    def exec_command(self, command: str) -> None:
        super().exec_command(command)
        self._read("out", wait=True)

    def recv_stderr_ready(self) -> bool:
        ready = super().recv_stderr_ready()
        self.err_checks += 1
        if self.err_checks == 1 and len(self._readers) == 1:  # stderr's reader starts, and ends, after this check
            self._read("err", wait=True)
        return ready


class _LateErrHost(LocalHost):
    def _open_channel(self, text: str) -> LocalChannel:
        return _LateErrChannel()


def test_output_that_arrives_as_the_command_ends_is_still_read() -> None:
    result = _LateErrHost().run("echo out; echo err >&2")
    assert (result.stdout, result.stderr) == ("out\n", "err\n")
