"""The wheel as an admin installs it (README, Install): its metadata and package page, a non-editable install that
finds the shipped recipes and resources, and that puts itself in the desktop's menu."""

from __future__ import annotations

import email
import email.message
import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from nfstune import __version__

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(REPO)],
        check=True,
    )
    (whl,) = out.glob("nfstune-*.whl")
    return whl


def metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as whl:
        (name,) = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
        return email.message_from_bytes(whl.read(name))


def test_wheel_carries_the_license(wheel: Path) -> None:
    meta = metadata(wheel)
    assert meta["License-Expression"] == "MIT" and meta.get_all("License-File") == ["LICENSE"]
    with zipfile.ZipFile(wheel) as whl:
        (name,) = [n for n in whl.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
        text = whl.read(name).decode()
    assert text == (REPO / "LICENSE").read_text() and text.startswith("MIT License")
    classifiers = meta.get_all("Classifier") or []
    assert "Operating System :: POSIX :: Linux" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the expression says it, alone


def test_wheel_carries_resources_and_recipes(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for rel in (REPO / "recipes").rglob("*"):
        if rel.is_file():
            assert "nfstune/_data/recipes/" + rel.relative_to(REPO / "recipes").as_posix() in names
    for rel in (REPO / "resources").rglob("*"):
        if rel.is_file():
            assert "nfstune/_data/resources/" + rel.relative_to(REPO / "resources").as_posix() in names
    assert "nfstune/_data/resources/metainfo/io.github.nfstune.nfstune.metainfo.xml" in names


def test_wheel_carries_a_fallback_for_every_icon_the_desktop_asks_the_theme_for(wheel: Path) -> None:
    from nfstune.ui.icons import NAMES

    names = set(zipfile.ZipFile(wheel).namelist())
    assert NAMES and all(f"nfstune/_data/resources/icons/fallback/{n}.svg" in names for n in NAMES.values())


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed in it, `nfstune` command included. Its dependencies come
    from the test's own environment through a .pth file (no download in tests); that environment's own .pth files
    (the editable install of the source) are not read from there, so nfstune is the wheel's."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    subprocess.run([*pip, "install", "-q", "--no-deps", str(wheel)], check=True)
    Path(site_packages(venv), "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def site_packages(venv: Path) -> str:
    return subprocess.run(
        [venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def run(argv: list[object], cwd: Path, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | env
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=clean, cwd=cwd, check=True).stdout


def test_installed_wheel_finds_its_files(venv: Path, tmp_path: Path) -> None:
    site = site_packages(venv)
    argv: list[object] = [venv / "bin" / "python", "-m", "nfstune", "info", "--json"]
    info = json.loads(run(argv, tmp_path, XDG_DATA_HOME=str(tmp_path / "data")))  # no recipe of this user's
    assert info["resources_dir"].startswith(site) and info["recipes_dir"].startswith(site)
    assert Path(info["resources_dir"], "lab", "guest", "usr", "local", "sbin", "lab-setup").is_file()
    shipped = sorted(p.stem for p in (REPO / "recipes").glob("*.toml"))  # the ids, as --recipe takes them
    assert info["recipes"] == shipped and "quick-check" in shipped


def test_the_installed_wheel_finds_its_fallback_icons(venv: Path, tmp_path: Path) -> None:
    site = site_packages(venv)
    script = "from nfstune.ui.icons import NAMES, fallback_file\nfor n in NAMES.values(): print(fallback_file(n))"
    found = [Path(line) for line in run([venv / "bin" / "python", "-c", script], tmp_path).splitlines()]
    assert found and all(str(p).startswith(site) and p.is_file() for p in found)


def test_the_installed_command_puts_nfstune_in_the_menu_and_takes_it_out(venv: Path, tmp_path: Path) -> None:
    nfstune = venv / "bin" / "nfstune"
    assert run([nfstune, "--version"], tmp_path) == f"nfstune {__version__}\n"
    data = tmp_path / "xdg-data"
    data.mkdir()
    said = run([nfstune, "desktop-entry", "--install"], tmp_path, XDG_DATA_HOME=str(data))
    entry = data / "applications" / "io.github.nfstune.nfstune.desktop"
    check = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
    assert (check.returncode, check.stdout + check.stderr) == (0, "")
    lines = entry.read_text().splitlines()
    assert f"Exec={nfstune} gui" in lines and f"TryExec={nfstune}" in lines and "Icon=nfstune" in lines
    # the Icon Theme Specification's places in the hicolor theme, each size the one its folder names
    for size in (16, 24, 32, 48, 64, 128, 256):
        icon = data / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "nfstune.png"
        assert icon.read_bytes()[16:24] == size.to_bytes(4, "big") * 2  # the PNG header's width and height
        assert f"wrote {icon}" in said
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "nfstune.svg").is_file()
    metainfo = data / "metainfo" / "io.github.nfstune.nfstune.metainfo.xml"
    check = subprocess.run(["appstreamcli", "validate", "--no-net", str(metainfo)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    run([nfstune, "desktop-entry", "--uninstall"], tmp_path, XDG_DATA_HOME=str(data))
    assert list(data.iterdir()) == []


def test_the_package_page_has_no_relative_link_or_picture(wheel: Path) -> None:
    page = metadata(wheel).get_payload()
    assert isinstance(page, str)
    assert metadata(wheel)["Description-Content-Type"] == "text/markdown"
    assert page.startswith("# nfstune\n") and "make test    #" not in page  # the developers' block needs a checkout
    assert "![" not in page and "<img" not in page
    assert re.findall(r"\]\((?!https?://|mailto:|#)[^)]*\)", page) == []
    # nothing else was cut: every heading of the README from the three commands on is there
    readme = (REPO / "README.md").read_text()
    headings = re.findall(r"^##+ .*$", readme[readme.index("## On your own NAS") :], re.MULTILINE)
    assert len(headings) > 5 and re.findall(r"^##+ .*$", page, re.MULTILINE) == headings


def test_the_readme_opens_with_the_two_commands_then_ones_own_nas_then_install() -> None:
    readme = (REPO / "README.md").read_text()
    assert readme.startswith("# nfstune\n\n```sh\nmake demo    # ")
    assert readme.split("```", 2)[1].splitlines()[1:] == [
        "make demo    # installs what is missing, builds and boots the practice lab, runs nfstune on it",
        "make test    # installs what is missing, then runs the linters and the whole test suite",
    ]
    assert re.findall(r"^## .*$", readme, re.MULTILINE)[:2] == ["## On your own NAS in three commands", "## Install"]


def test_the_readme_names_the_packages_the_makefile_installs_for_the_window() -> None:
    makefile = (REPO / "Makefile").read_text().replace("\\\n", " ")
    (runtime,) = re.findall(r"^APT_QT_RUNTIME := (.*)$", makefile, re.MULTILINE)
    readme = (REPO / "README.md").read_text().replace("\\\n", " ")
    (listed,) = re.findall(r"^sudo apt-get install --no-install-recommends (lib.*)$", readme, re.MULTILINE)
    assert listed.split() == runtime.split()
    assert "xvfb" not in listed and "imagemagick" not in listed  # the tests' own, not the window's
