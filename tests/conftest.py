"""Shared fixtures: free ports, and the practice lab booted once per test session. The SSH fixtures (a real sshd on
loopback, local users) are in tests/root/conftest.py: they need root."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import psutil
import pytest

if TYPE_CHECKING:
    from nfstune.lab import LabConfig


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- the practice lab, booted once per test session ------------------------------------------------------------


@pytest.fixture(scope="session")
def lab_state_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """XDG_STATE_HOME of the test lab, so that `nfstune lab ...` subprocesses find it too."""
    return tmp_path_factory.mktemp("xdg-state")


@pytest.fixture(scope="session")
def lab(lab_state_home: Path) -> Iterator[LabConfig]:
    """Both lab VMs up, on free ports, with the hdd disk profile and the 50mbit link profile (so that the tests
    can check the shaping); the image cache is the user's own, shared with `nfstune lab`."""
    from nfstune.lab import LabConfig, down, up

    cfg = LabConfig(
        state_dir=lab_state_home / "nfstune" / "lab",
        nas_port=free_port(),
        client_port=free_port(),
        link_port=free_port(),
        disk="hdd",
        link="50mbit",
    ).validate()
    log: list[str] = []
    up(cfg, log.append)
    yield cfg.as_running()
    down(cfg, log.append)
    assert_lab_gone(cfg)


def assert_lab_gone(cfg: LabConfig) -> None:
    """After `down`: no qemu of this lab still runs (its state folder is on each one's command line), no pid file."""
    leftovers = [
        p.info["pid"]
        for p in psutil.process_iter(["pid", "cmdline"])
        if str(cfg.state_dir) in " ".join(p.info["cmdline"] or [])
    ]
    assert leftovers == [], f"qemu processes left running: {leftovers}"
    assert not list(cfg.state_dir.glob("*.pid")), "stale pid files left"
