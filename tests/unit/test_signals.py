"""SIGTERM and SIGHUP during a run raise KeyboardInterrupt as Ctrl-C does (so the run's changes are undone),
once: a second signal does not cut the undo short. Each case is a real child process sent a real signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

CHILD = """
import os, signal, sys
from nfstune.signals import terminate_as_interrupt

sig = getattr(signal, sys.argv[1])
if sys.argv[2] == "nohup":
    signal.signal(sig, signal.SIG_IGN)
try:
    with terminate_as_interrupt():
        try:
            print("READY", flush=True)
            if sys.argv[2] == "nohup":
                os.kill(os.getpid(), sig)
                print("STILL RUNNING", flush=True)
            else:
                signal.pause()
        finally:
            print("UNDOING", flush=True)
            os.kill(os.getpid(), sig)  # a second one while undoing
            print("UNDONE", flush=True)
except KeyboardInterrupt as exc:
    print("INTERRUPTED", exc, flush=True)
print("HANDLER PUT BACK", signal.getsignal(sig) == (signal.SIG_IGN if sys.argv[2] == "nohup" else signal.SIG_DFL))
"""


def child(name: str, mode: str) -> subprocess.Popen[str]:
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, name, mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_the_signal_interrupts_like_ctrl_c_and_the_undo_runs_to_the_end(name: str) -> None:
    proc = child(name, "wait")
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "READY\n"
        proc.send_signal(getattr(signal, name))
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 0, err
    assert out.splitlines() == ["UNDOING", "UNDONE", f"INTERRUPTED {name}", "HANDLER PUT BACK True"]


def test_an_ignored_hangup_stays_ignored() -> None:
    """Under nohup the admin asked for the run to outlive the terminal."""
    proc = child("SIGHUP", "nohup")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert out.splitlines() == ["READY", "STILL RUNNING", "UNDOING", "UNDONE", "HANDLER PUT BACK True"]
