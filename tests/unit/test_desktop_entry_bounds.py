"""`nfstune desktop-entry` run as an admin runs it, against what is already in the data folder: it writes and removes
only regular files that it wrote, under its own folders (applications, icons/hicolor), through real folders; and a
record edited or broken by hand ends in a message naming it, never in a traceback or a file lost elsewhere."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from nfstune import paths

ICON = Path("icons", "hicolor", "48x48", "apps", "nfstune.png")
ENTRY = Path("applications", f"{paths.APP_ID}.desktop")
RECORD = Path("nfstune", "desktop-entry.json")


@dataclass
class Done:
    code: int
    out: str
    err: str


@dataclass
class Setup:
    tmp: Path
    home: Path  # $HOME
    data: Path  # $XDG_DATA_HOME
    cwd: Path

    def run(self, action: str, **env: str) -> Done:
        environ = os.environ | {"HOME": str(self.home), "XDG_DATA_HOME": str(self.data)} | env
        done = subprocess.run(
            [sys.executable, "-m", "nfstune", "desktop-entry", action],
            capture_output=True,
            text=True,
            env=environ,
            cwd=self.cwd,
            timeout=30,  # a FIFO read as a file would block for ever
        )
        return Done(done.returncode, done.stdout, done.stderr)

    def installed(self) -> None:
        done = self.run("--install")
        assert done.code == 0, done.err

    def record(self) -> dict[str, object]:
        data = json.loads((self.data / RECORD).read_text())
        assert isinstance(data, dict)
        return data

    def edit_record(self, change: dict[str, object]) -> None:
        (self.data / RECORD).write_text(json.dumps(self.record() | change))


def snapshot(folder: Path) -> dict[str, str]:
    """Every path under `folder` (links not followed) with what it is: a file's bytes' digest, a link's target."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            seen[str(path)] = "-> " + os.readlink(path)
        elif path.is_file():
            seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            seen[str(path)] = "folder" if path.is_dir() else "other"
    return seen


def refused(done: Done, *named: Path) -> None:
    assert done.code == 2, (done.code, done.out, done.err)
    assert "Traceback" not in done.err and done.err.lstrip().startswith("nfstune: error: ")
    for path in named:
        assert str(path) in done.err, (path, done.err)


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    return Setup(tmp_path, home, home / ".local" / "share", cwd)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# symbolic links on the way


@pytest.mark.parametrize("folder", ["applications", "icons", "icons/hicolor", "icons/hicolor/48x48/apps", "nfstune"])
def test_install_refuses_a_symlinked_folder_and_writes_nothing_through_it(setup: Setup, folder: str) -> None:
    elsewhere = setup.tmp / "elsewhere"
    elsewhere.mkdir()
    link = setup.data / folder
    link.parent.mkdir(parents=True)
    link.symlink_to(elsewhere)
    before = snapshot(setup.tmp)
    done = setup.run("--install")
    refused(done, link)
    assert "symbolic link" in done.err
    assert snapshot(setup.tmp) == before


@pytest.mark.parametrize("folder", ["applications", "icons", "icons/hicolor", "icons/hicolor/48x48/apps"])
def test_uninstall_refuses_a_folder_replaced_by_a_link_to_the_same_files(setup: Setup, folder: str) -> None:
    """The issue's case: icons/hicolor moved to a dotfiles folder and linked back: its icons are the same bytes as
    nfstune's, and are not nfstune's to remove."""
    setup.installed()
    moved = setup.tmp / "dotfiles" / "moved"
    moved.parent.mkdir()
    shutil.move(setup.data / folder, moved)
    (setup.data / folder).symlink_to(moved)
    before = snapshot(setup.tmp)
    done = setup.run("--uninstall")
    refused(done, setup.data / folder)
    assert snapshot(setup.tmp) == before  # nothing removed, here nor there, the record included
    assert done.out == ""


# what the record may name


