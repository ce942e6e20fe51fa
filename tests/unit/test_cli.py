"""The `nfstune` command as a user runs it (a subprocess, its own state folders)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def nfstune(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    return subprocess.run([sys.executable, "-m", "nfstune", *args], capture_output=True, text=True, env=env, timeout=60)


def test_version(tmp_path: Path) -> None:
    from nfstune import __version__

    assert nfstune(tmp_path, "--version").stdout.strip() == f"nfstune {__version__}"


def test_status_when_the_lab_is_down(tmp_path: Path) -> None:
    result = nfstune(tmp_path, "lab", "status")
    assert result.returncode == 3
    rows = result.stdout.splitlines()[1:]
    assert [r.split()[0] for r in rows] == ["nas", "client"]
    assert all(r.split()[2] == "down" for r in rows)


def test_stale_pid_file_is_not_taken_for_a_running_vm(tmp_path: Path) -> None:
    lab_state = tmp_path / "state" / "nfstune" / "lab"
    lab_state.mkdir(parents=True)
    (lab_state / "nas.pid").write_text(f"{os.getpid()}\n")  # alive, but not our qemu
    (lab_state / "client.pid").write_text("999999999\n")  # gone
    assert "down" in nfstune(tmp_path, "lab", "status").stdout.splitlines()[1]
    result = nfstune(tmp_path, "lab", "down")
    assert result.returncode == 0 and "stale pid file" in result.stdout
    assert not list(lab_state.glob("*.pid"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nas-port", "80"], "nas port 80 is out of range"),
        (["--nas-port", "4000", "--client-port", "4000"], "ports must differ"),
        (["--memory", "64"], "too little memory"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    result = nfstune(tmp_path, "lab", "up", *args)
    assert result.returncode == 2
    assert result.stderr.strip().startswith("nfstune: error:") and message in result.stderr
    assert not (tmp_path / "state").exists() and not (tmp_path / "cache").exists()


def test_unknown_profile_is_refused_by_the_parser(tmp_path: Path) -> None:
    result = nfstune(tmp_path, "lab", "up", "--link", "10gbit")
    assert result.returncode == 2 and "invalid choice: '10gbit'" in result.stderr


def test_lab_help_states_the_limits(tmp_path: Path) -> None:
    text = nfstune(tmp_path, "lab", "--help").stdout
    assert "emulated" in text and "12 MB/s" in text and "98.6 %" in text
    for name in ("hdd", "ssd", "100mbit", "50mbit", "20mbit"):
        assert name in text


def test_history_and_report_from_a_terminal_without_display(tmp_path: Path) -> None:
    from nfstune.store import Results, open_store

    results = Results(open_store(tmp_path / "data" / "nfstune" / "nfstune.sqlite3"))
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    run = results.start_run(sid, recipe="sync-vs-async", config_label="sync", config={}, workload="seq-write")
    for i, mbs in enumerate([10.0, 11.0, 10.5]):
        results.add_repeat(
            run, i, warmup=False, values={"tool": "fio", "bytes": 8 << 20, "seconds": 0.8, "mb_per_s": mbs}
        )
    results.end_session(sid, "completed")
    env_cut = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    listing = nfstune(tmp_path, "history")
    assert listing.returncode == 0 and "completed" in listing.stdout and "/export" in listing.stdout
    out = tmp_path / "r.html"
    result = subprocess.run(
        [sys.executable, "-m", "nfstune", "report", str(sid), "--html", str(out)],
        capture_output=True, text=True, timeout=120,
        env=env_cut | {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state")},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "data:image/png;base64," in out.read_text()
    missing = nfstune(tmp_path, "report", "999")
    assert missing.returncode == 2 and "there is no session 999" in missing.stderr
