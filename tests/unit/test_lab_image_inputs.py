"""The lab image is rebuilt exactly when something that goes into it changes."""

from __future__ import annotations

import json
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


# --- the NAS's release (`lab up --release trixie`) -------------------------------------------------------------


def test_another_release_takes_this_machines_mirrors_with_its_own_suites(tmp_path: Path) -> None:
    d = tmp_path / "sources.list.d"
    d.mkdir()
    main = SOURCES.replace("Suites: bookworm", "Suites: bookworm bookworm-updates")
    security = "Types: deb\nURIs: http://deb.example/debian-security\nSuites: bookworm-security\nComponents: main\n"
    keyring = "Signed-By: /usr/share/keyrings/debian-archive-bookworm-stable.gpg\n"
    (d / "debian.sources").write_text(main + keyring + "\n" + security)
    text = apt_sources(tmp_path, release="trixie")
    assert "Suites: trixie trixie-updates\n" in text and "Suites: trixie-security\n" in text
    assert "http://deb.example/debian\n" in text and "http://deb.example/debian-security\n" in text
    assert keyring in text  # only the suites change: a key file's name is not a suite
    assert (
        apt_sources(tmp_path)
        == apt_sources(tmp_path, release="bookworm")
        == "\n\n".join(b.strip() for b in (main + keyring, security)) + "\n"
    )


def test_one_line_sources_of_another_release_keep_their_options(tmp_path: Path) -> None:
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list").write_text(
        "deb http://m.example/debian bookworm main\n"
        "deb [arch=amd64 signed-by=/k/bookworm.gpg] http://m.example/debian-security bookworm-security main\n"
    )
    assert apt_sources(tmp_path, release="trixie") == (
        "deb http://m.example/debian trixie main\n"
        "deb [arch=amd64 signed-by=/k/bookworm.gpg] http://m.example/debian-security trixie-security main\n"
    )


def test_each_release_has_its_own_image(guest: Path) -> None:
    assert input_hash(SOURCES, guest, "trixie") != input_hash(SOURCES, guest, "bookworm")
    assert input_hash(SOURCES, guest) == input_hash(SOURCES, guest, "bookworm")


def test_a_new_image_removes_only_the_outdated_images_of_its_own_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trixie NAS beside bookworm clients: building one release's image keeps the other's, even while it builds."""
    cache = tmp_path / "cache"
    names = ("a1", "b2", "c3.bookworm.tmp", "d4.trixie.tmp", "e5.tmp")
    old_bookworm, old_trixie, *unfinished = (image.images_dir(cache) / name for name in names)
    for directory, release in ((old_bookworm, "bookworm"), (old_trixie, "trixie")):
        directory.mkdir(parents=True)
        (directory / "manifest.json").write_text(json.dumps({"suite": release}))
    for directory in unfinished:
        directory.mkdir(parents=True)

    def build(img: image.Image, progress: image.Progress) -> None:
        img.directory.mkdir(parents=True)
        for f in (img.disk, *img.boot_files(rdma=False), *img.boot_files(rdma=True)):
            f.write_bytes(b"")
        img.manifest.write_text(json.dumps({"suite": img.release}))

    monkeypatch.setattr(image, "_build", build)
    monkeypatch.setattr(image, "check_host_tools", lambda: None)
    monkeypatch.setattr(image.os, "geteuid", lambda: 0)
    monkeypatch.setattr(image, "apt_sources", lambda release: SOURCES.replace("bookworm", release))
    built, fresh = image.ensure_image(cache, lambda _m: None, release="bookworm")
    assert fresh and built.release == "bookworm"
    # trixie's image and its build in progress stay; bookworm's old image and unfinished builds go
    assert sorted(p.name for p in image.images_dir(cache).iterdir()) == sorted(
        [built.directory.name, "b2", "d4.trixie.tmp"]
    )
