"""Host keys as the admin checks them: OpenSSH's SHA256 fingerprint, and the file and line of known_hosts that
holds a key (so that a changed key's message says which entry to check and remove). paramiko is imported where a
key is looked up, not with this module: the desktop starts without it."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import paramiko

# (label, key type, SHA256 fingerprint) -> accept?
HostKeyPrompt = Callable[[str, str, str], bool]


def fingerprint(key: paramiko.PKey) -> str:
    """OpenSSH's SHA256 fingerprint (what `ssh-keygen -lf` prints)."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


def _names_match(names: str, name: str) -> bool:
    """Whether a known_hosts line's first field stands for `name`: one of its comma-separated names, or the
    hashed form ssh writes with HashKnownHosts (|1|salt|hash)."""
    import paramiko

    for entry in names.split(","):
        if entry.startswith("|1|"):
            salt = entry.split("|")[2]
            if paramiko.HostKeys.hash_host(name, salt) == entry:
                return True
        elif entry == name:
            return True
    return False


def entry_of(files: Iterable[Path], name: str, key: paramiko.PKey) -> tuple[Path, int] | None:
    """The first file and line (from 1) that holds `key` for `name` ("host" or "[host]:port"), in the order the
    files are searched."""
    wanted = key.get_base64()
    for path in files:
        try:
            lines = path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for number, line in enumerate(lines, 1):
            fields = line.split()
            if len(fields) < 3 or fields[0].startswith(("#", "@")):  # comments; @cert-authority, @revoked
                continue
            if fields[2] == wanted and _names_match(fields[0], name):
                return path, number
    return None
