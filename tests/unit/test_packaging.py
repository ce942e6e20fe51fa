"""A non-editable install (the wheel) finds the shipped recipes and resources."""

from __future__ import annotations

import email
import email.message
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

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


def test_installed_wheel_finds_its_files(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True
    ).stdout.strip()
    # install the wheel itself; its dependencies come from the test venv (no download in tests)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", site, str(wheel)], check=True
    )
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [py, "-m", "nfstune", "info", "--json"], capture_output=True, text=True, env=env, cwd=tmp_path, check=True
    ).stdout
    info = json.loads(out)
    assert info["resources_dir"].startswith(site) and info["recipes_dir"].startswith(site)
    assert Path(info["resources_dir"], "lab", "guest", "usr", "local", "sbin", "lab-setup").is_file()
    shipped = sorted(p.name for p in (REPO / "recipes").glob("*.toml"))
    assert info["recipes"] == shipped and "quick-check.toml" in shipped
