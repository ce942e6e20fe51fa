"""The session's scratch directory, made for real on this computer (as the server makes it, changes/mount.py, and as
the client makes it over NFS, changes/nfs_scratch.py, against a folder standing in for the export:
tests/fake_share.py): nfstune removes what it made, at the undo and at the next start after a crash, and never what
was there before it or came there instead (issue 37)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from nfstune.changes.mount import make_scratch
from nfstune.changes.nfs_scratch import make_nfs_scratch
from nfstune.changes.transaction import Transaction, recover_on_connect
from nfstune.errors import NfstuneError
from nfstune.remote.local import LocalHost
from nfstune.store import Journal, open_store
from tests.fake_share import fake_mount_path

NAME = ".nfstune-x"
Make = Callable[[Transaction], object]


@pytest.fixture(params=["on the server", "over NFS"])
def make(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Make, Path]:
    """How the scratch directory is made, and the folder it is made in."""
    export = tmp_path / "export"
    export.mkdir()
    if request.param == "on the server":
        return (lambda tx: make_scratch(LocalHost(), tx, str(export), NAME)), export
    monkeypatch.setenv("PATH", fake_mount_path(tmp_path / "bin", export))
    return (lambda tx: make_nfs_scratch(LocalHost(), tx, "nas", "/srv/x", NAME)), export


def _theirs(export: Path) -> Path:
    kept = export / NAME / "sub" / "kept"
    kept.parent.mkdir(parents=True)
    kept.write_text("someone's\n")
    return kept


@pytest.mark.parametrize("undone", ["at once", "at the next start"])
def test_a_name_taken_already_is_neither_made_nor_removed(make: tuple[Make, Path], tmp_path: Path, undone: str) -> None:
    do, export = make
    kept = _theirs(export)
    journal = Journal(open_store(tmp_path / "db.sqlite3"))
    log: list[str] = []
    tx = Transaction(journal, log.append)
    with pytest.raises(NfstuneError):
        do(tx)
    left = journal.pending()
    if undone == "at once":
        tx.undo(announce=True)
    else:
        recover_on_connect([LocalHost()], Journal(open_store(tmp_path / "db.sqlite3")), log.append)
    assert kept.read_text() == "someone's\n"
    assert left == []  # closed as not made at once: no undo ever touches it


def test_a_directory_that_came_in_place_of_ours_is_kept_and_said(make: tuple[Make, Path], tmp_path: Path) -> None:
    do, export = make
    journal = Journal(open_store(tmp_path / "db.sqlite3"))
    do(Transaction(journal, lambda _line: None))
    shutil.rmtree(export / NAME)  # ours removed by hand while nfstune was down, and another made under its name
    kept = _theirs(export)
    log: list[str] = []
    recover_on_connect([LocalHost()], Journal(open_store(tmp_path / "db.sqlite3")), log.append)
    assert kept.read_text() == "someone's\n"
    assert any(NAME in line and "kept" in line for line in log), log
    assert journal.pending() == []  # nothing of ours is left to undo there


@pytest.mark.parametrize("undone", ["at once", "at the next start"])
def test_the_scratch_directory_it_made_is_removed(make: tuple[Make, Path], tmp_path: Path, undone: str) -> None:
    do, export = make
    journal = Journal(open_store(tmp_path / "db.sqlite3"))
    tx = Transaction(journal, lambda _line: None)
    do(tx)
    (export / NAME / "tree").mkdir()
    (export / NAME / "tree" / "f").write_text("a workload's file\n")
    assert len(journal.pending()) == 1
    if undone == "at once":
        tx.undo()
    else:  # a crash: the next start finds it in the journal
        recover_on_connect([LocalHost()], Journal(open_store(tmp_path / "db.sqlite3")), lambda _line: None)
    assert list(export.iterdir()) == []
    assert journal.pending() == []


@pytest.mark.parametrize("undone", ["at once", "at the next start"])
def test_an_isolated_image_name_taken_already_is_neither_formatted_nor_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, undone: str
) -> None:
    """Isolated mode's filesystem image (changes/isolated.py): a file already there under its name (the name is
    random; here it is made to collide) is not truncated, formatted, or removed by any undo."""
    from nfstune.changes import isolated

    export = tmp_path / "export"
    export.mkdir()
    monkeypatch.setattr(isolated, "new_stamp", lambda: "collides")
    theirs = Path(isolated.isolated_paths(str(export), "collides")[0])
    theirs.write_text("someone's disk image\n")
    journal = Journal(open_store(tmp_path / "db.sqlite3"))
    log: list[str] = []
    tx = Transaction(journal, log.append)
    iso = isolated.IsolatedExport(LocalHost(), tx, share_path=str(export), client_spec="127.0.0.1", options="rw")
    with pytest.raises(NfstuneError):
        iso.apply()
    left = journal.pending()
    if undone == "at once":
        tx.undo(announce=True)
    else:
        recover_on_connect([LocalHost()], Journal(open_store(tmp_path / "db.sqlite3")), log.append)
    assert theirs.read_text() == "someone's disk image\n"
    assert left == []
