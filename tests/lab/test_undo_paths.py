"""Undo on the lab's real NAS and client: a 1 MiB /etc/exports through a journaled change and its undo, and a
SIGTERM to `nfstune run` that undoes at once (not at the next connect)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import nfstune
from nfstune.changes.export import ExportChange
from nfstune.changes.transaction import Transaction
from nfstune.lab import LabConfig
from nfstune.nfs.export_edit import change_client_options
from nfstune.remote import Host
from nfstune.store import Journal, open_store
from tests.lab.test_changes import SNAPSHOT, client_nfs_mounts

pytestmark = pytest.mark.lab

MIB = 1 << 20
# the async export first, long enough (several seq-write repeats) to be seen in force from the NAS
RECIPE = """
id = "sigterm-test"
title = "async first"
summary = "The async export first."
why = "A SIGTERM test."
changes_host = "server"
workloads = ["seq-write"]
baseline = "sync"
warning = "async can lose acknowledged writes on a server crash (exports(5))."

[repeats]
min = 10
max = 10
warmup = 1

[[configs]]
label = "async"
export = { set = ["async"] }
warning = "async can lose acknowledged writes on a server crash (exports(5))."

[[configs]]
label = "sync"
export = { set = ["sync"] }
"""


@pytest.fixture
def exports_kept(nas: Host) -> Iterator[bytes]:
    """The NAS's /etc/exports as it was, put back (and re-exported) whatever the test did."""
    original = nas.read_file("/etc/exports")
    assert original is not None
    yield original
    if nas.read_file("/etc/exports") != original:
        nas.write_file("/etc/exports", original)
        nas.run("exportfs -ra")


def test_a_megabyte_exports_file_is_changed_and_undone_byte_identical(
    nas: Host, exports_kept: bytes, tmp_path: Path
) -> None:
    padding = b"".join(
        b"# %07d a comment line that exportfs skips, to make the file large\n" % i for i in range(MIB // 60)
    )
    big = (exports_kept + padding)[:MIB]
    big = big[: big.rindex(b"\n") + 1]
    assert len(big) > MIB - 100
    nas.write_file("/etc/exports", big)
    nas.run("exportfs -ra")
    before = nas.run(SNAPSHOT).stdout
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    tx = Transaction(journal, lambda _m: None)
    new = change_client_options(big.decode(), "/export", "10.99.0.0/24", ["async"]).encode()
    ExportChange(nas, tx, file="/etc/exports", new_text=new, expect={"/export": "async"}).apply()
    assert nas.read_file("/etc/exports") == new and "async" in nas.run("exportfs -s").stdout
    tx.undo()  # undo_entry writes the journaled megabyte back
    assert nas.read_file("/etc/exports") == big
    assert nas.run(SNAPSHOT).stdout == before
    assert journal.pending() == []


def _export_is_async(nas: Host) -> bool:
    return any(ln.startswith("/export") and "async" in ln for ln in nas.run("exportfs -s").stdout.splitlines())


def test_sigterm_during_a_run_undoes_before_exiting(
    lab: LabConfig, lab_state_home: Path, nas: Host, client: Host, exports_kept: bytes, tmp_path: Path
) -> None:
    before = nas.run(SNAPSHOT).stdout
    data = tmp_path / "data"
    (data / "nfstune" / "recipes").mkdir(parents=True)
    (data / "nfstune" / "recipes" / "sigterm-test.toml").write_text(RECIPE)
    env = os.environ | {
        "XDG_STATE_HOME": str(lab_state_home),
        "XDG_DATA_HOME": str(data),
        "PYTHONPATH": str(Path(nfstune.__file__).parents[1]),
    }
    out = tmp_path / "run.out"
    argv = [sys.executable, "-m", "nfstune", "run", "--lab", "--recipe", "sigterm-test", "--scale", "small", "--yes"]
    with out.open("w") as sink:
        proc = subprocess.Popen(
            [*argv, "--no-ceilings"], stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, env=env
        )
    try:
        deadline = time.monotonic() + 600
        while not _export_is_async(nas):
            assert proc.poll() is None, f"the run ended before the async export was seen:\n{out.read_text()}"
            assert time.monotonic() < deadline, out.read_text()
            time.sleep(0.2)
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = out.read_text()
    assert status == 130, log  # the Ctrl-C path: KeyboardInterrupt after the undo
    assert "interrupted" in log
    # undone by the process itself, before it exited: nothing is left for the next connect
    assert nas.read_file("/etc/exports") == exports_kept
    assert nas.run(SNAPSHOT).stdout == before
    assert not _export_is_async(nas)
    assert client_nfs_mounts(client) == []
    assert Journal(open_store(data / "nfstune" / "nfstune.sqlite3")).pending() == []
