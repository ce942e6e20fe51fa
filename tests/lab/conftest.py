"""Logins on the session's lab VMs, for the tests that work on one host at a time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nfstune.lab import LabConfig, down, host, up
from nfstune.remote import Host
from tests.conftest import assert_lab_gone, free_port


@pytest.fixture
def nas(lab: LabConfig) -> Iterator[Host]:
    with host(lab, "nas") as h:
        yield h


@pytest.fixture
def client(lab: LabConfig) -> Iterator[Host]:
    with host(lab, "client") as h:
        yield h


@pytest.fixture(scope="module")
def lab3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabConfig]:
    """A second lab, of three clients (`lab up --clients 3`), for the tests of load from several clients at once:
    one module uses it, and it stops with that module (its VMs would slow every later test down). Its NAS runs
    Debian trixie (`--release trixie`), so that the suite runs the NAS on both releases without a further boot, and
    every VM has soft-RoCE (`--rdma`, the generic kernel), for NFS over RDMA."""
    state_home = tmp_path_factory.mktemp("xdg-state-clients")
    cfg = LabConfig(
        state_dir=state_home / "nfstune" / "lab",
        nas_port=free_port(),
        client_port=free_port(),
        link_port=free_port(),
        disk="ssd",
        clients=3,
        release="trixie",
        rdma=True,
    ).validate()
    messages: list[str] = []
    up(cfg, messages.append)
    try:
        yield cfg.as_running()
    finally:
        down(cfg, messages.append)
    assert_lab_gone(cfg)
