"""The `nfstune` command as a script uses it: its output read through a pipe, its exit statuses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nfstune.cli import exits
from nfstune.store import Results, open_store
from tests.unit.test_cli import nfstune

REPO = Path(__file__).resolve().parents[2]


def store(tmp_path: Path) -> Results:
    """The store `nfstune` opens with the state folders tests.unit.test_cli.nfstune gives it."""
    return Results(open_store(tmp_path / "data" / "nfstune" / "nfstune.sqlite3"))


def piped(tmp_path: Path, command: str) -> tuple[str, str, int]:
    """`nfstune <command> | head -1` through a real shell: head's output, nfstune's stderr and nfstune's status."""
    env = os.environ | {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    status, stderr = tmp_path / "status", tmp_path / "stderr"
    script = f'( "{sys.executable}" -m nfstune {command} 2>"{stderr}"; echo $? >"{status}" ) | head -1'
    shown = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env, timeout=120, check=True)
    return shown.stdout, stderr.read_text(), int(status.read_text())


def test_a_reader_that_stops_early_ends_nfstune_quietly_with_141(tmp_path: Path) -> None:
    results = store(tmp_path)
    share = "/export/" + "x" * 400  # 500 lines of ~460 bytes: far more than a pipe holds (64 KiB on Linux)
    for _ in range(500):
        results.end_session(
            results.start_session(server_host=None, client_host=None, share=share, scale="small", recipes=["x"]),
            "completed",
        )
    first, stderr, status = piped(tmp_path, "history")
    assert first.startswith(" 500  ") and share in first
    assert stderr == ""  # no traceback, no "this is a bug", no "Exception ignored"
    assert status == exits.READER_GONE == 141


def test_output_that_fits_the_pipe_ends_with_0(tmp_path: Path) -> None:
    first, stderr, status = piped(tmp_path, "--help")
    assert first.startswith("usage: nfstune") and stderr == "" and status == 0


def test_the_exit_statuses_are_in_the_help_and_the_readme(tmp_path: Path) -> None:
    text = nfstune(tmp_path, "--help").stdout
    assert "exit status:" in text
    readme = (REPO / "README.md").read_text()
    for code in (0, 1, 2, 3, 70, 130, 141):
        assert f"\n  {code:3}  " in text, code
        assert f"\n| {code} |" in readme, code
