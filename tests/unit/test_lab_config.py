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
    c = cfg(tmp_path, nas_port=3322, client_port=3323, link="50mbit")
    c.state_dir.mkdir(parents=True)
    c.save({"image": "abc"})
    again = cfg(tmp_path).as_running()
    assert (again.nas_port, again.client_port, again.link, again.disk) == (3322, 3323, "50mbit", "hdd")
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
