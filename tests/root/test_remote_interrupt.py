"""A KeyboardInterrupt (Ctrl-C, or SIGTERM/SIGHUP during a run) while a remote command's output is awaited
kills the command's process group: closing the channel alone would leave it running on the host, on a mount
the undo that follows is about to take away."""

from __future__ import annotations

import time

import pytest

from tests.root.conftest import Sshd
from tests.root.test_remote_process import group_alive, root


def test_an_interrupt_while_waiting_kills_the_remote_command(sshd: Sshd) -> None:
    with root(sshd) as h:
        proc = h.start("echo started; exec sleep 300")
        assert proc.pgid is not None and group_alive(proc.pgid)
        output = proc.chunks()
        assert next(output) == ("out", "started\n")
        with pytest.raises(KeyboardInterrupt):
            output.throw(KeyboardInterrupt())  # raised where the generator waits, as a signal's would be
        deadline = time.monotonic() + 5
        while group_alive(proc.pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not group_alive(proc.pgid)
        assert proc.cancelled
