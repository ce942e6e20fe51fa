"""The child process of test_undo_interrupted.py: a transaction of three file changes on this computer, undone while
a real SIGINT arrives as its first write starts. Prints what happened as one JSON line.

    python -m tests.root.interrupted_child FOLDER

A fresh interpreter of its own: in the full suite an xdist worker, after hundreds of tests, twice let the signal slip
past the test (the sleep below ran its whole 30 s): another thread of the worker had SIGINT ignored for a moment."""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from nfstune.changes.transaction import Transaction
from nfstune.remote import CommandResult
from nfstune.remote.local import LocalHost
from nfstune.store import Journal, open_store


class InterruptedOnce(LocalHost):
    """This computer, where a real SIGINT reaches nfstune as its first write of the undo starts."""

    def __init__(self) -> None:
        super().__init__()
        self.signalled = False

    def run(self, command: str | Sequence[str], **kw: object) -> CommandResult:  # type: ignore[override]
        if not self.signalled and "mktemp" in str(command):
            self.signalled = True
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
            time.sleep(30)  # where the KeyboardInterrupt lands: it never runs to its end
        return super().run(command, **kw)  # type: ignore[arg-type]


def main(folder: Path) -> None:
    # Ctrl-C as a terminal's nfstune has it: a parent that was ignoring SIGINT when it started this child (libc's
    # system() ignores it while it waits, in whichever thread calls it) would have passed the ignoring on
    signal.signal(signal.SIGINT, signal.default_int_handler)
    files = [folder / f"file{n}" for n in range(3)]
    for n, f in enumerate(files):
        f.write_bytes(f"original {n}\n".encode())
    journal = Journal(open_store(folder / "db.sqlite3"))
    host = InterruptedOnce()
    log: list[str] = []
    tx = Transaction(journal, log.append)
    for f in files:
        tx.record(host, "file", str(f), original=f.read_bytes())
        f.write_bytes(b"changed by nfstune\n")
    raised = False
    try:
        tx.undo()
    except KeyboardInterrupt:
        raised = True
    print(json.dumps({"raised": raised, "signalled": host.signalled, "pending": len(journal.pending()), "log": log}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
