"""A SIGTERM or SIGHUP to the desktop quits it the way its Quit does: the shutdown (cancel the run, wait for its
undo) runs first. A real child process with a real Qt event loop (offscreen) is sent the real signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

CHILD = """
from PySide6.QtCore import QTimer
from nfstune.ui.app import application, quit_on_termination

app = application()
steps = []
quit_on_termination(app, lambda then: (steps.append("shutdown: run cancelled, changes undone"), then()))
QTimer.singleShot(0, lambda: print("READY", flush=True))
status = app.exec()
print(steps, status, flush=True)
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_the_signal_runs_the_shutdown_then_quits(name: str) -> None:
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "READY\n"
        proc.send_signal(getattr(signal, name))
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 0, err
    assert out == "['shutdown: run cancelled, changes undone'] 0\n"
