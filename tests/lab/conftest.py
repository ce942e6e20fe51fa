"""Logins on the session's lab VMs, for the tests that work on one host at a time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nfstune.lab import LabConfig, host
from nfstune.remote import Host


@pytest.fixture
def nas(lab: LabConfig) -> Iterator[Host]:
    with host(lab, "nas") as h:
        yield h


@pytest.fixture
def client(lab: LabConfig) -> Iterator[Host]:
    with host(lab, "client") as h:
        yield h
