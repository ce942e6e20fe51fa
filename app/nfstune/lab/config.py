"""Settings of one practice lab, and the files it keeps in its state folder."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from nfstune import paths
from nfstune.errors import ConfigError
from nfstune.lab.profiles import DEFAULT_DISK, DEFAULT_LINK, DISK_PROFILES, LINK_PROFILES

VM_NAMES = ("nas", "client")
LAB_IPS = {"nas": "10.99.0.1", "client": "10.99.0.2"}
EXPORT_PATH = "/export"


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

    def validate(self) -> LabConfig:
        ports = {"nas port": self.nas_port, "client port": self.client_port, "link port": self.link_port}
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
        if self.accel not in ("tcg", "kvm"):
            raise ConfigError(f"unknown accelerator {self.accel!r}: choose tcg or kvm")
        if self.memory_mib < 512:
            raise ConfigError(f"{self.memory_mib} MiB is too little memory for a lab VM: at least 512")
        if self.export_size_gib < 1:
            raise ConfigError("the NAS export disk needs at least 1 GiB")
        return self

    def port(self, vm: str) -> int:
        return self.nas_port if vm == "nas" else self.client_port

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
        known = {k: data[k] for k in ("nas_port", "client_port", "link_port", "disk", "link", "accel") if k in data}
        return replace(self, **known)
