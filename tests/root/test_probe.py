"""The host probe over SSH: the script run through a loopback sshd on this machine, as root."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from nfstune.facts.model import HostFacts
from nfstune.remote import CommandResult, Host
from nfstune.remote.probe import probe
from tests.root.conftest import Sshd


class CountingHost(Host):
    """A real Host that also counts its round trips."""

    commands: list[str]

    def run(
        self, command: str | Sequence[str], *, timeout: float = 60.0, check: bool = True, sudo: bool = False
    ) -> CommandResult:
        self.commands = [*getattr(self, "commands", []), str(command)]
        return super().run(command, timeout=timeout, check=check, sudo=sudo)


def test_probe_over_ssh_on_this_machine(sshd: Sshd) -> None:
    host = CountingHost(
        "127.0.0.1", port=sshd.port, key_filename=sshd.client_key, known_hosts=sshd.known_hosts, label="loopback"
    )
    with host:
        here = probe(host, path="/", peer="127.0.0.1")
    assert len(host.commands) == 1
    assert here.complete and here.uid == 0 and here.is_root
    assert (here.hostname, here.kernel, here.architecture) == (
        os.uname().nodename,
        os.uname().release,
        os.uname().machine,
    )
    mem_kib = re.search(r"^MemTotal:\s+(\d+) kB$", Path("/proc/meminfo").read_text(), re.MULTILINE)
    assert mem_kib is not None and here.mem_total_bytes == int(mem_kib.group(1)) * 1024
    stat = os.statvfs("/")
    assert here.filesystem is not None and here.filesystem.mountpoint == "/"
    assert here.filesystem.size_bytes == stat.f_blocks * stat.f_frsize
    assert here.route is not None and here.route.interface == "lo"
    assert here.route.mtu == int(Path("/sys/class/net/lo/mtu").read_text())
    assert HostFacts.from_json(here.to_json()) == here
