"""nfstune's reverse-DNS id on the desktop: the menu entry named by it, its AppStream metainfo (validated by
AppStream's own `appstreamcli`, alone and installed beside the entry it names), and the upgrade from the entry's old
name, `nfstune.desktop`: removed when nfstune's record says nfstune wrote it, left and named otherwise."""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from nfstune import paths
from nfstune.cli import desktop_entry, file_record

ID = "io.github.nfstune.nfstune"


@pytest.fixture
def command(tmp_path: Path) -> Path:
    exe = tmp_path / "bin" / "nfstune"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return exe


def appstreamcli(*argv: object) -> tuple[int, str]:
    done = subprocess.run(["appstreamcli", *map(str, argv)], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def install(home: Path, command: Path) -> list[str]:
    said: list[str] = []
    desktop_entry.install(home, command, said.append)
    return said


def uninstall(home: Path) -> list[str]:
    said: list[str] = []
    desktop_entry.uninstall(home, said.append)
    return said


def install_as_before(home: Path, command: Path) -> Path:
    """What `desktop-entry --install` wrote before the reverse-DNS id: the entry as `nfstune.desktop` and the icons,
    recorded by the same record code (its format has not changed)."""
    old = home / "applications" / "nfstune.desktop"
    files = [(old, desktop_entry.entry_text(command).encode())]
    files += [(p, data) for p, data in desktop_entry.entry_files(home, command) if p.suffix in (".png", ".svg")]
    places = file_record.Places(
        base=home,
        roots=(home / "applications", home / "icons" / "hicolor"),
        prefix="nfstune",
        record=home / "nfstune" / "desktop-entry.json",
    )
    file_record.write_files(places, files, lambda _: None)
    assert '"' + str(old) + '"' in places.record.read_text()
    return old


def test_the_metainfo_passes_appstreamcli_and_names_the_entry_and_the_command() -> None:
    metainfo = paths.metainfo_file()
    assert metainfo.name == f"{ID}.metainfo.xml"
    code, said = appstreamcli("validate", "--no-net", "--explain", metainfo)
    assert code == 0, said
    assert not re.search(r"^\s*[EW]: ", said, re.MULTILINE), said  # neither an error nor a warning
    root = ET.parse(metainfo).getroot()
    assert root.get("type") == "desktop-application" and root.findtext("id") == ID
    assert root.findtext("launchable[@type='desktop-id']") == f"{ID}.desktop"
    assert root.findtext("provides/binary") == "nfstune"
    assert root.findtext("project_license") == "MIT"


def test_installed_the_metainfo_finds_its_entry(tmp_path: Path, command: Path) -> None:
    """AppStream's check of an installed tree ($prefix/share): the metainfo's launchable is the entry written."""
    share = tmp_path / "root" / "usr" / "share"
    said = install(share, command)
    assert f"wrote {share}/applications/{ID}.desktop" in said
    assert f"wrote {share}/metainfo/{ID}.metainfo.xml" in said
    code, out = appstreamcli("validate-tree", "--no-net", "--explain", tmp_path / "root")
    assert code == 0 and "desktop-file-not-found" not in out, out
    assert not re.search(r"^\s*[EW]: ", out, re.MULTILINE), out


def test_an_upgrade_removes_the_entry_nfstune_wrote_under_its_old_name(tmp_path: Path, command: Path) -> None:
    home = tmp_path / "data"
    old = install_as_before(home, command)
    said = install(home, command)
    assert not old.exists() and (home / "applications" / f"{ID}.desktop").is_file()
    assert f"removed {old}: nfstune's menu entry under its old name" in " ".join(said)
    record = (home / "nfstune" / "desktop-entry.json").read_text()
    assert "nfstune.desktop" not in record.replace(f"{ID}.desktop", "")
    assert [line for line in install(home, command) if line.startswith(("removed", "left"))] == []
    uninstall(home)
    assert tree(home) == []


def test_an_old_entry_changed_since_is_left_and_named(tmp_path: Path, command: Path) -> None:
    home = tmp_path / "data"
    old = install_as_before(home, command)
    old.write_text(old.read_text().replace("Terminal=false", "Terminal=true"))
    said = install(home, command)
    assert old.read_text().count("Terminal=true") == 1
    assert any(line.startswith(f"left {old}: ") and "changed" in line for line in said), said
    assert f"left {old}: it was changed after nfstune wrote it" in uninstall(home)
    assert tree(home) == ["applications", "applications/nfstune.desktop"]


def test_an_old_entry_nfstune_did_not_write_is_left_and_named(tmp_path: Path, command: Path) -> None:
    home = tmp_path / "data"
    theirs = home / "applications" / "nfstune.desktop"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("[Desktop Entry]\nType=Application\nName=my own nfstune\nExec=nfstune\n")
    before = theirs.read_bytes()
    said = install(home, command)
    assert theirs.read_bytes() == before and (home / "applications" / f"{ID}.desktop").is_file()
    assert any(line.startswith(f"left {theirs}: nfstune did not write it") for line in said), said
    uninstall(home)
    assert tree(home) == ["applications", "applications/nfstune.desktop"]
