"""The Preflight page's host cards as data (session.preflight_cards), on the recorded probe output
(tests/captures/probe) and variations of it: only known facts, grouped in order, and a line where facts are missing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from nfstune.facts.model import HostFacts
from nfstune.facts.probe_output import parse_probe_output
from nfstune.session.nas_view import facts_seen
from nfstune.session.preflight_cards import (
    CUT_OFF_NOTE,
    NO_LOGIN_NOTE,
    NOTHING_NOTE,
    card_groups,
    host_card,
)

CAPTURES = Path(__file__).parent.parent / "captures"


def facts(name: str) -> HostFacts:
    return parse_probe_output((CAPTURES / "probe" / name).read_text())


@pytest.fixture
def nas() -> HostFacts:
    return facts("lab-nas-root.txt")


@pytest.fixture
def client() -> HostFacts:
    return facts("lab-client-root.txt")


def as_dict(groups: list[tuple[str, list[tuple[str, str]]]]) -> dict[str, dict[str, str]]:
    return {group: dict(rows) for group, rows in groups}


def test_the_lab_server_card_groups_what_matters_in_order(nas: HostFacts) -> None:
    card = host_card(nas, "server", "nas")
    assert card.title == "Server \u00b7 nas"
    assert card.summary == ("Debian GNU/Linux 12 (bookworm)", "kernel 6.1.0-56-cloud-amd64", "1 CPU", "0.9 GiB RAM")
    assert [group for group, _ in card.groups] == ["Link", "Disk & filesystem", "NFS", "Tools"]
    assert card.note is None
    shown = as_dict(card.groups)
    # a virtual NIC reports no speed: left out, not "unknown" (the problems say so)
    assert shown["Link"] == {"NIC": "eth1 (virtio_net)", "MTU": "1500"}
    assert shown["Disk & filesystem"] == {
        "Filesystem": "ext4 on /dev/mapper/labslow",
        "Free": "3.6 GiB of 3.9 GiB",
        "Disk": "vdb, spinning",
    }
    # the kernel lists "+3 +4 +4.1 +4.2": "+4" is no version to mount, and it implies 4.0
    assert shown["NFS"] == {
        "nfs-utils": "2.6.2",
        "nfs-server": "active",
        "Versions offered": "3, 4.0, 4.1, 4.2",
        "nfsd threads": "8",
        "Max block size": "128 KiB",
    }
    assert shown["Tools"] == {"fio": "3.33", "iperf3": "3.12"}


def test_the_client_card_leaves_out_its_own_nfsd_and_names_mount_nfs(client: HostFacts) -> None:
    shown = as_dict(card_groups(client, "client"))
    assert list(shown) == ["Link", "NFS", "Tools"]  # no filesystem probed on the client: no group
    assert shown["NFS"] == {"nfs-utils": "2.6.2"}  # not its idle nfsd's threads or versions
    assert shown["Tools"] == {"mount.nfs": "installed", "fio": "3.33", "iperf3": "3.12"}


def test_a_hostname_in_the_label_is_said_once(client: HostFacts) -> None:
    card = host_card(client, "client", "this computer (client)")  # remote/local.py's label for this computer
    assert card.title == "Client \u00b7 this computer"
    assert card.summary[0] == "client"  # the hostname, out of the title's parentheses
    assert "(" not in card.title
    named = host_card(client, "client", "client")
    assert named.title == "Client \u00b7 client" and named.summary[0] != "client"  # not said twice


def test_known_formats(nas: HostFacts) -> None:
    assert nas.route is not None and nas.filesystem is not None
    ssd = replace(nas.filesystem.devices[1], rotational=False, model="Samsung SSD 870")
    bigger = replace(
        nas,
        nfsd_max_block_size=1024 * 1024,
        route=replace(nas.route, speed_mbps=10000, mtu=9000, gateway="10.0.0.1"),
        filesystem=replace(nas.filesystem, devices=(ssd,)),
        nfsd_versions_enabled=frozenset({"4.2", "3", "4.10", "4.1"}),
    )
    shown = as_dict(card_groups(bigger, "server"))
    assert shown["Link"] == {"NIC": "eth1 (virtio_net)", "Speed": "10 Gb/s", "MTU": "9000", "Route": "via 10.0.0.1"}
    assert shown["Disk & filesystem"]["Disk"] == "Samsung SSD 870, SSD"
    assert shown["NFS"]["Max block size"] == "1024 KiB"
    assert shown["NFS"]["Versions offered"] == "3, 4.1, 4.2, 4.10"  # numeric order, not text order
    for mbps, said in ((2500, "2.5 Gb/s"), (100, "100 Mb/s")):
        link = as_dict(card_groups(replace(nas, route=replace(nas.route, speed_mbps=mbps)), "server"))["Link"]
        assert link["Speed"] == said
    # 4.0 switched off on a newer server (nfsdctl version -4.0): "+4" no longer means it, and the card says so
    trixie = replace(
        nas, nfsd_versions_enabled=frozenset({"3", "4", "4.1", "4.2"}), nfsd_versions_disabled=frozenset({"2", "4.0"})
    )
    assert as_dict(card_groups(trixie, "server"))["NFS"]["Versions offered"] == "3, 4.1, 4.2 (4.0 switched off)"


def test_rdma_devices_and_listeners_are_shown_when_there_are_some() -> None:
    rdma = facts("lab-rdma-nas-root.txt")
    shown = as_dict(card_groups(rdma, "server"))
    assert shown["Link"]["RDMA"] == "rxe0 (emulated over Ethernet, active)"
    assert shown["NFS"]["Listeners"] == "rdma 20049, tcp 2049"
    plain = as_dict(card_groups(facts("lab-nas-root.txt"), "server"))
    assert "RDMA" not in plain["Link"] and "Listeners" not in plain["NFS"]


def test_a_bare_shell_shows_only_what_it_knows(client: HostFacts) -> None:
    bare = facts("bare-chroot-dash-only.txt")
    card = host_card(bare, "server", "bare")
    # no hostname, OS, NIC or filesystem was read: none of them is drawn, not even as a dash
    assert card.summary == ()
    assert card.groups == [("Tools", [("fio", "not installed"), ("iperf3", "not installed")])]
    assert all("\u2013" not in value for _, rows in card.groups for _, value in rows)


def test_a_host_with_nothing_known_says_why_in_one_line(nas: HostFacts) -> None:
    bare = facts("bare-chroot-dash-only.txt")
    cut = host_card(replace(bare, complete=False), "server", "nas")
    # the tools section was never reached: not "not installed", unknown
    assert (cut.groups, cut.summary, cut.note) == ([], (), NOTHING_NOTE)
    partly = host_card(replace(nas, complete=False, fio_version=None, tools=frozenset()), "server", "nas")
    assert partly.note == CUT_OFF_NOTE
    assert "fio" not in as_dict(partly.groups).get("Tools", {})


def test_a_server_without_login_shows_what_the_client_saw(nas: HostFacts) -> None:
    seen = facts_seen("nas", (CAPTURES / "nas-view" / "versions-lab-export.txt").read_text())
    card = host_card(seen, "server", "nas (no login)", login=False)
    assert card.title == "Server \u00b7 nas" and card.note == NO_LOGIN_NOTE
    # the tools and disks are unknown without a login, not missing: only the NFS group is drawn
    assert card.groups == [("NFS", [("nfs-server", "answers this client"), ("Versions offered", "3, 4.0, 4.1, 4.2")])]
