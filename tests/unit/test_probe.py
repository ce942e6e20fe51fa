"""The host probe: recorded output from the lab VMs and from chroots (tests/captures/probe/README.md), the script
run for real on this machine (here directly; over a loopback sshd in tests/root/test_probe.py), and the JSON form of
HostFacts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfstune.errors import NfstuneError
from nfstune.facts.appliance import async_setting_hint
from nfstune.facts.model import BlockDevice, HostFacts, RdmaDevice
from nfstune.facts.probe_output import SECTION_MARK, parse_df, parse_nfsd_versions, parse_probe_output
from nfstune.remote.probe import build_probe_script

CAPTURES = Path(__file__).parent.parent / "captures" / "probe"
LAB_TOOLS = {"exportfs", "showmount", "nfsstat", "mount.nfs", "tc", "dmsetup", "fio", "iperf3"}


def facts(name: str) -> HostFacts:
    return parse_probe_output((CAPTURES / name).read_text())


def test_lab_nas_as_root() -> None:
    nas = facts("lab-nas-root.txt")
    assert nas.complete and (nas.hostname, nas.uid, nas.is_root) == ("nas", 0, True)
    assert (nas.os_id, nas.os_version_id, nas.os_pretty_name) == ("debian", "12", "Debian GNU/Linux 12 (bookworm)")
    assert (nas.kernel, nas.architecture, nas.cpu_count) == ("6.1.0-56-cloud-amd64", "x86_64", 1)
    assert nas.mem_total_bytes == 995588 * 1024
    assert nas.nfs_utils_version == "2.6.2"
    assert nas.nfs_utils_source == "dpkg nfs-kernel-server 1:2.6.2-4+deb12u1"
    assert (nas.nfs_server_state, nas.nfs_server_active) == ("active", True)
    assert (nas.nfsd_threads, nas.nfsd_max_block_size) == (8, 131072)
    assert (
        nas.nfsd_versions_enabled == frozenset({"3", "4", "4.1", "4.2"}) and nas.nfsd_versions_disabled == frozenset()
    )
    route = nas.route
    assert route is not None
    assert (route.peer, route.peer_address, route.interface, route.source_address) == (
        "10.99.0.2",
        "10.99.0.2",
        "eth1",
        "10.99.0.1",
    )
    assert (route.gateway, route.speed_mbps, route.mtu, route.driver) == (None, None, 1500, "virtio_net")
    fs = nas.filesystem
    assert fs is not None
    assert (fs.path, fs.source, fs.fstype, fs.mountpoint) == ("/export", "/dev/mapper/labslow", "ext4", "/export")
    assert fs.options == ("rw", "noatime")
    assert (fs.size_bytes, fs.free_bytes) == (4143677440, 3912130560)
    # lsblk -s: the dm-delay device first, then the virtio disk under it (virtio-blk reports rotational)
    assert fs.devices == (BlockDevice("labslow", "dm", True, None), BlockDevice("vdb", "disk", True, None))
    assert fs.disks == (BlockDevice("vdb", "disk", True, None),) and fs.rotational is True
    assert (nas.fio_version, nas.iperf3_version) == ("3.33", "3.12")
    assert LAB_TOOLS | {"ip", "findmnt", "lsblk", "systemctl"} == nas.tools  # no sudo in the lab image
    assert (nas.appliance, nas.appliance_evidence, nas.unreadable) == (None, (), ())


def test_lab_client_is_no_server() -> None:
    client = facts("lab-client-root.txt")
    assert (client.hostname, client.is_root) == ("client", True)
    # the image installs nfs-kernel-server on both VMs; only the NAS runs it
    assert (client.nfs_server_state, client.nfs_server_active, client.nfsd_threads) == ("inactive", False, 0)
    assert client.nfsd_max_block_size is None  # nfsd says 0 until it starts
    assert client.route is not None and client.filesystem is None
    assert (client.route.interface, client.route.source_address, client.route.mtu) == ("eth1", "10.99.0.2", 1500)
    assert client.tools >= LAB_TOOLS


def test_the_rdma_lab_shows_soft_roce_on_both_hosts_and_the_nas_rdma_listener() -> None:
    nas, client = facts("lab-rdma-nas-root.txt"), facts("lab-rdma-client-root.txt")
    assert nas.kernel == client.kernel == "6.1.0-56-amd64"  # `lab up --rdma` boots the generic kernel
    assert nas.rdma_devices == client.rdma_devices == (RdmaDevice("rxe0", True, "ACTIVE"),)
    # recorded while a transport session ran: nfsd listened for RDMA too (IPv4 and IPv6 print the same line)
    assert nas.nfsd_listeners == frozenset({"tcp 2049", "rdma 20049"})
    assert client.nfsd_listeners is None  # no nfsd on a lab client
    assert HostFacts.from_json(nas.to_json()) == nas


def test_without_rdma_the_probe_says_none() -> None:
    nas = facts("lab-nas-root.txt")  # recorded before the probe read RDMA devices: an empty section reads the same
    assert nas.rdma_devices == () and nas.nfsd_listeners is None


def test_lab_nas_as_nobody_sees_what_is_world_readable() -> None:
    nas = facts("lab-nas-nobody.txt")
    assert (nas.uid, nas.is_root) == (65534, False)
    assert nas.unreadable == ("/proc/fs/nfsd/threads", "/proc/fs/nfsd/versions")
    assert nas.nfsd_versions_enabled is None and nas.nfsd_versions_disabled is None
    assert nas.nfsd_threads == 8  # from /proc/net/rpc/nfsd
    assert nas.nfsd_max_block_size == 131072  # mode 0644
    # no D-Bus in the lab image: systemctl cannot answer an unprivileged user, the thread count still does
    assert (nas.nfs_server_state, nas.nfs_server_active) == (None, True)
    assert nas.route is not None and (nas.route.peer, nas.route.peer_address) == ("client", "10.99.0.2")
    assert "exportfs" in nas.tools  # /usr/sbin was not in this login's PATH: the probe adds it
    assert nas.filesystem is not None and nas.filesystem.fstype == "ext4"


def test_a_bare_shell_gives_none_everywhere() -> None:
    bare = facts("bare-chroot-dash-only.txt")  # no /proc, /sys, /etc, /dev/null, nor any program
    assert bare.complete
    for name in (
        "hostname",
        "os_id",
        "kernel",
        "architecture",
        "uid",
        "cpu_count",
        "mem_total_bytes",
        "nfs_utils_version",
        "nfs_server_state",
        "nfsd_threads",
        "nfsd_max_block_size",
        "nfsd_versions_enabled",
        "fio_version",
        "iperf3_version",
        "appliance",
    ):
        assert getattr(bare, name) is None, name
    assert (bare.is_root, bare.nfs_server_active, bare.tools, bare.appliance_evidence) == (None, None, frozenset(), ())
    assert bare.route is not None and bare.route.peer_address == "10.99.0.1" and bare.route.interface is None
    assert bare.filesystem is not None and bare.filesystem.fstype is None and bare.filesystem.devices == ()
    assert bare.filesystem.rotational is None


@pytest.mark.parametrize(
    ("capture", "vendor", "evidence"),
    [
        (
            "synthetic-synology.txt",
            "Synology DSM",
            (
                "/etc/synoinfo.conf exists",
                "synopkg is in PATH (/usr/syno/bin/synopkg)",
                "/etc.defaults/VERSION says 'productversion=\"7.2.1\"'",
            ),
        ),
        (
            "synthetic-truenas-core.txt",
            "TrueNAS",
            (
                "/data/freenas-v1.db exists",
                "midclt is in PATH (/usr/local/bin/midclt)",
                "/etc/version says 'TrueNAS-13.0-U6.1 (6b4ebd9d6c)'",
            ),
        ),
        (
            "synthetic-truenas-scale.txt",
            "TrueNAS",
            (
                "/data/freenas-v1.db exists",
                "midclt is in PATH (/usr/bin/midclt)",
            ),
        ),
        (
            "synthetic-openmediavault.txt",
            "OpenMediaVault",
            (
                "/etc/openmediavault exists",
                "omv-confdbadm is in PATH (/usr/sbin/omv-confdbadm)",
            ),
        ),
        (
            "synthetic-qnap.txt",
            "QNAP",
            (
                "/etc/config/qpkg.conf exists",
                "/etc/platform.conf exists",
                "getcfg is in PATH (/sbin/getcfg)",
            ),
        ),
        ("synthetic-unraid.txt", "Unraid", ("/etc/unraid-version says 'version=\"6.12.4\"'",)),
    ],
)
def test_appliance_markers(capture: str, vendor: str, evidence: tuple[str, ...]) -> None:
    found = facts(capture)
    assert (found.appliance, found.appliance_evidence) == (vendor, evidence)


def test_async_setting_hints() -> None:
    assert async_setting_hint(None) is None  # plain Linux: nfstune edits /etc/exports
    assert "Enable asynchronous" in (async_setting_hint("Synology DSM") or "")
    assert "NFS host access" in (async_setting_hint("QNAP") or "")
    assert "'Extra options'" in (async_setting_hint("OpenMediaVault") or "")
    assert "'Sync'" in (async_setting_hint("TrueNAS") or "") and "every protocol" in (
        async_setting_hint("TrueNAS") or ""
    )
    assert async_setting_hint("Unraid") == "in the vendor's NFS share settings"


def test_cut_off_output_is_incomplete_not_an_error() -> None:
    text = (CAPTURES / "lab-nas-root.txt").read_text()
    half = parse_probe_output(text[: text.index(f"{SECTION_MARK} findmnt")])
    assert not half.complete and half.nfsd_threads == 8 and half.filesystem is not None
    assert half.filesystem.fstype is None and half.fio_version is None


def test_small_parsers() -> None:
    assert parse_nfsd_versions("-2 +3 +4 -4.0 +4.1 +4.2") == (
        frozenset({"3", "4", "4.1", "4.2"}),
        frozenset({"2", "4.0"}),
    )
    assert parse_nfsd_versions("") is None and parse_nfsd_versions("permission denied") is None
    busybox_df = "Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/sda1 1000 10 900 1% /mnt/my disk\n"
    assert parse_df(busybox_df) == ("/dev/sda1", None, 1024000, 921600, "/mnt/my disk")
    assert parse_df("df: /nope: No such file or directory") == (None, None, None, None, None)


@given(st.text())
def test_parsing_never_raises(text: str) -> None:
    parse_probe_output(text)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "uid",
                    "nfsd-versions",
                    "df",
                    "lsblk",
                    "route",
                    "markers",
                    "peer",
                    "path",
                    "findmnt",
                    "dpkg",
                    "nfsd-th",
                    "memtotal",
                ]
            ),
            st.text(),
        )
    )
)
def test_parsing_never_raises_on_sectioned_garbage(sections: list[tuple[str, str]]) -> None:
    parse_probe_output("".join(f"\n{SECTION_MARK} {name}\n{body}" for name, body in sections))


@settings(max_examples=200, deadline=None)  # a timing limit is a benchmark's job, not a test's (a busy machine)
@given(st.from_type(HostFacts))
def test_json_round_trip(host_facts: HostFacts) -> None:
    text = host_facts.to_json()
    assert HostFacts.from_json(text) == host_facts
    assert HostFacts.from_json(text).to_json() == text


def test_json_of_the_captures_and_what_is_refused() -> None:
    nas = facts("lab-nas-root.txt")
    assert HostFacts.from_json(nas.to_json()) == nas
    assert '"nfsd_versions_enabled": ["3", "4", "4.1", "4.2"]' in nas.to_json()
    with pytest.raises(ValueError):
        HostFacts.from_json(nas.to_json().replace('"format": 3', '"format": 4'))
    # a session stored by nfstune before format 2 keeps its facts: no RDMA device, listeners unknown; before
    # format 3: no firewall, no SELinux seen
    stored = json.loads(nas.to_json())
    older = {k: v for k, v in stored.items() if k not in ("firewall", "selinux")} | {"format": 2}
    assert HostFacts.from_json(json.dumps(older)) == nas
    oldest = {k: v for k, v in older.items() if k not in ("nfsd_listeners", "rdma_devices")} | {"format": 1}
    assert HostFacts.from_json(json.dumps(oldest)) == nas
    with pytest.raises(ValueError):
        HostFacts.from_json(nas.to_json().replace('"uid": 0', '"uid": false'))
    with pytest.raises(ValueError):
        HostFacts.from_json(nas.to_json().replace('"uid": 0, ', ""))


def test_script_arguments_are_quoted_and_checked() -> None:
    path = "/tmp/it's $(touch /tmp/nfstune-probe-injected) `id` dir"
    out = subprocess.run(["sh", "-c", build_probe_script(path, "127.0.0.1")], capture_output=True, text=True)
    assert out.returncode == 0 and not Path("/tmp/nfstune-probe-injected").exists()
    local = parse_probe_output(out.stdout)
    assert local.complete and local.filesystem is not None and local.filesystem.path == path
    assert local.route is not None and local.route.interface == "lo"
    for bad_path in ("export", "-x"):
        with pytest.raises(NfstuneError):  # said to the admin, not a crash
            build_probe_script(bad_path, None)
    for bad_peer in ("-oProxyCommand", "a b", ""):
        with pytest.raises(NfstuneError):
            build_probe_script(None, bad_peer)
    assert "p=''; peer=''; addr=''" in build_probe_script()
