"""Settings of one practice lab, and the files it keeps in its state folder."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from nfstune import paths
from nfstune.errors import ConfigError
from nfstune.lab.profiles import DEFAULT_DISK, DEFAULT_LINK, DISK_PROFILES, LINK_PROFILES

MAX_CLIENTS = 4
CLIENT_NAMES = ("client", *(f"client{k}" for k in range(2, MAX_CLIENTS + 1)))
VM_NAMES = ("nas", "client")  # the lab of one client: every lab has these two
ALL_VM_NAMES = ("nas", *CLIENT_NAMES)  # what `down` looks for, whatever lab.json says
LAB_IPS = {vm: f"10.99.0.{number}" for number, vm in enumerate(ALL_VM_NAMES, start=1)}
EXPORT_PATH = "/export"
# a further client only runs fio and mounts: it needs less than the NAS's page cache
FURTHER_CLIENT_MEMORY_MIB = 512
UNIX_PATH_MAX = 107  # sun_path holds 108 bytes with the closing NUL
# the Debian releases the NAS can run (`lab up --release`); the clients run the first
RELEASES = ("bookworm", "trixie")
DEFAULT_RELEASE = RELEASES[0]


def client_number(vm: str) -> int:
    """1 for "client", k for "clientk"; 0 for the NAS."""
    return CLIENT_NAMES.index(vm) + 1 if vm in CLIENT_NAMES else 0


@dataclass(frozen=True)
class LabConfig:
    state_dir: Path = field(default_factory=lambda: paths.state_dir() / "lab")
    cache_dir: Path = field(default_factory=lambda: paths.cache_dir() / "lab")
    nas_port: int = 2222
    client_port: int = 2223
    link_port: int = 10099
    disk: str = DEFAULT_DISK
    link: str = DEFAULT_LINK
    accel: str = "tcg"
    memory_mib: int = 1024
    export_size_gib: int = 4
    boot_timeout: float = 300.0
    clients: int = 1
    release: str = DEFAULT_RELEASE  # the NAS's
    rdma: bool = False  # every VM boots the generic kernel and has a soft-RoCE device on the lab link

    def validate(self) -> LabConfig:
        if not 1 <= self.clients <= MAX_CLIENTS:
            raise ConfigError(f"{self.clients} clients: the lab runs 1 to {MAX_CLIENTS}")
        ports = {"nas port": self.nas_port}
        for vm in self.client_vms:
            ports[f"{vm} port"] = self.port(vm)
        for vm in self.client_vms:
            ports[f"link port of {vm}" if vm != "client" else "link port"] = self.link_port_of(vm)
        for what, port in ports.items():
            if not 1024 <= port <= 65535:
                raise ConfigError(f"{what} {port} is out of range: use 1024-65535")
        if len(set(ports.values())) != len(ports):
            listed = ", ".join(f"{what} {port}" for what, port in ports.items())
            raise ConfigError(f"the lab's ports must differ ({listed})")
        if self.disk not in DISK_PROFILES:
            raise ConfigError(f"unknown disk profile {self.disk!r}: choose one of {', '.join(DISK_PROFILES)}")
        if self.link not in LINK_PROFILES:
            raise ConfigError(f"unknown link profile {self.link!r}: choose one of {', '.join(LINK_PROFILES)}")
        longest = max((len(os.fsencode(self.link_socket(vm))) for vm in self.client_vms), default=0)
        if longest > UNIX_PATH_MAX:
            raise ConfigError(
                f"the lab's state folder {self.state_dir} is too long for its link's socket ({longest} bytes, at "
                f"most {UNIX_PATH_MAX}): set XDG_STATE_HOME to a shorter folder"
            )
        if self.release not in RELEASES:
            raise ConfigError(f"unknown Debian release {self.release!r} for the NAS: choose {' or '.join(RELEASES)}")
        if self.accel not in ("tcg", "kvm"):
            raise ConfigError(f"unknown accelerator {self.accel!r}: choose tcg or kvm")
        if self.memory_mib < 512:
            raise ConfigError(f"{self.memory_mib} MiB is too little memory for a lab VM: at least 512")
        if self.export_size_gib < 1:
            raise ConfigError("the NAS export disk needs at least 1 GiB")
        return self

    @property
    def client_vms(self) -> tuple[str, ...]:
        return CLIENT_NAMES[: self.clients]

    @property
    def vms(self) -> tuple[str, ...]:
        return ("nas", *self.client_vms)

    def port(self, vm: str) -> int:
        """SSH port on 127.0.0.1: further clients take the ports after the first client's."""
        return self.nas_port if vm == "nas" else self.client_port + client_number(vm) - 1

    def link_port_of(self, vm: str) -> int:
        """The 127.0.0.1 port of this client's cable when the lab link was a TCP connection (before issue 40): no
        longer used, still checked and accepted, so that a command line of before still works."""
        return self.link_port + client_number(vm) - 1

    def link_socket(self, vm: str) -> Path:
        """The Unix socket in the state folder that carries this client's cable to the NAS: the NAS listens on it,
        the client connects (vms._links says why not TCP)."""
        return self.state_dir / f"{vm}.link"

    def memory_of(self, vm: str) -> int:
        return self.memory_mib if vm in VM_NAMES else min(self.memory_mib, FURTHER_CLIENT_MEMORY_MIB)

    # files in the state folder
    @property
    def client_key(self) -> Path:
        return self.state_dir / "id_ed25519"

    @property
    def known_hosts(self) -> Path:
        return self.state_dir / "known_hosts"

    @property
    def settings_file(self) -> Path:
        return self.state_dir / "lab.json"

    def host_key(self, vm: str) -> Path:
        return self.state_dir / "hostkeys" / f"{vm}_ed25519"

    def pid_file(self, vm: str) -> Path:
        return self.state_dir / f"{vm}.pid"

    def console_log(self, vm: str) -> Path:
        return self.state_dir / f"{vm}.console.log"

    def overlay(self, vm: str) -> Path:
        return self.state_dir / f"{vm}.qcow2"

    @property
    def export_disk(self) -> Path:
        return self.state_dir / "export.img"

    # the settings of the running lab, so that status/ssh/down need no flags
    def save(self, extra: dict[str, Any]) -> None:
        data = {k: v for k, v in asdict(self).items() if k not in ("state_dir", "cache_dir")} | extra
        self.settings_file.write_text(json.dumps(data, indent=2) + "\n")

    def saved(self) -> dict[str, Any]:
        try:
            data: dict[str, Any] = json.loads(self.settings_file.read_text())
        except (OSError, ValueError):
            return {}
        return data

    def as_running(self) -> LabConfig:
        """This config with the ports and profiles the running lab was started with."""
        data = self.saved()
        keys = ("nas_port", "client_port", "link_port", "disk", "link", "accel", "clients", "release", "rdma")
        known = {k: data[k] for k in keys if k in data}
        return replace(self, **known)
