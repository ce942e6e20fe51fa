"""The lab image is rebuilt exactly when something that goes into it changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nfstune.errors import ConfigError, ToolMissing
from nfstune.lab import image
from nfstune.lab.image import apt_sources, check_host_tools, input_hash

SOURCES = "Types: deb\nURIs: http://deb.example/debian\nSuites: bookworm\nComponents: main\n"


@pytest.fixture
def guest(tmp_path: Path) -> Path:
    g = tmp_path / "guest"
    shutil.copytree(image.guest_dir(), g)
    return g


def test_hash_is_stable_for_the_same_inputs(guest: Path) -> None:
    assert input_hash(SOURCES, guest) == input_hash(SOURCES, guest)
    assert input_hash(SOURCES, guest) == input_hash(SOURCES, image.guest_dir())


def test_hash_follows_guest_files_their_mode_and_the_sources(guest: Path) -> None:
    base = input_hash(SOURCES, guest)
    exports = guest / "etc" / "exports"
    exports.write_text(exports.read_text() + "# changed\n")
    edited = input_hash(SOURCES, guest)
    setup = guest / "usr" / "local" / "sbin" / "lab-setup"
    setup.chmod(0o644)
    mode = input_hash(SOURCES, guest)
    (guest / "etc" / "new-file").write_text("x")
    added = input_hash(SOURCES, guest)
    other_sources = input_hash(SOURCES.replace("main", "main contrib"), guest)
    assert len({base, edited, mode, added, other_sources}) == 5


def test_packages_are_part_of_the_hash(guest: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = input_hash(SOURCES, guest)
    monkeypatch.setattr(image, "PACKAGES", (*image.PACKAGES, "strace"))
    assert input_hash(SOURCES, guest) != base


def test_the_masked_units_are_part_of_the_hash(guest: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = input_hash(SOURCES, guest)
    monkeypatch.setattr(image, "UNNEEDED_UNITS", image.UNNEEDED_UNITS[1:])
    assert input_hash(SOURCES, guest) != base


def test_deb822_sources_are_preferred(tmp_path: Path) -> None:
    d = tmp_path / "sources.list.d"
    d.mkdir()
    (d / "debian.sources").write_text(SOURCES + "\n" + SOURCES.replace("bookworm", "bookworm-updates"))
    (tmp_path / "sources.list").write_text("deb http://old.example/debian bookworm main\n")
    text = apt_sources(tmp_path)
    assert "bookworm-updates" in text and "old.example" not in text


def test_one_line_sources(tmp_path: Path) -> None:
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list").write_text("# comment\ndeb http://m.example/debian bookworm main\ndeb-src x y z\n")
    assert apt_sources(tmp_path) == "deb http://m.example/debian bookworm main\n"


def test_no_sources_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no Debian package sources"):
        apt_sources(tmp_path)


def test_a_missing_host_tool_names_its_package() -> None:
    with pytest.raises(ToolMissing) as info:
        check_host_tools({"nfstune-no-such-tool": "nfstune-pkg", "ssh-keygen": "openssh-client"})
    assert info.value.tool == "nfstune-no-such-tool"
    assert "apt-get install -y nfstune-pkg" in str(info.value) and "this computer" in str(info.value)
