"""The exit statuses of `nfstune`, as `--help` and the README list them, and what happens when the program reading
nfstune's output stops reading (`nfstune history | head -1`).

A reader that goes away is not a failure of nfstune: it says nothing and exits 141, the status a shell reports
for a program killed by SIGPIPE (128 + 13), as `seq 100000 | head -1` does under `set -o pipefail`. Python ignores
SIGPIPE, so the write raises BrokenPipeError instead; the Python documentation's way out (the "Note on SIGPIPE" in
the signal module) is to point standard output at /dev/null, so that the interpreter's last flush cannot raise it
again, and to exit.
"""

from __future__ import annotations

import os
import select
import sys

OK = 0
DECLINED = 1
BAD_INPUT = 2
LAB_NOT_READY = 3
BUG = 70
INTERRUPTED = 130
READER_GONE = 141

EPILOG = f"""\
exit status:
  {OK:3}  done
  {DECLINED:3}  apply or apply --undo was declined (nothing changed); demo: the NFS round trip did not match
  {BAD_INPUT:3}  a bad argument, or an error nfstune explains (no such session, a host it cannot reach, ...):
       nothing was changed, or what was changed was undone; gui: no display to open the window on
  {LAB_NOT_READY:3}  lab status: a VM is not running or not reachable over SSH
  {BUG:3}  a bug in nfstune (the traceback is printed: please report it)
  {INTERRUPTED:3}  interrupted (Ctrl-C, SIGTERM, SIGHUP); a run undoes its changes first
  {READER_GONE:3}  the program reading the output stopped reading (`| head -1`); nothing more is written
  gui: the desktop window's own status (0 when it is closed)
"""


def reader_gone(error: BaseException) -> bool:
    """Whether `error` is standard output's reader gone: a BrokenPipeError while the pipe on stdout has no reader
    left. A broken pipe elsewhere (a subprocess, a socket) is not, and stays an error."""
    if not isinstance(error, BrokenPipeError):
        return False
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a stream without a descriptor (a test's capture)
        return False
    poll = select.poll()
    poll.register(fd, select.POLLOUT)
    # Linux and the BSDs flag the write end of a pipe whose every reader has closed with POLLERR
    return any(events & select.POLLERR for _, events in poll.poll(0))


def silence_stdout() -> None:
    """Standard output to /dev/null: what is still buffered, flushed at exit, goes nowhere instead of raising."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
