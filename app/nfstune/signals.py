"""SIGTERM and SIGHUP (a service stop, a closed terminal, a logout) end a run the way Ctrl-C does: every change
on the hosts is undone before nfstune exits, not left for the next connect to find."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

TERMINATION_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """Raised by the handler: a KeyboardInterrupt, so that every path that undoes after Ctrl-C undoes after it."""


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise Terminated in the main thread. The first one only: a second must
    not cut the undo short (SIGKILL still can). A signal that was ignored (nohup) stays ignored; the old
    handlers are put back on leaving."""
    if threading.current_thread() is not threading.main_thread():
        yield  # Python runs handlers in the main thread only
        return
    fired = False
    terminal = [fd for fd in (1, 2) if os.isatty(fd)]  # asked now: a hung-up terminal is no tty any more

    def handler(signum: int, _frame: FrameType | None) -> None:
        nonlocal fired
        if signum == signal.SIGHUP:
            _leave_the_terminal(terminal)
        if fired:
            return
        fired = True
        raise Terminated(signal.Signals(signum).name)

    old = {s: signal.getsignal(s) for s in TERMINATION_SIGNALS}
    for s, previous in old.items():
        if previous is not signal.SIG_IGN:
            signal.signal(s, handler)
    try:
        yield
    finally:
        for s, previous in old.items():
            signal.signal(s, previous)


def _leave_the_terminal(fds: list[int]) -> None:
    """The terminal is gone: writing to it would fail (EIO) in the middle of the undo, so the output goes to
    /dev/null from now on."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in fds:
            os.dup2(devnull, fd)
    finally:
        os.close(devnull)
