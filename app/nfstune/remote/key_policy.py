"""What a login does with a host key that no known_hosts file holds: its SHA256 fingerprint goes to a callback,
and the key is saved to nfstune's own known_hosts only if accepted, refused otherwise. A paramiko policy: Host
imports this module at its first login, not with the package, as paramiko (with cryptography, nacl and invoke)
is over a tenth of a second that starting the desktop does not need (issue 31)."""

from __future__ import annotations

from pathlib import Path

import paramiko

from nfstune.remote.errors import HostKeyUnknown
from nfstune.remote.known_hosts import HostKeyPrompt, fingerprint


class AskOrRefuse(paramiko.MissingHostKeyPolicy):
    def __init__(self, label: str, where: str, known_hosts: Path, prompt: HostKeyPrompt | None) -> None:
        self._label, self._where, self._known_hosts, self._prompt = label, where, known_hosts, prompt

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey) -> None:
        fp = fingerprint(key)
        if self._prompt is None or not self._prompt(self._label, key.get_name(), fp):
            raise HostKeyUnknown(self._label, key.get_name(), fp, self._where)
        keys = paramiko.HostKeys()
        if self._known_hosts.exists():
            keys.load(str(self._known_hosts))
        keys.add(hostname, key.get_name(), key)
        self._known_hosts.parent.mkdir(parents=True, exist_ok=True)
        keys.save(str(self._known_hosts))
