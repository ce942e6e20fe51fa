"""The session's scratch directory, made for real on this computer (as the server makes it, changes/mount.py, and as
the client makes it over NFS, changes/nfs_scratch.py, against a folder standing in for the export:
tests/fake_share.py): nfstune removes what it made, at the undo and at the next start after a crash, and never what
was there before it or came there instead (issue 37)."""

from __future__ import annotations

import shlex
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from nfstune.changes.mount import make_scratch
from nfstune.changes.nfs_scratch import make_nfs_scratch
from nfstune.changes.transaction import Transaction, recover_on_connect
from nfstune.errors import NfstuneError
from nfstune.remote import CommandResult
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
    monkeypatch.setenv("PATH", fake_mount_path(tmp_path / "bin", export))
    if request.param == "on the server":  # the client writes its probe file through the stand-in mount
        return (lambda tx: make_scratch(LocalHost(), LocalHost(), tx, "nas", str(export), NAME)), export
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


# --- private to the run (issue 42) --------------------------------------------------------------------------------
NOBODY, OTHER = 65534, 1000


def as_user(uid: int, line: str) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "sh", "-c", line]


class SquashedClient:
    """This computer as a client whose root the share maps to nobody (root_squash): its commands run as uid 65534,
    as the server would take them."""

    label = "squashed client"

    def __init__(self) -> None:
        self._host = LocalHost()

    def run(self, command: str, **kw: Any) -> CommandResult:
        return self._host.run(shlex.join(as_user(NOBODY, command)), **kw)


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder every user of this computer may pass through (pytest's own are root's alone), with the stand-in
    mount on PATH and an export in it."""
    base = Path(tempfile.mkdtemp(prefix="nfstune-private-"))
    try:
        base.chmod(0o755)
        (base / "export").mkdir(mode=0o755)
        monkeypatch.setenv("PATH", fake_mount_path(base / "bin", base / "export"))
        (base / "bin").chmod(0o755)
        yield base / "export"
    finally:
        shutil.rmtree(base)


def test_behind_root_squash_the_scratch_directory_is_the_squashed_users_alone(world: Path, tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "db.sqlite3"))
    said: list[str] = []
    tx = Transaction(journal, said.append)
    path = Path(make_scratch(LocalHost(), SquashedClient(), tx, "nas", str(world), NAME))  # type: ignore[arg-type]
    seen = path.stat()
    assert (seen.st_uid, seen.st_gid, stat.S_IMODE(seen.st_mode)) == (NOBODY, NOBODY, 0o700)
    assert [p.name for p in path.iterdir()] == [p.name for p in path.glob(".nfstune-owner-*")]  # no probe left
    assert any(f"{path} is private to the run: uid {NOBODY} (" in line and "mode 0700" in line for line in said), said
    # the squashed root lays a file out and opens it again with O_CREAT, as fio does
    ok = subprocess.run(as_user(NOBODY, f"echo a > {path}/f && echo b >> {path}/f"), capture_output=True, check=False)
    assert ok.returncode == 0, ok.stderr
    # another user may not list, create, delete or replace anything in it
    for attempt in (f"ls {path}", f"touch {path}/theirs", f"rm -f {path}/f", f"echo x > {path}/f", f"mv {path}/f /tmp"):
        done = subprocess.run(as_user(OTHER, attempt), capture_output=True, check=False)
        assert done.returncode != 0, attempt
    assert (path / "f").read_text() == "a\nb\n"
    tx.undo()
    assert list(world.iterdir()) == []
    assert journal.pending() == []


def test_without_root_squash_it_is_roots_alone(world: Path, tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "db.sqlite3"))
    tx = Transaction(journal, lambda _line: None)
    path = Path(make_scratch(LocalHost(), LocalHost(), tx, "nas", str(world), NAME))
    seen = path.stat()
    assert (seen.st_uid, stat.S_IMODE(seen.st_mode)) == (0, 0o700)
    done = subprocess.run(as_user(OTHER, f"touch {path}/theirs"), capture_output=True, check=False)
    assert done.returncode != 0
    tx.undo()
    assert list(world.iterdir()) == []
