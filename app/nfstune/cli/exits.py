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
import re
import select
import sys
import textwrap

OK = 0
DECLINED = 1
BAD_INPUT = 2
LAB_NOT_READY = 3
BUG = 70
INTERRUPTED = 130
READER_GONE = 141

# each status and what it means: --help's epilog, the manual page's EXIT STATUS and the README's table say these
# words (tests/unit/test_readme_claims.py holds the README to them)
STATUSES: tuple[tuple[int, str], ...] = (
    (OK, "done"),
    (
        DECLINED,
        "apply or apply --undo was declined (nothing changed); check: declined, stopped at settings not in force, or "
        "the change measured slower and was not undone; demo: the NFS round trip did not match",
    ),
    (
        BAD_INPUT,
        "a bad argument, or an error nfstune explains (no such session, a host it cannot reach, ...): nothing was "
        "changed, or what was changed was undone; gui (and nfstune alone): no display to open the window on",
    ),
    (LAB_NOT_READY, "lab status: a VM is not running or not reachable over SSH"),
    (BUG, "a bug in nfstune (the traceback is printed: please report it)"),
    (INTERRUPTED, "interrupted (Ctrl-C, SIGTERM, SIGHUP); a run undoes its changes first"),
    (
        READER_GONE,
        "the program reading the output stopped reading (`nfstune history | head -1`): nfstune stops quietly, as a "
        "program killed by SIGPIPE would; 0 when all was written before it stopped",
    ),
)
GUI_STATUS = "gui: the desktop window's own status (0 when it is closed)"
EPILOG_WIDTH = 79  # a terminal of 80 columns shows each line whole


def _epilog() -> str:
    lines = ["exit status:"]
    for status, meaning in STATUSES:
        # a command in backticks stays on one line
        whole = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(" ", "\xa0"), meaning)
        wrapped = textwrap.wrap(
            whole, EPILOG_WIDTH, initial_indent=f"  {status:3}  ", subsequent_indent=" " * 7, break_on_hyphens=False
        )
        lines += [line.replace("\xa0", " ") for line in wrapped]
    return "\n".join([*lines, f"  {GUI_STATUS}"]) + "\n"


EPILOG = _epilog()


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
