"""Bad lab settings get a clear error and change nothing."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from nfstune.errors import ConfigError
from nfstune.lab import LabConfig, up
from nfstune.lab.vms import check_ports_free
from tests.conftest import free_port


def cfg(tmp_path: Path, **kw: object) -> LabConfig:
    return LabConfig(state_dir=tmp_path / "state", cache_dir=tmp_path / "cache", **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"nas_port": 80}, "nas port 80 is out of range"),
        ({"client_port": 70000}, "client port 70000 is out of range"),
        ({"nas_port": 3000, "client_port": 3000}, "ports must differ"),
        ({"disk": "floppy"}, "unknown disk profile 'floppy'"),
        ({"link": "10gbit"}, "unknown link profile '10gbit'"),
        ({"accel": "hvf"}, "unknown accelerator"),
        ({"memory_mib": 128}, "too little memory"),
        ({"clients": 0}, "0 clients: the lab runs 1 to 4"),
        ({"clients": 5}, "5 clients: the lab runs 1 to 4"),
        ({"release": "buster"}, "unknown Debian release 'buster' for the NAS: choose bookworm or trixie"),
        ({"clients": 3, "client_port": 4000, "nas_port": 4002}, r"client3 port 4002"),
        ({"clients": 2, "link_port": 4000, "nas_port": 4001}, r"link port of client2 4001"),
    ],
)
def test_bad_settings_are_refused_before_anything_happens(tmp_path: Path, settings: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        up(cfg(tmp_path, **settings), lambda _m: None)
    assert not (tmp_path / "state").exists() and not (tmp_path / "cache").exists()


def test_a_taken_port_is_named_with_its_owner(tmp_path: Path) -> None:
    port = free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        with pytest.raises(ConfigError) as info:
            check_ports_free(cfg(tmp_path, nas_port=free_port(), client_port=port, link_port=free_port()))
    message = str(info.value)
    assert f"port {port}" in message and "client SSH" in message and "--client-port" in message
    assert f"(pid {os.getpid()})" in message  # psutil names the process that holds it: this test


def test_running_settings_are_read_back(tmp_path: Path) -> None:
    c = cfg(tmp_path, nas_port=3322, client_port=3323, link="50mbit", release="trixie", rdma=True)
    c.state_dir.mkdir(parents=True)
    c.save({"image": "abc"})
    again = cfg(tmp_path).as_running()
    assert (again.nas_port, again.client_port, again.link, again.disk) == (3322, 3323, "50mbit", "hdd")
    assert (again.release, again.rdma) == ("trixie", True)
    assert again.state_dir == c.state_dir


def test_a_second_up_or_down_waits_for_none_and_says_why(tmp_path: Path) -> None:
    import fcntl

    from nfstune.lab import LabError, down

    c = cfg(tmp_path)
    c.state_dir.mkdir(parents=True)
    with open(c.state_dir / "lab.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for action in (up, down):
            with pytest.raises(LabError, match="another nfstune is starting or stopping this lab"):
                action(c, lambda _m: None)
    assert sorted(p.name for p in c.state_dir.iterdir()) == ["lab.lock"]


def test_each_client_has_its_own_ssh_port_address_and_cable(tmp_path: Path) -> None:
    from nfstune.lab.config import LAB_IPS

    c = cfg(tmp_path, clients=4, nas_port=5000, client_port=5001, link_port=6000).validate()
    assert c.vms == ("nas", "client", "client2", "client3", "client4")
    ssh_ports = [c.port(vm) for vm in c.vms]
    cables = [c.link_port_of(vm) for vm in c.client_vms]
    assert len(set(ssh_ports + cables)) == 9 and ssh_ports[:2] == [5000, 5001] and cables[0] == 6000
    addresses = [LAB_IPS[vm] for vm in c.vms]
    assert len(set(addresses)) == 5 and all(a.startswith("10.99.0.") for a in addresses)
    # a lab of one client is the lab it always was
    one = cfg(tmp_path)
    assert one.vms == ("nas", "client") and one.link_port_of("client") == one.link_port


def test_the_nas_has_one_cable_per_client_and_each_client_plugs_into_one(tmp_path: Path) -> None:
    from nfstune.lab.image import Image
    from nfstune.lab.vms import _qemu_argv

    c = cfg(tmp_path, clients=3).validate()
    image = Image(tmp_path / "image", "hash")

    def cables(vm: str) -> list[str]:
        argv = _qemu_argv(c, image, vm)
        return [argv[i + 1] for i, a in enumerate(argv) if a == "-netdev" and argv[i + 1].startswith("stream,")]

    def macs(vm: str) -> list[str]:
        argv = _qemu_argv(c, image, vm)
        return [a.split("mac=")[1] for a in argv if "mac=" in a]

    # a Unix socket in the lab's folder per client, the NAS listening on it (not TCP on the loopback, whose
    # delayed ACK held a 4 KiB NFS WRITE for 40 ms: docs/bench/sync-async-versions-lab.md)
    listening = [cable.split("addr.path=")[1] for cable in cables("nas") if "server=on," in cable]
    plugged = [cable.split("addr.path=")[1] for vm in c.client_vms for cable in cables(vm) if "server=off," in cable]
    assert len(listening) == 3 and sorted(plugged) == sorted(listening)
    assert all(
        path.startswith(f"{c.state_dir}/") and "addr.type=unix" in cable
        for path, cable in zip(listening, cables("nas"), strict=True)
    )
    every_mac = [m for vm in c.vms for m in macs(vm)]
    assert len(every_mac) == 6 and len(set(every_mac)) == 6
    assert "lab.links=3" in _qemu_argv(c, image, "nas")[_qemu_argv(c, image, "nas").index("-append") + 1]


def test_running_clients_are_read_back_and_down_stops_every_client(tmp_path: Path) -> None:
    from nfstune.lab import down

    c = cfg(tmp_path, clients=3)
    c.state_dir.mkdir(parents=True)
    c.save({"image": "abc"})
    assert cfg(tmp_path).as_running().clients == 3
    # pid files of clients that are gone, and lab.json lost as in a crash: down still clears them all
    c.settings_file.unlink()
    for vm in c.vms:
        c.pid_file(vm).write_text("999999999\n")
    messages: list[str] = []
    down(cfg(tmp_path), messages.append)
    assert not list(c.state_dir.glob("*.pid"))
    assert sum("stale pid file" in m for m in messages) == 4


def test_a_further_clients_taken_port_names_the_option_that_moves_it(tmp_path: Path) -> None:
    base = free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", base + 1))  # client2's SSH port, after the first client's
        busy.listen()
        with pytest.raises(ConfigError) as info:
            check_ports_free(cfg(tmp_path, nas_port=free_port(), client_port=base, link_port=free_port(), clients=2))
    message = str(info.value)
    assert f"port {base + 1}" in message and "client2 SSH" in message and "--client-port" in message


def test_an_rdma_lab_boots_the_generic_kernel_and_tells_the_guest(tmp_path: Path) -> None:
    from nfstune.lab.image import Image
    from nfstune.lab.vms import _qemu_argv

    image = Image(tmp_path / "image", "hash")
    for rdma in (False, True):
        c = cfg(tmp_path, clients=2, rdma=rdma).validate()
        for vm in c.vms:
            argv = _qemu_argv(c, image, vm)
            kernel, initrd = argv[argv.index("-kernel") + 1], argv[argv.index("-initrd") + 1]
            assert (Path(kernel).name, Path(initrd).name) == (
                ("vmlinuz-generic", "initrd-generic.img") if rdma else ("vmlinuz", "initrd.img")
            )
            assert ("lab.rdma=1" in argv[argv.index("-append") + 1].split()) == rdma


def test_a_state_folder_too_long_for_the_links_socket_is_refused(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 90)
    with pytest.raises(ConfigError, match=r"too long for its link's socket .* set XDG_STATE_HOME"):
        LabConfig(state_dir=deep, cache_dir=tmp_path).validate()
