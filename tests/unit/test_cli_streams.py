"""The `nfstune` command when its output cannot be written: standard output on a full device or closed, a report
file that cannot be written. Each is exit 2 with one line on standard error, never a traceback (exit 70) or
Python's "Exception ignored" at exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nfstune.cli.output import write_output
from nfstune.errors import ConfigError
from tests.unit.test_cli_scripts import one_session

FULL = Path("/dev/full")  # every write fails: no space left on device
needs_full = pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")


def nfstune_writing_to(tmp_path: Path, stdout: int | None, *args: str, close: bool = False) -> tuple[int, str]:
    """`nfstune args` with its standard output on the descriptor `stdout` (or closed): its status and stderr."""
    env = os.environ | {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    result = subprocess.run(
        [sys.executable, "-m", "nfstune", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=60,
        preexec_fn=(lambda: os.close(1)) if close else None,
    )
    return result.returncode, result.stderr


COMMANDS = [
    ["history"],
    ["history", "--json"],
    ["report", "{sid}"],
    ["report", "{sid}", "--json", "-"],
    ["report", "{sid}", "--html", "-"],
    ["report", "{sid}", "--csv", "-"],
    ["recipes"],
    ["recipes", "--json"],
    ["info"],
    ["info", "--json"],
    ["--help"],
    ["--version"],
]


@needs_full
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_standard_output_on_a_full_device_is_exit_2_with_one_line(tmp_path: Path, args: list[str]) -> None:
    sid = one_session(tmp_path)
    with FULL.open("w") as full:
        status, stderr = nfstune_writing_to(tmp_path, full.fileno(), *(a.format(sid=sid) for a in args))
    assert (status, stderr.strip()) == (2, "nfstune: error: could not write the output: No space left on device")


@pytest.mark.parametrize("args", [["history"], ["info", "--json"], ["report", "{sid}", "--json", "-"]], ids=" ".join)
def test_a_closed_standard_output_is_exit_2_with_one_line(tmp_path: Path, args: list[str]) -> None:
    sid = one_session(tmp_path)
    status, stderr = nfstune_writing_to(tmp_path, None, *(a.format(sid=sid) for a in args), close=True)
    assert (status, stderr.strip()) == (2, "nfstune: error: could not write the output: standard output is closed")


def test_a_report_file_is_written_whole_before_the_closed_output_is_said(tmp_path: Path) -> None:
    sid = one_session(tmp_path)
    out = tmp_path / "report.json"
    status, stderr = nfstune_writing_to(tmp_path, None, "report", str(sid), "--json", str(out), close=True)
    assert (status, stderr.strip()) == (2, "nfstune: error: could not write the output: standard output is closed")
    assert json.loads(out.read_text())["session"]["id"] == sid  # only "wrote ..." was lost


@needs_full
def test_a_report_file_that_cannot_be_written_names_the_file() -> None:
    """`run --html FILE` writes its report after the run: the disk may be full by then."""
    with pytest.raises(ConfigError, match="cannot write /dev/full: No space left on device"):
        write_output(FULL, "<html></html>")
