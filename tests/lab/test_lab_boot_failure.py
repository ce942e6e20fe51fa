"""A VM that is not ready in time: the error shows its console, and nothing is left running."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from nfstune.lab import LabConfig, LabError, up
from tests.conftest import free_port

pytestmark = pytest.mark.lab


def test_boot_timeout_reports_the_console_and_stops_everything(tmp_path: Path) -> None:
    cfg = LabConfig(
        state_dir=tmp_path / "lab",
        nas_port=free_port(),
        client_port=free_port(),
        link_port=free_port(),
        boot_timeout=4,
    )
    messages: list[str] = []
    with pytest.raises(LabError) as info:
        up(cfg, messages.append)
    text = str(info.value)
    assert "was not ready within 4 s" in text and "Last lines of its console" in text
    assert str(cfg.console_log("nas")) in text
    assert "stopping the VMs that were started" in messages
    assert not list(cfg.state_dir.glob("*.pid")) and not cfg.export_disk.exists()
    ours = [p for p in psutil.process_iter(["cmdline"]) if str(cfg.state_dir) in " ".join(p.info["cmdline"] or [])]
    assert ours == []
