"""The user's recipe files as `nfstune recipes` reads them: only regular files of a bounded size (a named pipe or a
link to /dev/zero named *.toml hung every command that loads recipes), and mount option values that mount.nfs
reads as the recipe wrote them."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.test_recipes import BASE, edited

LIMIT = 1 << 20  # 1 MiB: far more than any recipe needs (the shipped ones are under 10 KiB)
MEMORY_CAP = 2 << 30  # a child reading /dev/zero for ever stops at this, not at the machine's memory


def recipes_command(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    return subprocess.run(
        [sys.executable, "-m", "nfstune", "recipes"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP)),
    )


def user_recipes(tmp_path: Path) -> Path:
    folder = tmp_path / "data" / "nfstune" / "recipes"
    folder.mkdir(parents=True)
    (folder / "demo.toml").write_text(BASE)  # a good one, listed all the same
    return folder


def fifo(path: Path) -> None:
    os.mkfifo(path)


def link_to_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


@pytest.mark.parametrize(
    ("make", "kind"),
    [(fifo, "a named pipe (FIFO)"), (link_to_zero, "a character device")],
    ids=["fifo", "link-to-dev-zero"],
)
def test_a_recipe_that_is_not_a_regular_file_is_named_and_skipped(tmp_path: Path, make: object, kind: str) -> None:
    folder = user_recipes(tmp_path)
    assert callable(make)
    make(folder / "odd.toml")
    result = recipes_command(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == (
        f"nfstune: warning: {folder / 'odd.toml'}: not a regular file but {kind}: a recipe is read from a regular "
        "file only"
    )
    assert "\ndemo " in result.stdout


def test_a_recipe_larger_than_the_limit_is_named_and_skipped(tmp_path: Path) -> None:
    folder = user_recipes(tmp_path)
    big = folder / "big.toml"
    big.write_text(BASE.replace('id = "demo"', 'id = "big"') + "# padding\n" * (LIMIT // 10 + 1))
    result = recipes_command(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == (
        f"nfstune: warning: {big}: {big.stat().st_size} bytes, more than a recipe may be (1 MiB)"
    )
    assert "\ndemo " in result.stdout and "\nbig " not in result.stdout


@pytest.mark.parametrize(
    ("option", "value", "shown"),
    [
        ("clientaddr", r'"10.0.0.2\u0000"', r"'10.0.0.2\x00'"),
        ("mounthost", r'"nas\"x"', "'nas\"x'"),
        ("mounthost", r'"nas=x"', "'nas=x'"),
        ("clientaddr", r'"10.0.0.2\u0007"', r"'10.0.0.2\x07'"),
    ],
    ids=["nul", "double-quote", "equals", "control"],
)
def test_a_mount_option_value_mount_would_misread_is_refused_at_its_line(
    tmp_path: Path, option: str, value: str, shown: str
) -> None:
    """libmount reads a double quote as the start of a quoted value, and a NUL ends the options: the options after
    it would be lost without a word."""
    folder = user_recipes(tmp_path)
    (folder / "demo.toml").write_text(edited('mount = { vers = "3" }', f'mount = {{ vers = "3", {option} = {value} }}'))
    result = recipes_command(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == (
        f"nfstune: warning: {folder / 'demo.toml'}:14: configs[1].mount: '{option}' must be a host name "
        f"or an IP address, not {shown}"
    )
