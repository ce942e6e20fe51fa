"""Each journal entry is undone by its kind's runner (transaction.UNDO_RUNNERS), on this computer's own shell: the
exports are reloaded because the entry says it changed an exports file, never because a step's text starts with
`exportfs`, and a step that fails names the change it was undoing."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from nfstune.changes.transaction import UNDO_RUNNERS, Transaction
from nfstune.nfs.own_mount import SCRATCH_PREFIX, owner_mark
from nfstune.remote import CommandFailed
from nfstune.store import Journal, open_store
from tests.root.etc_host import EtcHost, recorded

TEXT, RESULT = recorded("multiline:23")  # two exports, as exportfs 2.6.2 took them


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EtcHost:
    return EtcHost(tmp_path / "host", monkeypatch)


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(open_store(tmp_path / "nfstune.sqlite3"))


def test_an_entry_of_each_kind_is_undone_by_its_runner(host: EtcHost, journal: Journal, tmp_path: Path) -> None:
    host.replay(TEXT, RESULT)
    log: list[str] = []
    tx = Transaction(journal, log.append)
    exports, conf = host.etc("exports"), host.etc("nfs.conf")
    exports.write_text(TEXT)
    tx.record(host, "file", "/etc/exports", original=exports.read_bytes(), detail={"exportfs": True})
    exports.write_text("/export/a client(rw)\n")
    conf.write_text("[nfsd]\n")
    tx.record(host, "file", "/etc/nfs.conf", original=conf.read_bytes())  # not an exports file: no reload
    conf.write_text("[nfsd]\nthreads=64\n")
    made = tmp_path / "made"
    tx.record(host, "dir", str(made))
    made.mkdir()
    setting = tmp_path / "read_ahead_kb"  # a /sys setting's stand-in: the runner writes the value back
    setting.write_text("128\n")
    tx.record(host, "sysfs", str(setting), original=b"128\n")
    setting.write_text("16384\n")
    temporary = Path(f"/var/tmp/nfstune-{uuid.uuid4().hex}")
    tx.record(host, "tempfile", str(temporary))
    temporary.write_text("a job file\n")
    owner = uuid.uuid4().hex
    scratch = tmp_path / f"{SCRATCH_PREFIX}{owner[:8]}"
    tx.record(host, "scratch", str(scratch), detail={"owner": owner})
    (scratch / owner_mark(owner)).mkdir(parents=True)
    (scratch / "testfile").write_bytes(b"x" * 4096)
    kinds = {e.kind for e in journal.pending()}
    assert kinds <= set(UNDO_RUNNERS)
    try:
        tx.undo(announce=True)
    finally:
        temporary.unlink(missing_ok=True)
    assert exports.read_text() == TEXT and conf.read_text() == "[nfsd]\n"
    assert not made.exists() and setting.read_text() == "128\n" and not scratch.exists()
    # one reload, with its flush of the kernel's caches, for the one entry that changed an exports file
    assert host.exportfs_calls() == ["-ra", "-f"]
    assert (host.root / "table").read_text() == RESULT[2]
    assert journal.pending() == []
    said = [line.split(": ", 1)[1] for line in log]
    assert "undone: /etc/exports put back as it was and the exports reloaded" in said
    assert "undone: /etc/nfs.conf put back as it was" in said


def test_a_failing_undo_step_names_the_change_it_was_undoing(host: EtcHost, journal: Journal) -> None:
    """The reload of a restored exports file fails: the admin is told which file could not be put back in force
    (the old undo named only "the restored exports", found by the text of the step)."""
    host.replay(TEXT, recorded("hostile:5")[1])  # what exportfs said of a line it refused
    exports = host.etc("exports")
    exports.write_text(TEXT)
    tx = Transaction(journal, lambda _m: None)
    tx.record(host, "file", "/etc/exports", original=exports.read_bytes(), detail={"exportfs": True})
    exports.write_text("/export/a client(rw)\n")
    with pytest.raises(CommandFailed) as failed:
        tx.undo()
    assert "putting /etc/exports back" in str(failed.value) and "unknown keyword" in str(failed.value)
    assert exports.read_text() == TEXT  # the bytes are back; the reload is what failed
    assert len(journal.pending()) == 1  # left for the next connect