def outside_file(setup: Setup) -> Path:
    precious = setup.tmp / "precious" / "notes.txt"
    precious.parent.mkdir()
    precious.write_text("the admin's own notes\n")
    return precious


@pytest.mark.parametrize(
    ("name", "names"),
    [
        ("{precious}", "precious"),  # anywhere else
        ("{data}/applications/../../../../precious/notes.txt", "precious"),  # under applications by its letters
        ("../precious/notes.txt", "precious"),  # relative: it must not be read from the current folder
        ("{data}/applications/other.desktop", "other"),  # in the menu's folder, but another program's file
    ],
)
@pytest.mark.parametrize("action", ["--uninstall", "--install"])
def test_a_record_naming_a_file_that_is_not_nfstunes_is_refused(
    setup: Setup, name: str, names: str, action: str
) -> None:
    setup.installed()
    precious = setup.tmp / "precious" / "notes.txt"
    precious.parent.mkdir()
    precious.write_text("the admin's own notes\n")
    other = setup.data / "applications" / "other.desktop"
    other.write_text("[Desktop Entry]\n")
    target = {"precious": precious, "other": other}[names]
    files = setup.record()["files"]
    assert isinstance(files, dict)
    # the right digest: only where the file is can tell that it is not nfstune's
    files[name.format(precious=precious, data=setup.data)] = digest(target)
    setup.edit_record({"files": files})
    before = snapshot(setup.tmp)
    refused(setup.run(action), setup.data / RECORD)
    assert precious.read_text() == "the admin's own notes\n" and other.read_text() == "[Desktop Entry]\n"
    assert snapshot(setup.tmp) == before


@pytest.mark.parametrize("name", ["{tmp}/empty", "{data}/empty", "empty", "{data}/icons/../empty"])
def test_a_record_naming_a_folder_that_is_not_nfstunes_is_refused(setup: Setup, name: str) -> None:
    """Empty folders of the admin's own (a mount point, a folder of the data home, one in the current folder)
    are left, whatever the record says."""
    setup.installed()
    empties = [setup.tmp / "empty", setup.data / "empty", setup.cwd / "empty"]
    for empty in empties:
        empty.mkdir()
    folders = setup.record()["folders"]
    assert isinstance(folders, list)
    setup.edit_record({"folders": [name.format(tmp=setup.tmp, data=setup.data), *folders]})
    refused(setup.run("--uninstall"), setup.data / RECORD)
    assert all(empty.is_dir() for empty in empties)


def test_uninstall_removes_the_folders_it_made_deepest_first_whatever_their_order(setup: Setup) -> None:
    setup.installed()
    folders = setup.record()["folders"]
    assert isinstance(folders, list) and len(folders) > 2
    setup.edit_record({"folders": sorted(folders, reverse=True)})  # children first: they must still all go
    assert setup.run("--uninstall").code == 0
    assert list(setup.data.iterdir()) == []


# the data home


def test_a_relative_xdg_data_home_is_ignored_as_the_specification_says(setup: Setup) -> None:
    """XDG Base Directory Specification: "If an implementation encounters a relative path in any of these
    variables it should consider the path invalid and ignore it." The default is $HOME/.local/share."""
    assert setup.run("--install", XDG_DATA_HOME="share").code == 0
    assert (setup.home / ".local" / "share" / ENTRY).is_file()
    assert list(setup.cwd.iterdir()) == []
    assert setup.run("--uninstall", XDG_DATA_HOME="share").code == 0
    assert [p for p in setup.home.rglob("*") if not p.is_dir()] == []


# files in the way


