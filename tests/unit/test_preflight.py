"""Preflight checks, on the recorded probe output (tests/captures/probe) and on
variations of it made with dataclasses.replace."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from nfstune.facts.model import HostFacts
from nfstune.facts.probe_output import parse_probe_output
from nfstune.session.preflight import Problem, blocking, check, install_command, mtu_mismatch

CAPTURES = Path(__file__).parent.parent / "captures" / "probe"


def facts(name: str) -> HostFacts:
    return parse_probe_output((CAPTURES / name).read_text())


@pytest.fixture
def nas() -> HostFacts:
    return facts("lab-nas-root.txt")


@pytest.fixture
def client() -> HostFacts:
    return facts("lab-client-root.txt")


def run_check(
    server: HostFacts,
    client: HostFacts,
    *,
    share: str = "/export",
    exports: tuple[str, ...] = ("/export",),
    client_mounts_of_server: tuple[str, ...] = (),
) -> list[Problem]:
    return check(
        server,
        client,
        server_label="nas",
        client_label="client",
        share=share,
        exports=exports,
        client_mounts_of_server=client_mounts_of_server,
    )


def titled(problems: list[Problem], words: str) -> Problem:
    (found,) = [p for p in problems if words in p.title]
    return found


def test_the_lab_as_recorded_has_only_infos(nas: HostFacts, client: HostFacts) -> None:
    problems = run_check(nas, client)
    assert [p.severity for p in problems] == ["info", "info"]
    assert not blocking(problems)
    virtual = titled(problems, "NIC speed unknown")
    assert (virtual.host, virtual.title) == ("both", "NIC speed unknown on nas and client")
    disk = titled(problems, "spinning disk")  # the lab's dm-delay over a virtio disk that says it rotates
    assert disk.host == "server" and "each fsync waits for the disk (vdb)" in disk.detail


def test_mtu_mismatch_is_found_when_both_ends_are_known(nas: HostFacts, client: HostFacts) -> None:
    assert nas.route is not None and client.route is not None
    jumbo = replace(client, route=replace(client.route, mtu=9000))
    assert mtu_mismatch(nas, jumbo) == (1500, 9000)
    problem = titled(run_check(nas, jumbo), "MTU mismatch")
    assert (problem.severity, problem.host, problem.title) == ("warning", "both", "MTU mismatch: nas 1500, client 9000")
    assert "ping -M do -s 8972 nas" in problem.detail
    # a server probed without a peer has no route: nothing to compare
    assert mtu_mismatch(replace(nas, route=None), jumbo) is None
    assert not [p for p in run_check(replace(nas, route=None), jumbo) if "MTU" in p.title]


@pytest.mark.parametrize(
    ("capture", "vendor", "evidence"),
    [
        ("synthetic-synology.txt", "Synology DSM", "/etc/synoinfo.conf exists"),
        ("synthetic-truenas-core.txt", "TrueNAS", "/data/freenas-v1.db exists"),
        ("synthetic-qnap.txt", "QNAP", "/etc/platform.conf exists"),
    ],
)
def test_an_appliance_is_named_with_its_evidence(capture: str, vendor: str, evidence: str, client: HostFacts) -> None:
    appliance = facts(capture)
    problem = titled(run_check(appliance, client), "appliance")
    assert problem.host == "server" and problem.title == f"nas is a {vendor} appliance"
    assert evidence in problem.detail and "will not write nas's exports" in problem.detail
    # no package manager is offered on an appliance: its OS belongs to its own UI
    iperf3 = titled(run_check(appliance, client), "iperf3 is not installed on nas")
    assert iperf3.install_command is None and "install the package iperf3 on nas" in iperf3.detail


def test_appliance_hint_names_the_setting(client: HostFacts) -> None:
    problem = titled(run_check(facts("synthetic-synology.txt"), client), "appliance")
    assert "tick 'Enable asynchronous'" in problem.detail


def test_fio_missing_on_debian_gives_the_apt_command(nas: HostFacts, client: HostFacts) -> None:
    without_fio = replace(client, fio_version=None, tools=client.tools - {"fio"})
    problem = titled(run_check(nas, without_fio), "fio")
    assert (problem.severity, problem.host, problem.tool) == ("warning", "client", "fio")
    assert problem.install_command == "apt-get install -y fio"
    assert "falls back to dd and tar" in problem.detail and "`apt-get install -y fio`" in problem.detail
    fedora = replace(without_fio, os_id="fedora")
    assert titled(run_check(nas, fedora), "fio").install_command == "dnf install -y fio"
    unknown = titled(run_check(nas, replace(without_fio, os_id="gentoo")), "fio")
    assert unknown.install_command is None and "install the package fio on client" in unknown.detail


def test_fio_on_the_server_does_not_matter(nas: HostFacts, client: HostFacts) -> None:
    assert not [p for p in run_check(replace(nas, fio_version=None, tools=frozenset()), client) if p.tool == "fio"]


def test_iperf3_missing_on_either_host(nas: HostFacts, client: HostFacts) -> None:
    problems = run_check(
        replace(nas, iperf3_version=None, tools=nas.tools - {"iperf3"}),
        replace(client, iperf3_version=None, tools=client.tools - {"iperf3"}),
    )
    found = [(p.host, p.install_command) for p in problems if p.tool == "iperf3"]
    assert found == [("server", "apt-get install -y iperf3"), ("client", "apt-get install -y iperf3")]
    assert all(p.severity == "warning" and "network ceiling" in p.detail for p in problems if p.tool == "iperf3")


def test_share_not_exported_is_a_blocking_error(nas: HostFacts, client: HostFacts) -> None:
    problems = run_check(nas, client, share="/srv/data", exports=("/export", "/srv/media"))
    problem = problems[0]  # errors come first
    assert (problem.severity, problem.host) == ("error", "server")
    assert problem.title == "/srv/data is not exported by nas"
    assert "/export, /srv/media" in problem.detail
    assert blocking(problems)
    assert not blocking(run_check(nas, client, share="/export/", exports=("/export",)))  # a trailing slash is the same


def test_nfs_server_not_active_is_an_error(nas: HostFacts, client: HostFacts) -> None:
    stopped = replace(nas, nfs_server_state="inactive")
    problem = titled(run_check(stopped, client), "not running")
    assert (problem.severity, problem.title) == ("error", "The NFS server is not running on nas")
    assert "nfs-server is inactive" in problem.detail


def test_existing_mounts_of_the_server_stay(nas: HostFacts, client: HostFacts) -> None:
    problems = run_check(nas, client, client_mounts_of_server=("/mnt/x", "/home/media"))
    mine = [p for p in problems if p.title.startswith("Your own mount")]
    assert [p.title for p in mine] == [
        "Your own mount of nas at /mnt/x stays as it is",
        "Your own mount of nas at /home/media stays as it is",
    ]
    assert all(p.severity == "info" and "nosharecache" in p.detail for p in mine)


def test_low_free_space_and_unreadable_files(client: HostFacts) -> None:
    nobody = facts("lab-nas-nobody.txt")
    assert nobody.filesystem is not None
    full = replace(nobody, filesystem=replace(nobody.filesystem, free_bytes=300 * 1024**2))
    problems = run_check(full, client)
    low = titled(problems, "Little free space")
    assert (low.severity, low.title) == ("warning", "Little free space under /export on nas")
    assert low.detail.startswith("0.3 GiB free")
    unreadable = titled(problems, "may not read")
    assert unreadable.title == "This login on nas may not read /proc/fs/nfsd/threads, /proc/fs/nfsd/versions"
    assert "the enabled NFS versions stay unknown" in unreadable.detail


def test_a_cut_off_probe_is_a_warning(nas: HostFacts, client: HostFacts) -> None:
    cut = replace(client, complete=False, fio_version=None, tools=frozenset())
    problems = run_check(nas, cut)
    assert titled(problems, "cut off").host == "client"
    assert not [p for p in problems if p.tool == "fio"]  # not known to be missing: the probe may not have got there


def test_install_command_per_distribution(client: HostFacts) -> None:
    assert install_command(client, "mount.nfs") == "apt-get install -y nfs-common"
    assert install_command(replace(client, os_id="rocky"), "mount.nfs") == "dnf install -y nfs-utils"
    assert install_command(replace(client, os_id="opensuse-leap"), "fio") == "zypper --non-interactive install fio"


def test_rdma_on_one_host_only_is_said() -> None:
    nas, client = (parse_probe_output((CAPTURES / f"lab-rdma-{n}-root.txt").read_text()) for n in ("nas", "client"))
    kw = {"server_label": "nas", "client_label": "client"}
    assert not [p for p in check(nas, client, **kw) if "RDMA" in p.title]
    alone = [p for p in check(nas, replace(client, rdma_devices=()), **kw) if "RDMA" in p.title]
    assert [(p.severity, p.title) for p in alone] == [("info", "RDMA on nas only")]
    assert "client has none active" in alone[0].detail


# --- issue 9: the share's path, and the exports files' traps ------------------------------------------------------

TRAPS = """# the lab's own export, then three traps
/export 10.99.0.0/24(rw,sync,no_subtree_check)
/srv/l host (rw)
/srv/w *(rw,no_root_squash)
/srv/a client(rw,async)
/srv/stop client(bogus)
/srv/after client(rw)
"""


def test_a_server_that_exports_nothing_blocks_and_says_what_to_do(nas: HostFacts, client: HostFacts) -> None:
    # the desktop before any share is chosen: the server listed none to choose from
    problems = check(nas, client, server_label="nas", client_label="client", share=None, exports=())
    (found,) = [p for p in problems if p.severity == "error"]
    assert found.title == "nas exports nothing" and blocking(problems)
    assert "/etc/exports" in found.detail and "exportfs -ra" in found.detail
    # a share named but nothing exported: that share is the error, said once
    named = run_check(nas, client, share="/export", exports=())
    assert [p.title for p in named if p.severity == "error"] == ["/export is not exported by nas"]
    listed = check(nas, client, server_label="nas", client_label="client", share=None, exports=("/export",))
    assert not blocking(listed)  # a list to pick from: nothing is wrong yet


def test_a_relative_share_is_a_blocking_error(nas: HostFacts, client: HostFacts) -> None:
    problems = run_check(nas, client, share="relative/path")
    found = titled(problems, "relative/path")
    assert found.severity == "error" and "absolute" in found.title and blocking(problems)


def test_exports_traps_are_shown_with_file_and_line(nas: HostFacts, client: HostFacts) -> None:
    problems = check(
        nas,
        client,
        server_label="nas",
        client_label="client",
        share="/export",
        exports=("/export",),
        export_files={"/etc/exports": TRAPS, "/etc/exports.d/b.exports": "/srv/b\n"},
    )
    trap = titled(problems, "/etc/exports line 3: /srv/l *")
    assert trap.severity == "warning"
    assert "no host before '('" in trap.detail and "everyone (*)" in trap.detail
    world = titled(problems, "/etc/exports line 4: /srv/w *")
    assert world.severity == "warning" and "no_root_squash" in world.detail
    stop = titled(problems, "/etc/exports line 6: exportfs stops reading here")
    assert stop.severity == "warning" and "bogus" in stop.detail and "Nothing after line 6" in stop.detail
    chosen = titled(problems, "/etc/exports line 5: /srv/a client")
    assert chosen.severity == "info" and "async" in chosen.detail  # the admin's own choice: told, not warned
    bare = titled(problems, "/etc/exports.d/b.exports line 1: /srv/b *")
    assert "to everyone" in bare.detail
    assert not [p for p in problems if "/srv/after" in p.title]  # exportfs never reads it
    assert not blocking(problems) and not [p for p in problems if "line 2" in p.title]


def test_exports_findings_keep_a_non_utf8_comment(nas: HostFacts, client: HostFacts) -> None:
    text = b"# caf\xe9\n/export *(rw,no_root_squash)\n".decode("utf-8", "surrogateescape")
    problems = check(
        nas,
        client,
        server_label="nas",
        client_label="client",
        share="/export",
        exports=("/export",),
        export_files={"/etc/exports": text},
    )
    assert "no_root_squash" in titled(problems, "/etc/exports line 2: /export *").detail


def test_a_further_client_without_fio_is_said_with_its_own_command(nas: HostFacts, client: HostFacts) -> None:
    without_fio = replace(client, fio_version=None, tools=client.tools - {"fio"})
    problems = check(
        nas,
        client,
        server_label="nas",
        client_label="client",
        share="/export",
        exports=("/export",),
        more=[("client2", client), ("client3", without_fio)],
    )
    found = titled(problems, "fio is not installed on client3")
    assert found.severity == "warning" and "fio's own client/server mode" in found.detail
    assert "apt-get install -y fio" in found.detail  # said, not offered: its button would run on the first client
    assert found.install_command is None and not blocking(problems)
    assert not [p for p in problems if "client2" in p.title]
