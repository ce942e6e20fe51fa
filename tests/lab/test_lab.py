"""The practice lab, for real: two QEMU VMs with the kernel NFS server, reached over SSH with host-key checks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nfstune.lab import LabConfig, host, status
from nfstune.lab.check import MOUNT_POINT, nfs_roundtrip
from nfstune.lab.image import current_image, ensure_image
from nfstune.remote import Host, HostKeyChanged

pytestmark = pytest.mark.lab

LINK_50MBIT_BYTES_PER_S = 50e6 / 8


def test_status_shows_both_vms_ready_with_their_profiles(lab: LabConfig) -> None:
    nas, client = status(lab)
    assert (nas.name, client.name) == ("nas", "client")
    assert nas.running and client.running and nas.ssh == client.ssh == "ok"
    assert nas.facts["role"] == "nas" and client.facts["role"] == "client"
    assert nas.facts["nfs_server"] == "active"
    assert (nas.facts["disk"], nas.facts["link"], client.facts["link"]) == ("hdd", "50mbit", "50mbit")
    assert nas.facts["exports"].startswith("/export 10.99.0.0/24(")


def test_nfs_round_trip_with_fsync_and_cold_read(lab: LabConfig) -> None:
    messages: list[str] = []
    rt = nfs_roundtrip(lab, messages.append, size_mib=8)
    assert re.fullmatch(r"[0-9a-f]{64}", rt.source_sha256)
    assert rt.server_sha256 == rt.source_sha256, "the NAS's disk does not hold what the client wrote"
    assert rt.read_back_sha256 == rt.source_sha256, "the cold read over NFS returned other data"
    assert "vers=4.2" in rt.mount_options and "addr=10.99.0.1" in rt.mount_options
    # both directions go through the 50mbit shaping: neither may beat that link
    assert rt.size_bytes / rt.write_seconds < LINK_50MBIT_BYTES_PER_S * 1.02
    assert rt.size_bytes / rt.read_seconds < LINK_50MBIT_BYTES_PER_S * 1.02
    assert any("dropping caches" in m for m in messages)
    # unmounted and cleaned up on both sides
    with host(lab, "client") as client, host(lab, "nas") as nas:
        assert MOUNT_POINT not in client.run("cat /proc/mounts").stdout
        assert client.run(["test", "-e", MOUNT_POINT], check=False).exit_status == 1
        assert nas.run("ls -A /export").stdout.split() == ["lost+found"]


def test_image_cache_is_reused(lab: LabConfig) -> None:
    image = current_image(lab.cache_dir)
    assert image.complete()
    stamp = image.disk.stat().st_mtime_ns, image.manifest.stat().st_mtime_ns
    messages: list[str] = []
    again, built = ensure_image(lab.cache_dir, messages.append)
    assert (again, built) == (image, False)
    assert (image.disk.stat().st_mtime_ns, image.manifest.stat().st_mtime_ns) == stamp
    assert messages == [f"lab image {image.input_hash} is cached in {image.directory}"]


def test_a_wrong_host_key_is_refused(lab: LabConfig, tmp_path: Path) -> None:
    # the client VM's key offered for the NAS's address: what a swapped or spoofed machine looks like
    client_pub = lab.host_key("client").with_suffix(".pub").read_text().split()
    wrong = tmp_path / "known_hosts"
    wrong.write_text(f"[127.0.0.1]:{lab.nas_port} {client_pub[0]} {client_pub[1]}\n")
    h = Host("127.0.0.1", port=lab.nas_port, key_filename=lab.client_key, known_hosts=wrong, label="lab nas")
    with pytest.raises(HostKeyChanged):
        h.connect()


def test_cli_status_and_ssh_use_the_running_lab(lab: LabConfig, lab_state_home: Path) -> None:
    env = os.environ | {"XDG_STATE_HOME": str(lab_state_home)}
    st = subprocess.run([sys.executable, "-m", "nfstune", "lab", "status"], capture_output=True, text=True, env=env)
    assert st.returncode == 0, st.stdout + st.stderr
    assert re.search(rf"nas\s+127\.0\.0\.1:{lab.nas_port}\s+pid \d+\s+ok\s+active\s+hdd\s+50mbit", st.stdout)
    # OpenSSH itself, with StrictHostKeyChecking=yes against the lab's known_hosts
    ssh = subprocess.run(
        [sys.executable, "-m", "nfstune", "lab", "ssh", "client", "hostname"],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert (ssh.returncode, ssh.stdout.strip()) == (0, "client"), ssh.stderr
