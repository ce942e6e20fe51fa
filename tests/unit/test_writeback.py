"""The loop that waits for a host's writeback before a timed run (bench/writeback.py), run for real in this
machine's sh (LocalHost: the same Host as over SSH, local processes) on /proc/meminfo as the lab's NAS printed it
(tests/captures/writeback, README there): what it finds, when it stops, what it says."""

from __future__ import annotations

import threading
from pathlib import Path

from nfstune.bench.writeback import Flush, WritebackWait, status_text, wait_idle
from nfstune.remote.local import LocalHost

CAPTURES = Path(__file__).parents[1] / "captures" / "writeback"


def wait_on(capture: str, tmp_path: Path, **kw: float) -> tuple[WritebackWait, list[str], list[str]]:
    said: list[str] = []
    lines: list[str] = []
    flush = Flush("server", LocalHost(), str(tmp_path), False)
    (wait,) = wait_idle(
        [flush],
        cancel=threading.Event(),
        say=said.append,
        log=lines.append,
        meminfo=str(CAPTURES / capture),
        **kw,  # type: ignore[arg-type]
    )
    return wait, said, lines


def test_an_idle_nas_is_done_at_once_and_nothing_is_said(tmp_path: Path) -> None:
    wait, said, lines = wait_on("nas-meminfo-idle.txt", tmp_path)
    assert (wait.found_kib, wait.left_kib, wait.limit_hit) == (0, 0, False)
    assert wait.seconds < 5
    assert said == [] and lines == []


def test_a_nas_with_80_mib_dirty_is_waited_for_up_to_the_limit_and_said(tmp_path: Path) -> None:
    """The capture does not change: the NAS stays at its 81908 kB Dirty (0 kB Writeback) until the limit."""
    wait, said, lines = wait_on("nas-meminfo-dirty.txt", tmp_path, limit_s=1)
    assert (wait.found_kib, wait.left_kib, wait.limit_hit) == (81908, 81908, True)
    assert 1.0 <= wait.seconds < 3
    assert said[0] == "waiting for the server to finish writing back (80 MiB)" and said[-1] == ""
    assert lines == [
        "the server was still writing back 80 MiB after 1 s: the run starts anyway, and its details say so"
    ]


def test_the_threshold_is_what_counts_dirty_and_writeback_together(tmp_path: Path) -> None:
    """Above 80 MiB the same capture is idle: Dirty + Writeback under the threshold ends the wait."""
    wait, said, _ = wait_on("nas-meminfo-dirty.txt", tmp_path, threshold_kib=81909, limit_s=5)
    assert (wait.found_kib, wait.limit_hit) == (81908, False)
    assert said == []


def test_several_hosts_waited_for_are_named_in_one_line() -> None:
    waiting = [("client", 9 * 1024), ("client2", 20 * 1024), ("server", 120 * 1024)]
    assert status_text(waiting) == (
        "waiting for the client (9.0 MiB), client2 (20 MiB) and the server (120 MiB) to finish writing back"
    )
