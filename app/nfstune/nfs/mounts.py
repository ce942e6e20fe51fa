"""/proc/mounts lines, and the kernel's octal escapes (MountOptions is re-exported here).

The kernel writes paths and device names in these files with four characters escaped as octal (mangle() and
seq_escape() in fs/proc_namespace.c, fs/nfs/super.c): space \\040, tab \\011, newline \\012, backslash \\134.
Everything else, non-ASCII included, is written as is.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from nfstune.nfs.counters import is_number
from nfstune.nfs.mount_options import MountOption, MountOptions

__all__ = [
    "MountOption",
    "MountOptions",
    "ProcMount",
    "escape_field",
    "mount_source",
    "mounts_of_server",
    "parse_proc_mounts",
    "split_source",
    "unescape_field",
]

_ESCAPED = {" ": "\\040", "\t": "\\011", "\n": "\\012", "\\": "\\134"}
_ESCAPE_TABLE = str.maketrans(_ESCAPED)
_ESCAPE_RUN = re.compile(r"(?:\\[0-3][0-7]{2})+")  # at most \377: one byte per escape


def escape_field(text: str) -> str:
    """Escape the way the kernel does for /proc/mounts, mountinfo and mountstats (and fstab reads it back)."""
    return text.translate(_ESCAPE_TABLE)


def unescape_field(text: str) -> str:
    """Decode every \\ooo escape, as libmount does; a backslash not followed by three octal digits stays.

    Escapes stand for bytes, so a run such as "\\303\\251" is "é" in UTF-8; bytes that are not UTF-8 come back
    as surrogates (as when reading the file with errors="surrogateescape").
    """
    if "\\" not in text:
        return text
    return _ESCAPE_RUN.sub(_decode_escape_run, text)


def mount_source(server: str, path: str) -> str:
    """The "server:/path" that mount.nfs reads: it splits at the first colon, so an IPv6 address goes in
    brackets ("[2001:db8::1]:/srv")."""
    bare = server[1:-1] if server.startswith("[") and server.endswith("]") else server
    return f"[{bare}]:{path}" if ":" in bare else f"{bare}:{path}"


def split_source(device: str) -> tuple[str, str] | None:
    """(server, path) of an NFS source as mount.nfs splits it (nfs_parse_devname() in nfs-utils: "[v6]:/path",
    else at the first colon), the server without brackets; None when mount.nfs would refuse it."""
    if device.startswith("["):
        server, bracket, path = device[1:].partition("]:")
        if not bracket or not server:
            return None
    else:
        server, colon, path = device.partition(":")
        if not colon or not server or ":" in path:
            return None
    return (server, path) if path.startswith("/") else None


def _decode_escape_run(match: re.Match[str]) -> str:
    run = match.group(0)
    return bytes(int(run[i + 1 : i + 4], 8) for i in range(0, len(run), 4)).decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class ProcMount:
    """One line of /proc/mounts (the same format as /etc/mtab): paths here are decoded."""

    device: str
    mount_point: str
    fstype: str
    options: MountOptions
    dump: int = 0
    pass_number: int = 0

    @classmethod
    def parse(cls, line: str) -> ProcMount:
        fields = line.rstrip("\n").split(" ")
        if len(fields) != 6 or not (is_number(fields[4]) and is_number(fields[5])):
            raise ValueError(f"not a /proc/mounts line: {line!r}")
        device, mount_point, fstype, options, dump, pass_number = fields
        return cls(
            unescape_field(device),
            unescape_field(mount_point),
            unescape_field(fstype),
            MountOptions.parse(unescape_field(options)),
            int(dump),
            int(pass_number),
        )

    def render(self) -> str:
        """The line without its newline, escaped as the kernel writes it."""
        fields = (self.device, self.mount_point, self.fstype, self.options.render())
        return " ".join([*map(escape_field, fields), str(self.dump), str(self.pass_number)])

    @property
    def is_nfs(self) -> bool:
        return self.fstype in ("nfs", "nfs4")


def parse_proc_mounts(text: str) -> list[ProcMount]:
    return [ProcMount.parse(line) for line in text.split("\n") if line]


def mounts_of_server(proc_mounts: str, servers: Collection[str | None]) -> list[ProcMount]:
    """The NFS mounts in /proc/mounts whose source is on one of `servers` (names or addresses, an IPv6 address
    with or without its brackets; None and "" match nothing), their paths decoded."""
    wanted = {s[1:-1] if s.startswith("[") and s.endswith("]") else s for s in servers if s}
    return [
        mount
        for mount in parse_proc_mounts(proc_mounts)
        if mount.is_nfs and (source := split_source(mount.device)) is not None and source[0] in wanted
    ]
