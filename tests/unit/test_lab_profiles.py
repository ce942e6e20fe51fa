"""Reading the profiles in force back from recorded probe output of the real lab VMs."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.lab.profiles import link_profile_in_force, parse_probe, rate_bits

CAPTURES = Path(__file__).parent.parent / "captures"


def test_nas_with_hdd_profile() -> None:
    facts = parse_probe((CAPTURES / "lab-probe-nas-hdd.txt").read_text())
    assert facts["role"] == "nas"
    assert (facts["disk"], facts["link"]) == ("hdd", "none")
    assert facts["nfs_server"] == "active"
    assert facts["nfsd_max_block_size"] == "131072"
    assert facts["exports"].startswith("/export 10.99.0.0/24(sync,")


def test_client_with_50mbit_link() -> None:
    facts = parse_probe((CAPTURES / "lab-probe-client-50mbit.txt").read_text())
    assert (facts["role"], facts["disk"], facts["link"]) == ("client", "-", "50mbit")


def test_nas_without_delay_device_is_ssd() -> None:
    text = (CAPTURES / "lab-probe-nas-hdd.txt").read_text()
    no_delay = "\n".join("delay=" if line.startswith("delay=") else line for line in text.splitlines())
    assert parse_probe(no_delay)["disk"] == "ssd"


@pytest.mark.parametrize(
    ("rate", "bits"), [("50Mbit", 50_000_000), ("100mbit", 100_000_000), ("1Gbit", 10**9), ("800Kbit", 800_000)]
)
def test_rate_bits(rate: str, bits: int) -> None:
    assert rate_bits(rate) == bits


def test_unknown_rate_is_reported_as_custom() -> None:
    assert link_profile_in_force("30Mbit") == "custom (30Mbit)"
    with pytest.raises(ValueError, match="not a tc rate"):
        rate_bits("fast")
