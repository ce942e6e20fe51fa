"""The host probe against the lab VMs (hdd disk profile, 50mbit link): one round trip each, real values."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from nfstune.facts.model import BlockDevice, HostFacts
from nfstune.lab import LabConfig, host
from nfstune.remote import CommandResult, Host
from nfstune.remote.probe import probe

pytestmark = pytest.mark.lab


def probe_once(remote: Host, *, path: str | None = None, peer: str | None = None) -> HostFacts:
    """probe(), asserting that it used exactly one SSH command and no sudo."""
    calls: list[tuple[str, bool]] = []
    run = remote.run

    def counting_run(
        command: str | Sequence[str], *, timeout: float = 60.0, check: bool = True, sudo: bool = False
    ) -> CommandResult:
        calls.append((str(command), sudo))
        return run(command, timeout=timeout, check=check, sudo=sudo)

    remote.run = counting_run  # type: ignore[method-assign]
    try:
        facts = probe(remote, path=path, peer=peer)
    finally:
        del remote.run  # back to the class's method
    assert len(calls) == 1 and calls[0][1] is False, calls
    return facts


def test_probe_nas_and_client(lab: LabConfig) -> None:
    with host(lab, "nas") as nas_host, host(lab, "client") as client_host:
        nas = probe_once(nas_host, path="/export", peer="10.99.0.2")
        client = probe_once(client_host, peer="10.99.0.1")
        by_name = probe_once(client_host, peer="nas")  # resolved on the client, as its mount would resolve it

    for facts, name in ((nas, "nas"), (client, "client")):
        assert facts.complete and (facts.hostname, facts.is_root) == (name, True)
        assert (facts.os_id, facts.os_version_id, facts.architecture) == ("debian", "12", "x86_64")
        assert facts.kernel is not None and facts.kernel.startswith("6.1.")
        assert facts.nfs_utils_version == "2.6.2" and (facts.fio_version, facts.iperf3_version) == ("3.33", "3.12")
        assert {"exportfs", "showmount", "nfsstat", "mount.nfs", "tc", "dmsetup"} <= facts.tools
        assert facts.cpu_count is not None and facts.cpu_count >= 1
        assert facts.mem_total_bytes is not None and 500 << 20 < facts.mem_total_bytes < 4 << 30
        assert (facts.appliance, facts.appliance_evidence, facts.unreadable) == (None, (), ())
        assert HostFacts.from_json(facts.to_json()) == facts

    # the roles differ
    assert (nas.nfs_server_state, nas.nfs_server_active) == ("active", True)
    assert nas.nfsd_threads is not None and nas.nfsd_threads > 0 and nas.nfsd_max_block_size == 131072
    assert nas.nfsd_versions_enabled == frozenset({"3", "4", "4.1", "4.2"})
    # the lab's clients never load nfsd: no thread count at all, rather than 0
    assert (client.nfs_server_active, client.nfsd_threads, client.nfsd_max_block_size) == (False, None, None)

    # the lab link, both ways, on a virtio NIC that has no speed to report (the 50mbit shaping is tc's, not the NIC's)
    assert nas.route is not None and client.route is not None
    assert (nas.route.interface, nas.route.source_address, nas.route.gateway) == ("eth1", "10.99.0.1", None)
    assert (client.route.interface, client.route.source_address, client.route.gateway) == ("eth1", "10.99.0.2", None)
    for route in (nas.route, client.route):
        assert (route.mtu, route.speed_mbps, route.driver) == (1500, None, "virtio_net")
    assert by_name.route is not None and (by_name.route.peer_address, by_name.route.interface) == ("10.99.0.1", "eth1")

    # the export sits on dm-delay over the second virtio disk
    fs = nas.filesystem
    assert fs is not None and client.filesystem is None
    assert (fs.source, fs.fstype, fs.mountpoint) == ("/dev/mapper/labslow", "ext4", "/export")
    assert fs.options is not None and "rw" in fs.options
    assert fs.devices[0] == BlockDevice("labslow", "dm", True, None)
    assert [d.name for d in fs.disks] == ["vdb"] and fs.rotational is True
    assert fs.size_bytes is not None and fs.free_bytes is not None and 0 < fs.free_bytes <= fs.size_bytes
