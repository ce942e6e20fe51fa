"""An interrupt (Ctrl-C, or SIGTERM turned into one) that lands while a transaction is being undone must not leave
the rest of the changes in place: the undo finishes, then the interrupt is raised. Real processes, a real signal
and a real SQLite journal on this computer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from nfstune.changes.transaction import Transaction
from nfstune.nfs.own_mount import SCRATCH_PREFIX
from nfstune.remote.local import LocalHost
from nfstune.store import Journal, open_store

ROOT = Path(__file__).resolve().parents[2]  # where `tests.root.interrupted_child` is importable from


def test_an_interrupt_during_the_undo_still_undoes_everything(tmp_path: Path) -> None:
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    child = [sys.executable, "-m", "tests.root.interrupted_child", str(tmp_path)]
    done = subprocess.run(child, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["signalled"] and found["raised"], found  # raised at the end, after the whole undo
    files = [tmp_path / f"file{n}" for n in range(3)]
    assert [f.read_bytes() for f in files] == [f"original {n}\n".encode() for n in range(3)]
    assert found["pending"] == 0
    assert any("interrupted while undoing" in line for line in found["log"])


def test_an_announced_undo_says_each_step_and_a_quiet_one_says_none(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "db.sqlite3")
    journal = Journal(conn)
    host = LocalHost()
    for announce in (False, True):
        target, made = tmp_path / f"file-{announce}", tmp_path / f"dir-{announce}"
        scratch = tmp_path / f"{SCRATCH_PREFIX}{announce}"
        target.write_bytes(b"original\n")
        log: list[str] = []
        tx = Transaction(journal, log.append)
        tx.record(host, "file", str(target), original=target.read_bytes())
        target.write_bytes(b"changed\n")
        tx.record(host, "dir", str(made))
        made.mkdir()
        tx.record(host, "scratch", str(scratch))
        (scratch / "sub").mkdir(parents=True)
        tx.undo(announce=announce)
        assert target.read_bytes() == b"original\n" and not made.exists() and not scratch.exists()
        expected = [
            f"{host.label}: removing the scratch directory {scratch}…",  # said before a step that may take a while
            f"{host.label}: undone: the scratch directory {scratch} removed",
            f"{host.label}: undone: the directory {made} removed",
            f"{host.label}: undone: {target} put back as it was",
        ]
        assert log == (expected if announce else [])
