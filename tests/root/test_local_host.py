"""'This computer' as a host where sudo is root's own (the suite runs as root): run and sudo, and atomic file writes
that keep the mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.remote import CommandFailed
from nfstune.remote.local import LocalHost, is_local


def test_run_streams_and_reports_like_a_remote_host() -> None:
    h = LocalHost()
    assert is_local(h) and h.label.startswith("this computer (")
    result = h.run("echo out; echo err >&2; exit 0")
    assert (result.stdout, result.stderr, result.exit_status) == ("out\n", "err\n", 0)
    with pytest.raises(CommandFailed) as failed:
        h.run(["sh", "-c", "echo nope >&2; exit 3"])
    assert "this computer" in str(failed.value) and "nope" in str(failed.value)
    assert h.run(["id", "-u"], sudo=True).stdout.strip() == "0"  # the suite runs as root: no sudo needed


def test_files_are_read_and_written_atomically_keeping_the_mode(tmp_path: Path) -> None:
    h = LocalHost()
    target = tmp_path / "exports"
    assert h.read_file(str(target)) is None
    target.write_bytes(b"old\n")
    target.chmod(0o600)
    h.write_file(str(target), b"/export *(rw)\n", sudo=True)
    assert target.read_bytes() == b"/export *(rw)\n" and (target.stat().st_mode & 0o777) == 0o600
    assert h.read_file(str(target)) == b"/export *(rw)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exports"]  # no temp file left