@pytest.mark.parametrize("placed", [ENTRY, ICON])
def test_install_does_not_overwrite_a_file_it_did_not_write(setup: Setup, placed: Path) -> None:
    theirs = setup.data / placed
    theirs.parent.mkdir(parents=True)
    theirs.write_bytes(b"the admin's own\n")
    before = snapshot(setup.tmp)
    done = setup.run("--install")
    refused(done, theirs)
    assert "nfstune did not write it" in done.err and "move it away" in done.err.lower()
    assert snapshot(setup.tmp) == before  # nothing written, no record claiming it
    assert setup.run("--uninstall").code == 0
    assert theirs.read_bytes() == b"the admin's own\n"


@pytest.mark.parametrize("placed", [ENTRY, ICON])
def test_install_again_does_not_overwrite_a_file_changed_since(setup: Setup, placed: Path) -> None:
    setup.installed()
    ours = setup.data / placed
    ours.write_bytes(ours.read_bytes() + b"\n# the admin's own change\n")
    before = snapshot(setup.tmp)
    done = setup.run("--install")
    refused(done, ours)
    assert snapshot(setup.tmp) == before


def test_install_again_rewrites_its_own_unchanged_files(setup: Setup) -> None:
    setup.installed()
    done = setup.run("--install")
    assert done.code == 0, done.err
    assert f"wrote {setup.data / ENTRY}" in done.out


# only regular files, only with the digest recorded


def test_uninstall_leaves_a_link_in_place_of_a_file_it_wrote(setup: Setup) -> None:
    setup.installed()
    icon = setup.data / ICON
    same = setup.tmp / "same.png"
    shutil.copy(paths.icons_dir() / "48x48" / "apps" / "nfstune.png", same)
    icon.unlink()
    icon.symlink_to(same)
    done = setup.run("--uninstall")
    assert done.code == 0, done.err
    assert f"left {icon}" in done.out
    assert icon.is_symlink() and same.is_file()


def test_uninstall_leaves_a_fifo_in_place_of_a_file_it_wrote(setup: Setup) -> None:
    setup.installed()
    fifo = setup.data / ICON
    fifo.unlink()
    os.mkfifo(fifo)
    done = setup.run("--uninstall")  # reading it as a file would wait for a writer for ever
    assert done.code == 0, done.err
    assert f"left {fifo}" in done.out and fifo.exists()


def test_uninstall_leaves_a_folder_in_place_of_a_file_it_wrote(setup: Setup) -> None:
    setup.installed()
    folder = setup.data / ENTRY
    folder.unlink()
    folder.mkdir()
    done = setup.run("--uninstall")
    assert done.code == 0, done.err
    assert f"left {folder}" in done.out and folder.is_dir()


# a broken record


@pytest.mark.parametrize(
    "text",
    [
        b'{"files": {"{data}/applications/nfs\\u0000tune.desktop": "' + b"0" * 64 + b'"}, "folders": []}',
        b'{"files": {}, "folders": ["{data}/applications\\u0000"]}',
        b"[" * 100_000 + b"]" * 100_000,  # deeper than the parser goes
        b'{"files": {}, "folders": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b"not json",
        b"\xff\xfe",
        b"[]",
        b'{"files": {}}',
        b'{"files": ["ab"], "folders": []}',  # pairs would make a dict of relative paths
        b'{"files": {}, "folders": "empty"}',  # a string would be its letters, each a folder
        b'{"files": {"{data}/applications/nfstune.desktop": 5}, "folders": []}',
        b'{"files": {"{data}/applications/nfstune.desktop": "x"}, "folders": []}',
        b'{"files": {}, "folders": [null]}',
    ],
)
@pytest.mark.parametrize("action", ["--uninstall", "--install"])
def test_a_broken_record_is_named_without_a_traceback(setup: Setup, text: bytes, action: str) -> None:
    for letter in "empty":
        (setup.cwd / letter).mkdir(exist_ok=True)
    record = setup.data / RECORD
    record.parent.mkdir(parents=True)
    record.write_bytes(text.replace(b"{data}", bytes(setup.data)))
    before = snapshot(setup.tmp)
    done = setup.run(action)
    refused(done, record)
    assert snapshot(setup.tmp) == before
