"""The wait for the hosts' writeback before a timed run (bench/writeback.py) against the real sshd on loopback: real
dirty pages flushed and waited for, and, with the kernel's counters read from a file the test writes (the loop
reads /proc/meminfo through that path), a host that keeps writing back until the limit, one that finishes partway,
and a cancel during the wait."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import psutil
import pytest

from nfstune.bench.writeback import MIB_KIB, Flush, wait_idle
from nfstune.errors import Cancelled
from nfstune.remote import Host
from tests.root.conftest import Sshd


def root(sshd: Sshd) -> Host:
    key, known = sshd.client_key, sshd.known_hosts
    return Host("127.0.0.1", label="testhost", port=sshd.port, key_filename=key, known_hosts=known)


def meminfo(dirty_kib: int, writeback_kib: int) -> str:
    """The lines of /proc/meminfo around the two the wait reads, as the kernel prints them."""
    return (
        "MemTotal:        1004096 kB\nMemFree:          512000 kB\nBuffers:            1024 kB\n"
        f"Dirty:          {dirty_kib:8d} kB\nWriteback:      {writeback_kib:8d} kB\nAnonPages:         20480 kB\n"
    )


def replace(path: Path, text: str) -> None:
    """As the kernel's file changes: whole at every read (a loop never reads it half written)."""
    part = path.with_suffix(".part")
    part.write_text(text)
    os.replace(part, path)


def test_real_dirty_pages_are_flushed_and_the_wait_recorded(sshd: Sshd, tmp_path: Path) -> None:
    """64 MiB written and not synced: the kernel keeps them dirty for up to 30 s (vm.dirty_expire_centisecs), so
    the host has them to write back when the wait starts, and its syncfs of that folder writes them."""
    with (tmp_path / "dirty").open("wb") as f:
        for _ in range(64):
            f.write(b"\1" * (1024 * 1024))
    lines: list[str] = []
    with root(sshd) as h:
        (wait,) = wait_idle([Flush("server", h, str(tmp_path), False)], cancel=threading.Event(), log=lines.append)
    assert wait.host == "server" and not wait.limit_hit
    assert wait.found_kib >= 64 * MIB_KIB  # ours at least (others may add theirs)
    assert wait.left_kib < 8 * MIB_KIB
    assert [line for line in lines if line.startswith("the server wrote back ")]  # the log says what it waited for


def test_a_host_that_finishes_partway_is_waited_for_and_said(sshd: Sshd, tmp_path: Path) -> None:
    counters = tmp_path / "meminfo"
    replace(counters, meminfo(100 * MIB_KIB, 20 * MIB_KIB))
    said: list[str] = []
    later = threading.Timer(2.5, lambda: replace(counters, meminfo(1024, 0)))
    with root(sshd) as h:
        h.connect()
        flushes = [Flush("server", h, str(tmp_path), False), Flush("client", h, str(tmp_path), True)]
        t0 = time.monotonic()
        later.start()
        try:
            waits = wait_idle(flushes, cancel=threading.Event(), say=said.append, meminfo=str(counters))
        finally:
            later.cancel()
        took = time.monotonic() - t0
    assert [(w.host, w.found_kib, w.left_kib, w.limit_hit) for w in waits] == [
        ("server", 120 * MIB_KIB, 1024, False),
        ("client", 120 * MIB_KIB, 1024, False),
    ]
    assert all(1.5 <= w.seconds <= took for w in waits)  # each host's own clock, from its loop's start
    assert "waiting for the server (120 MiB) and the client (120 MiB) to finish writing back" in said
    assert said[-1] == ""  # the wait is over: the status line goes back to what it was


def test_the_limit_is_hit_said_and_recorded(sshd: Sshd, tmp_path: Path) -> None:
    counters = tmp_path / "meminfo"
    replace(counters, meminfo(400 * MIB_KIB, 20 * MIB_KIB))
    lines: list[str] = []
    with root(sshd) as h:
        t0 = time.monotonic()
        (wait,) = wait_idle(
            [Flush("server", h, str(tmp_path), False)],
            cancel=threading.Event(),
            log=lines.append,
            limit_s=2,
            meminfo=str(counters),
        )
        took = time.monotonic() - t0
    assert (wait.found_kib, wait.left_kib, wait.limit_s, wait.limit_hit) == (420 * MIB_KIB, 420 * MIB_KIB, 2, True)
    assert 2.0 <= wait.seconds < 3 and took < 5
    assert wait.sentence() == "the server was still writing back 420 MiB after 2 s"
    assert lines == [f"{wait.sentence()}: the run starts anyway, and its details say so"]


def test_a_cancel_during_the_wait_stops_every_hosts_loop(sshd: Sshd, tmp_path: Path) -> None:
    counters = tmp_path / "meminfo"
    replace(counters, meminfo(300 * MIB_KIB, 0))
    cancel = threading.Event()
    said: list[str] = []

    def cancel_once_waiting(text: str) -> None:
        said.append(text)
        cancel.set()

    with root(sshd) as h:
        flushes = [Flush("server", h, str(tmp_path), False), Flush("client", h, str(tmp_path), True)]
        t0 = time.monotonic()
        with pytest.raises(Cancelled, match="while waiting for the hosts to finish writing back"):
            wait_idle(flushes, cancel=cancel, say=cancel_once_waiting, meminfo=str(counters))
        took = time.monotonic() - t0
    assert said and took < 5  # the limit is 30 s: it did not run out
    deadline = time.monotonic() + 5
    while _loops(counters) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _loops(counters) == []  # both hosts' loops were killed, not left polling


def _loops(counters: Path) -> list[int]:
    """The processes still running a loop that reads `counters`."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = " ".join(proc.info["cmdline"] or ())
        if str(counters) in cmdline and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc.pid)
    return found
