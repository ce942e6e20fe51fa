"""Shared fixtures: free ports, and the practice lab booted once per test session (per pytest-xdist worker: `make
test` runs two, each with a lab of its own). The SSH fixtures (a real sshd on loopback, local users) are in
tests/root/conftest.py: they need root."""

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


# --- two workers, two labs ---------------------------------------------------------------------------------------
# The lab's tests mostly wait (on the hdd profile's delays, the shaped link and the workloads' own time): its VMs use
# well under half a core each. So `make test` runs two pytest-xdist workers, each booting its own lab when it first
# needs one. The scheduler below keeps together what must not be split:
# - tests/root: one sshd, and local users created and removed by name;
# - the three-client lab's module: four VMs, booted once for the module.
# (xdist's own `--dist loadgroup` rewrites node ids, which pytest 9.2 no longer takes: pytest-xdist issue #1386.)
# The lab's tests go first, longest first, so that the short ones fill the end of the run on both workers.
TOGETHER = {"tests/root/": "tests/root", "tests/lab/test_lab_clients.py::": "the three-client lab"}
LONGEST_FIRST = ("tests/ui/test_wizard_lab.py", "tests/lab/test_engine_lab.py")


def together(nodeid: str) -> str:
    """The unit of work a test belongs to: a group of TOGETHER, or the test alone."""
    return next((group for prefix, group in TOGETHER.items() if nodeid.startswith(prefix)), nodeid)


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class Together(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return together(nodeid)

    return Together(config, log)


def _order(item: pytest.Item) -> tuple[int, int]:
    uses_lab = "lab" in getattr(item, "fixturenames", ())
    where = item.nodeid.split("::")[0]
    return (0 if uses_lab else 1, LONGEST_FIRST.index(where) if where in LONGEST_FIRST else len(LONGEST_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_order)


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
