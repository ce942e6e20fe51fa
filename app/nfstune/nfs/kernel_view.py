"""What the NFS server's kernel really does, from its caches and client list (pure parsing, no I/O).

Why: /etc/exports says what the admin asked for, but the lab showed that a second export of the same
filesystem can make the kernel resolve the user's file handles to the other export, so the user's sync export
silently runs async (docs/lab-poc/README.md). The kernel's caches show it:
  /proc/net/rpc/nfsd.export/content   `/export\t10.99.0.0/24(rw,...,sync,...,uuid=9ffb1c10:ac964e8d:...,sec=1)`
  /proc/net/rpc/nfsd.fh/content       `10.99.0.0/24 6 0x101cfb9f8d4e96ac6d161495e44ff0ce /export`
Both are filled lazily, when a client uses the export: check them after a client has touched it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nfstune.nfs.counters import is_number
from nfstune.nfs.exportfs_view import parse_exportfs_s as exportfs_s_by_path


@dataclass(frozen=True)
class KernelExport:
    path: str
    domain: str  # the client spec(s) mountd resolved, e.g. "10.99.0.0/24" or "10.99.0.0/24,10.99.0.2"
    options: tuple[str, ...]

    @property
    def uuid(self) -> str | None:
        for opt in self.options:
            if opt.startswith("uuid="):
                return opt[5:]
        return None

    @property
    def write_mode(self) -> str:
        return "async" if "async" in self.options else "sync"


@dataclass(frozen=True)
class FileHandleKey:
    domain: str
    fsid_type: int
    fsid: str  # hex, without 0x
    path: str | None  # None for a negative cache entry


def _unescape(path: str) -> str:
    # the kernel escapes space, tab, newline and backslash in paths as \ooo
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), path)


def parse_export_cache(text: str) -> list[KernelExport]:
    exports = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(r"(\S+)\s+(.*)\((.*)\)\s*", line)
        if match:
            exports.append(KernelExport(_unescape(match[1]), match[2], tuple(match[3].split(","))))
    return exports


def parse_fh_cache(text: str) -> list[FileHandleKey]:
    keys = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) >= 3 and is_number(parts[1]):
            fsid = parts[2].removeprefix("0x").lower()
            keys.append(FileHandleKey(parts[0], int(parts[1]), fsid, _unescape(parts[3]) if len(parts) > 3 else None))
    return keys


def uuid_fsid_hex(uuid: str) -> str:
    """nfsd.export's `uuid=9ffb1c10:ac964e8d:...` as it appears in a file handle's fsid (each 32-bit word in
    little-endian byte order: 0x101cfb9f8d4e96ac...)."""
    return "".join(bytes.fromhex(word)[::-1].hex() for word in uuid.split(":"))


@dataclass(frozen=True)
class Divergence:
    export_path: str
    message: str


def check_exports_resolve_to_themselves(export_cache: str, fh_cache: str, expected: dict[str, str]) -> list[Divergence]:
    """`expected` maps each of the user's export paths to the write mode it must run with ("sync"/"async").
    Returns every way the kernel disagrees: an export running with another mode, or a file handle of the
    user's filesystem that the kernel resolves to another export (the lab's aliasing leak)."""
    exports = parse_export_cache(export_cache)
    keys = parse_fh_cache(fh_cache)
    problems = []
    for path, mode in expected.items():
        mine = [e for e in exports if e.path == path]
        for e in mine:
            if e.write_mode != mode:
                problems.append(Divergence(path, f"the kernel runs {path} for {e.domain} {e.write_mode}, not {mode}"))
        uuids = {e.uuid for e in mine if e.uuid}
        for key in keys:
            if key.path is None or key.path == path:
                continue
            if any(uuid_fsid_hex(u) in key.fsid for u in uuids):
                problems.append(
                    Divergence(
                        path,
                        f"file handles of {path} (for {key.domain}) resolve to the export {key.path}: clients of "
                        f"{path} get {key.path}'s options instead of their own",
                    )
                )
    return problems


@dataclass(frozen=True)
class NfsClient:
    address: str  # ip:port
    version: str  # "4.2", "4.1", "4.0", or "3 (or other TCP)" for a plain connection
    name: str
    status: str = ""  # NFSv4: confirmed, unconfirmed, courtesy, expirable (Linux 5.19+); "" when not given

    @property
    def host(self) -> str:
        """The address without its port (and without the ::ffff: of an IPv4 peer on an IPv6 socket)."""
        host = self.address.rpartition(":")[0] if ":" in self.address else self.address
        return host.strip("[]").removeprefix("::ffff:")

    @property
    def active(self) -> bool:
        """False for a v4 client whose lease ran out: the server keeps its state (a "courteous" server, Linux
        5.19+) until another client conflicts with it, but nobody uses it now (a v4.0 client unmounted)."""
        return self.status not in ("courtesy", "expirable")


def parse_v4_clients(text: str) -> list[NfsClient]:
    """Concatenated /proc/fs/nfsd/clients/*/info files, each introduced by a line `== <dir>`."""
    clients = []
    for block in re.split(r"^== .*$", text, flags=re.MULTILINE):
        fields = dict(
            (k.strip(), v.strip().strip('"')) for k, _, v in (ln.partition(":") for ln in block.splitlines()) if v
        )
        if "address" in fields:
            version = "4." + fields.get("minor version", "?")
            clients.append(NfsClient(fields["address"], version, fields.get("name", ""), fields.get("status", "")))
    return clients


def parse_established_2049(ss_output: str) -> list[str]:
    """Peer addresses of established TCP connections to port 2049 (`ss -tn state established ...`)."""
    peers = []
    for line in ss_output.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 4 and parts[2].endswith(":2049"):
            peers.append(parts[3])
    return peers


def connected_clients(v4_info: str, ss_output: str) -> list[NfsClient]:
    """Every client using the server now: NFSv4 clients with their version (not those whose lease ran out), and
    the other TCP peers of port 2049 (NFSv3 clients, which keep no state the server could list)."""
    v4 = parse_v4_clients(v4_info)
    v4_addresses = {c.address for c in v4}
    others = [p for p in parse_established_2049(ss_output) if p not in v4_addresses]
    return [c for c in v4 if c.active] + [NfsClient(p, "3 (or another TCP client)", "") for p in others]


def parse_exportfs_s(text: str) -> dict[tuple[str, str], tuple[str, ...]]:
    """`exportfs -s` as {(path, client): options}, flattened from the exports module's parser."""
    by_path = exportfs_s_by_path(text)
    return {(path, client): opts for path, clients in by_path.items() for client, opts in clients.items()}


NFS_VERSIONS = ("2", "3", "4", "4.0", "4.1", "4.2")  # "4": any 4.x


def offered_versions(enabled: frozenset[str], disabled: frozenset[str]) -> frozenset[str]:
    """The versions a server offers, from /proc/fs/nfsd/versions' "+" and "-" lists. It never prints "+4.0": the
    kernel implies 4.0 by "+4" unless "-4.0" is there."""
    offered = {v for v in enabled if v in NFS_VERSIONS}
    if "4" in enabled and "4.0" not in disabled:
        offered.add("4.0")
    return frozenset(offered)
