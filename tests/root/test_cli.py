"""The `nfstune` command where only root may write: /dev/full, in a folder (/dev) that only root may write to."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit import test_cli
from tests.unit.test_cli import nfstune

one_session = test_cli.one_session  # the fixture: a stored session in tmp_path's data folder


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (every write fails: no space left)")
def test_report_says_when_a_write_fails_after_the_checks(tmp_path: Path, one_session: int) -> None:
    result = nfstune(tmp_path, "report", str(one_session), "--json", "/dev/full")
    assert result.returncode == 2 and "cannot write /dev/full: No space left on device" in result.stderr
    assert "Traceback" not in result.stderr
