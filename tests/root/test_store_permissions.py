"""`nfstune` where this user may not write or enter: a read-only results database, a data folder inside one the user
may not enter, a recipe folder that cannot be read. Root may write and enter anywhere, so the command runs as root
without that power (CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped before it starts): the file modes then hold
for it as for any user."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

from tests.unit.test_store_states import a_session_left_running, database

PR_CAPBSET_DROP = 24  # linux/prctl.h
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2  # linux/capability.h


def _without_root_powers() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def nfstune_as_a_user(tmp_path: Path, *args: str, data: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = os.environ | {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(data or tmp_path / "data"),
    }
    return subprocess.run(
        [sys.executable, "-m", "nfstune", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        preexec_fn=_without_root_powers,
    )


def test_the_user_cannot_write_where_a_file_says_so(tmp_path: Path) -> None:
    """The helper itself: without it, root would write a 0400 file and every test below would pass for nothing."""
    locked = tmp_path / "locked"
    locked.write_text("")
    locked.chmod(0o400)
    probe = subprocess.run(
        [sys.executable, "-c", f"open({str(locked)!r}, 'a')"], capture_output=True, preexec_fn=_without_root_powers
    )
    assert probe.returncode == 1 and b"PermissionError" in probe.stderr


def test_a_read_only_database_is_listed_and_left_alone(tmp_path: Path) -> None:
    sid = a_session_left_running(tmp_path)
    path = database(tmp_path)
    path.chmod(0o400)
    before = path.read_bytes()
    result = nfstune_as_a_user(tmp_path, "history")
    assert result.returncode == 0, result.stderr
    assert f"{sid:4}  " in result.stdout and "running" in result.stdout  # not marked: the file cannot be written
    assert f"nfstune: note: {path} is read-only" in result.stderr
    report = nfstune_as_a_user(tmp_path, "report", str(sid), "--json", "-")
    assert report.returncode == 0 and report.stdout.startswith("{"), report.stderr
    assert path.read_bytes() == before and (path.stat().st_mode & 0o777) == 0o400


def test_a_read_only_database_stops_a_command_that_records_before_it_starts(tmp_path: Path) -> None:
    a_session_left_running(tmp_path)
    path = database(tmp_path)
    path.chmod(0o400)
    # apply journals what it changes: refused before any host is looked up (the names are never resolved)
    result = nfstune_as_a_user(tmp_path, "apply", "41", "--server", "nas.invalid", "--client", "client.invalid")
    assert result.returncode == 2, result.stderr
    assert f"nfstune: error: {path} is read-only for this user" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_data_folder_inside_one_the_user_may_not_enter_is_named(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    (closed / "data" / "nfstune").mkdir(parents=True)
    closed.chmod(0)
    try:
        for data in (closed / "data", closed / "elsewhere"):
            result = nfstune_as_a_user(tmp_path, "history", data=data)
            assert result.returncode == 2, result.stderr
            assert f"this user may not enter {closed}" in result.stderr, result.stderr
            assert "Traceback" not in result.stderr
    finally:
        closed.chmod(0o700)


def test_a_recipe_folder_that_cannot_be_read_is_named_and_the_shipped_recipes_listed(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "nfstune" / "recipes"
    folder.mkdir(parents=True)
    folder.chmod(0)
    result = nfstune_as_a_user(tmp_path, "recipes")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == f"nfstune: warning: {folder}: cannot read the folder: Permission denied"
    assert "\nquick-check " in result.stdout
