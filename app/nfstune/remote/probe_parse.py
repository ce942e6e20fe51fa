"""HostFacts, and how they are read from the probe script's output (pure: no SSH, so recorded output replays).

The script (nfstune.remote.probe) prints sections, each opened by a line `@@nfstune-probe@@ NAME`. A section is
empty when its file or tool is missing, so every fact here may be None; the parser never raises on any text.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, fields, is_dataclass
from types import UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

SECTION_MARK = "@@nfstune-probe@@"
UNREADABLE = "@@unreadable@@"  # printed for a file that exists but this login may not read
FACTS_FORMAT = 2  # bump when HostFacts' fields change: stored JSON says which layout it has

# section -> file that the script reads with `rd` (UNREADABLE when it is there but not for this login): these
# /proc/fs/nfsd files are mode 0600 on Linux 6.1, so without root the probe cannot see them
ROOT_ONLY_FILES = {
    "nfsd-threads": "/proc/fs/nfsd/threads",
    "nfsd-versions": "/proc/fs/nfsd/versions",
}


@dataclass(frozen=True)
class BlockDevice:
    name: str
    type: str  # lsblk TYPE: disk, part, dm, lvm, raid1, crypt, loop, ...
    rotational: bool | None
    model: str | None


@dataclass(frozen=True)
class FilesystemFacts:
    """The filesystem holding `path`, and the block devices under it (lsblk -s: itself first, then parents)."""

    path: str
    source: str | None
    fstype: str | None
    mountpoint: str | None
    options: tuple[str, ...] | None
    size_bytes: int | None
    free_bytes: int | None  # available to unprivileged users (df "Available")
    devices: tuple[BlockDevice, ...]

    @property
    def disks(self) -> tuple[BlockDevice, ...]:
        return tuple(d for d in self.devices if d.type == "disk")

    @property
    def rotational(self) -> bool | None:
        """True if any physical disk under the filesystem spins; None when no disk is known."""
        known = [d.rotational for d in self.disks if d.rotational is not None]
        return any(known) if known else None


@dataclass(frozen=True)
class RouteFacts:
    """The route to `peer`, and the NIC it leaves by."""

    peer: str
    peer_address: str | None  # `peer` resolved on the host (getent) when it is a name
    interface: str | None
    source_address: str | None
    gateway: str | None  # None when the peer is on the same link
    speed_mbps: int | None  # None on virtual NICs (the kernel says -1) and on links that are down
    mtu: int | None
    driver: str | None


@dataclass(frozen=True)
class RdmaDevice:
    """One RDMA device (/sys/class/infiniband/<name>) and its first port's state."""

    name: str
    software: bool  # soft-RoCE (rdma_rxe) or soft-iWARP (siw) over an Ethernet NIC: no device of its own
    state: str | None  # "ACTIVE", "DOWN"...; None when unreadable

    @property
    def active(self) -> bool:
        return self.state == "ACTIVE"


@dataclass(frozen=True)
class HostFacts:
    complete: bool  # the script's end marker arrived: nothing was cut off
    hostname: str | None
    os_id: str | None
    os_version_id: str | None
    os_pretty_name: str | None
    kernel: str | None
    architecture: str | None
    uid: int | None
    cpu_count: int | None
    mem_total_bytes: int | None
    nfs_utils_version: str | None  # upstream version, e.g. "2.6.2"
    nfs_utils_source: str | None  # where it was read, e.g. "dpkg nfs-kernel-server 1:2.6.2-4+deb12u1"
    nfs_server_state: str | None  # `systemctl is-active nfs-server`; None without systemd (or D-Bus, for non-root)
    nfsd_threads: int | None
    nfsd_max_block_size: int | None
    nfsd_versions_enabled: frozenset[str] | None  # "3", "4", "4.1", ...; None when unknown
    nfsd_versions_disabled: frozenset[str] | None
    nfsd_listeners: frozenset[str] | None  # /proc/fs/nfsd/portlist: "tcp 2049", "rdma 20049"...; None: unknown
    rdma_devices: tuple[RdmaDevice, ...]
    route: RouteFacts | None
    filesystem: FilesystemFacts | None
    fio_version: str | None
    iperf3_version: str | None
    tools: frozenset[str]  # the checked tools found in PATH (sbin directories included)
    appliance: str | None
    appliance_evidence: tuple[str, ...]
    unreadable: tuple[str, ...]  # files that exist but this login may not read (/proc/fs/nfsd/* are root-only)

    @property
    def is_root(self) -> bool | None:
        return None if self.uid is None else self.uid == 0

    @property
    def nfs_server_active(self) -> bool | None:
        """systemd's word when there is one; else whether nfsd has threads. Without root and without D-Bus (the
        lab's minimal Debian) `systemctl is-active` prints nothing, but /proc/net/rpc/nfsd still tells."""
        if self.nfs_server_state is not None:
            return self.nfs_server_state == "active"
        return None if self.nfsd_threads is None else self.nfsd_threads > 0

    def to_json(self) -> str:
        return json.dumps({"format": FACTS_FORMAT, **_encode(self)})

    @classmethod
    def from_json(cls, text: str) -> HostFacts:
        data = json.loads(text)
        if isinstance(data, dict) and data.get("format") == 1:
            # stored before the probe read nfsd's listeners and the RDMA devices: unknown, and none
            data = {**data, "format": FACTS_FORMAT, "nfsd_listeners": None, "rdma_devices": []}
        if not isinstance(data, dict) or data.pop("format", None) != FACTS_FORMAT:
            raise ValueError(f"not HostFacts format {FACTS_FORMAT}")
        facts: HostFacts = _decode(cls, data)
        return facts


# --- JSON: fields in declaration order, sets as sorted lists, tuples as lists -----------------------------------


def _encode(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


def _decode(tp: Any, value: Any) -> Any:
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = (a for a in args if a is not type(None))
        return _decode(inner, value)
    if origin in (tuple, frozenset):
        if not isinstance(value, list):
            raise ValueError(f"expected a list, got {value!r}")
        return origin(_decode(args[0], v) for v in value)
    if isinstance(tp, type) and is_dataclass(tp):
        hints = get_type_hints(tp)
        names = [f.name for f in fields(tp)]
        if not isinstance(value, dict) or sorted(value) != sorted(names):
            raise ValueError(f"{tp.__name__}: expected the fields {names}, got {value!r}")
        return tp(**{name: _decode(hints[name], value[name]) for name in names})
    if type(value) is not tp:  # exact: a bool is not an int here
        raise ValueError(f"expected {tp.__name__}, got {value!r}")
    return value


# --- parsing ----------------------------------------------------------------------------------------------------


def split_sections(text: str) -> dict[str, str]:
    """{name: body}; bodies lose the blank lines the markers add (a command's output may lack its newline)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(SECTION_MARK + " "):
            current = sections.setdefault(line[len(SECTION_MARK) + 1 :].strip(), [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip("\n") for name, lines in sections.items()}


# an integer as the probe's tools print it; a longer run of digits is no fact (and int() may refuse it)
_INT = r"-?[0-9]{1,40}"


def _int(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if re.fullmatch(_INT, text) else None


def _first_line(text: str | None) -> str | None:
    lines = (text or "").strip().splitlines()
    return (lines[0].strip() or None) if lines else None


def parse_os_release(text: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, raw = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Z0-9_]+", key.strip()):
            continue
        try:
            words = shlex.split(raw)
            result[key.strip()] = " ".join(words)
        except ValueError:  # an unbalanced quote: keep what is there
            result[key.strip()] = raw.strip().strip("\"'")
    return result


def parse_nfsd_versions(text: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """'+3 +4 -4.0 +4.1' -> ({'3', '4', '4.1'}, {'4.0'}); None if the text is not a versions line."""
    tokens = text.split()
    if not tokens or not all(re.fullmatch(r"[+-]\d+(\.\d+)?", t) for t in tokens):
        return None
    return frozenset(t[1:] for t in tokens if t[0] == "+"), frozenset(t[1:] for t in tokens if t[0] == "-")


def parse_key_values(line: str) -> dict[str, str]:
    """findmnt -P / lsblk -P: KEY="value" pairs, with their \\xNN escapes undone."""
    pairs: dict[str, str] = {}
    for key, raw in re.findall(r'([A-Z0-9:_-]+)="((?:[^"\\]|\\.)*)"', line):
        data = re.sub(
            rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), raw.encode("utf-8", "surrogateescape")
        )
        pairs[key] = data.decode("utf-8", "replace")
    return pairs


def parse_df(text: str) -> tuple[str | None, str | None, int | None, int | None, str | None]:
    """`df -P [-T] -B1|-k PATH` -> (source, fstype, size_bytes, free_bytes, mountpoint)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return None, None, None, None, None
    header = [*lines[0].split(), "", ""]
    typed = header[1] == "Type"
    unit = re.fullmatch(r"([0-9]{1,40})-blocks", header[2] if typed else header[1])
    pattern = r"(?P<src>.+?)\s+" + (r"(?P<type>\S+)\s+" if typed else "")
    pattern += r"(?P<total>[0-9]{1,40})\s+\d+\s+(?P<avail>[0-9]{1,40})\s+(?:\d+%|-)\s+(?P<mnt>/.*)"
    match = re.fullmatch(pattern, lines[1].strip())
    if not match or not unit:
        return None, None, None, None, None
    scale = int(unit.group(1))
    fstype = match.group("type") if typed else None
    return match["src"], fstype, int(match["total"]) * scale, int(match["avail"]) * scale, match["mnt"]


def parse_route(text: str) -> tuple[str | None, str | None, str | None]:
    """`ip -o route get ADDR` -> (dev, src, via)."""
    tokens = text.split()
    found = {key: tokens[i + 1] for i, key in enumerate(tokens[:-1]) if key in ("dev", "src", "via")}
    return found.get("dev"), found.get("src"), found.get("via")


def _nfs_utils(sections: dict[str, str]) -> tuple[str | None, str | None]:
    rows = [line.split("\t") for line in sections.get("dpkg", "").splitlines()]
    installed = {row[0]: row[1] for row in rows if len(row) >= 3 and row[2].startswith("ii") and row[1]}
    for package in ("nfs-kernel-server", "nfs-common"):
        if package in installed:  # Debian "1:2.6.2-4+deb12u1": drop the epoch and the Debian revision
            upstream = installed[package].split(":", 1)[-1].rsplit("-", 1)[0]
            return upstream, f"dpkg {package} {installed[package]}"
    for line in sections.get("rpm", "").splitlines():
        name, sep, version = line.partition("\t")
        if sep and version.strip():
            return version.strip(), f"rpm {name} {version.strip()}"
    match = re.search(r"nfs-utils\s+([0-9][\w.+~-]*)", sections.get("mount-nfs", ""))
    return (match.group(1), "mount.nfs -V") if match else (None, None)


def _route(sections: dict[str, str], peer: str) -> RouteFacts:
    dev, src, via = parse_route(sections.get("route", ""))
    speed = _int(sections.get("nic-speed"))
    driver = (sections.get("nic-driver") or "").strip().rsplit("/", 1)[-1] or None
    return RouteFacts(
        peer=peer,
        peer_address=_first_line(sections.get("peer-address")),
        interface=dev,
        source_address=src,
        gateway=via,
        speed_mbps=speed if speed is not None and speed > 0 else None,
        mtu=_int(sections.get("nic-mtu")),
        driver=driver if dev else None,
    )


def _filesystem(sections: dict[str, str], path: str) -> FilesystemFacts:
    mount = parse_key_values(_first_line(sections.get("findmnt")) or "")
    df_source, df_type, size, free, df_mountpoint = parse_df(sections.get("df", ""))
    source = mount.get("SOURCE") or df_source
    options = mount.get("OPTIONS")
    devices = []
    for line in sections.get("lsblk", "").splitlines():
        row = parse_key_values(line)
        if "NAME" in row and "TYPE" in row:
            rota = {"1": True, "0": False}.get(row.get("ROTA", "").strip())
            devices.append(BlockDevice(row["NAME"], row["TYPE"], rota, row.get("MODEL", "").strip() or None))
    return FilesystemFacts(
        path=path,
        source=re.sub(r"\[.*\]$", "", source) if source else None,  # a bind mount shows /dev/vdb[/sub]
        fstype=mount.get("FSTYPE") or df_type,
        mountpoint=mount.get("TARGET") or df_mountpoint,
        options=tuple(options.split(",")) if options else None,
        size_bytes=size,
        free_bytes=free,
        devices=tuple(devices),
    )


# Appliance markers: (kind, subject, vendor, needle). The script prints `exists PATH`, `command NAME PATH` or
# `line PATH FIRST-LINE` for what it finds; a line counts for the vendor when it contains the needle.
TRUENAS, OPENMEDIAVAULT, SYNOLOGY, QNAP, UNRAID = "TrueNAS", "OpenMediaVault", "Synology DSM", "QNAP", "Unraid"
APPLIANCE_MARKERS: tuple[tuple[str, str, str, str], ...] = (
    ("line", "/etc/version", TRUENAS, "truenas"),  # CORE: "TrueNAS-13.0-U6.1 (...)"
    ("line", "/etc/version", TRUENAS, "freenas"),
    ("exists", "/data/freenas-v1.db", TRUENAS, ""),  # the middleware's configuration database
    ("command", "midclt", TRUENAS, ""),
    ("exists", "/etc/openmediavault", OPENMEDIAVAULT, ""),
    ("command", "omv-confdbadm", OPENMEDIAVAULT, ""),
    ("exists", "/etc/synoinfo.conf", SYNOLOGY, ""),
    ("line", "/etc.defaults/VERSION", SYNOLOGY, "productversion"),
    ("command", "synopkg", SYNOLOGY, ""),
    ("exists", "/etc/config/qpkg.conf", QNAP, ""),
    ("exists", "/etc/platform.conf", QNAP, ""),
    ("command", "getcfg", QNAP, ""),
    ("line", "/etc/unraid-version", UNRAID, ""),
)


def detect_appliance(markers: str) -> tuple[str | None, tuple[str, ...]]:
    """(the vendor with the most markers found, or None; every marker found, as words)."""
    found: list[tuple[str, str]] = []  # (vendor, evidence)
    for line in markers.splitlines():
        kind, _, rest = line.partition(" ")
        subject, _, detail = rest.partition(" ")
        for m_kind, m_subject, vendor, needle in APPLIANCE_MARKERS:
            if (kind, subject) == (m_kind, m_subject) and needle in detail.lower():
                words = {"exists": f"{subject} exists", "command": f"{subject} is in PATH ({detail.strip()})"}
                found.append((vendor, words.get(kind, f"{subject} says {detail.strip()!r}")))
    votes = [vendor for vendor, _ in found]
    order = [vendor for _, _, vendor, _ in APPLIANCE_MARKERS]
    best = max(votes, key=lambda v: (votes.count(v), -order.index(v)), default=None)
    return best, tuple(dict.fromkeys(evidence for _, evidence in found))


def _listeners(text: str) -> frozenset[str] | None:
    """nfsd's listeners, one "netid port" a line; none before nfsd has started (or when unreadable)."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    found = frozenset(line for line in lines if re.fullmatch(r"[a-z0-9]+ \d+", line))
    return found or None


def _rdma_devices(text: str) -> tuple[RdmaDevice, ...]:
    """`<name> <hardware|software> <state>` a line (the probe reads /sys/class/infiniband)."""
    devices = []
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[1] in ("hardware", "software"):
            state = words[2].split(":")[-1] if len(words) > 2 else None  # the kernel writes "4: ACTIVE"
            devices.append(RdmaDevice(words[0], words[1] == "software", state or None))
    return tuple(devices)


def parse_probe_output(text: str) -> HostFacts:
    """The facts in the probe script's stdout; whatever is missing or unreadable is None (never raises)."""
    sections = split_sections(text)
    unreadable = tuple(path for name, path in ROOT_ONLY_FILES.items() if sections.get(name, "").strip() == UNREADABLE)
    for name in ROOT_ONLY_FILES:
        if sections.get(name, "").strip() == UNREADABLE:
            sections[name] = ""
    os_release = parse_os_release(sections.get("os-release", ""))
    mem = re.search(r"MemTotal:\s*([0-9]{1,40})\s*kB", sections.get("memtotal", ""))
    threads = _int(sections.get("nfsd-threads"))
    th_line = re.match(r"th\s+([0-9]{1,40})\b", sections.get("nfsd-th", ""))
    if threads is None and th_line:  # /proc/fs/nfsd/threads is root-only; /proc/net/rpc/nfsd is for everyone
        threads = int(th_line.group(1))
    block_size = _int(sections.get("nfsd-max-block-size"))
    versions = parse_nfsd_versions(sections.get("nfsd-versions", ""))
    fio = re.search(r"fio-(\S+)", sections.get("fio", ""))
    iperf3 = re.search(r"iperf\s+(\d\S*)", sections.get("iperf3", ""))
    peer, path = _first_line(sections.get("peer")), _first_line(sections.get("path"))
    appliance, evidence = detect_appliance(sections.get("markers", ""))
    version, version_source = _nfs_utils(sections)
    return HostFacts(
        complete="end" in sections,
        hostname=_first_line(sections.get("hostname")),
        os_id=os_release.get("ID"),
        os_version_id=os_release.get("VERSION_ID"),
        os_pretty_name=os_release.get("PRETTY_NAME"),
        kernel=_first_line(sections.get("kernel")),
        architecture=_first_line(sections.get("arch")),
        uid=_int(sections.get("uid")),
        cpu_count=_int(sections.get("cpus")),
        mem_total_bytes=int(mem.group(1)) * 1024 if mem else None,
        nfs_utils_version=version,
        nfs_utils_source=version_source,
        nfs_server_state=_first_line(sections.get("nfs-server")),
        nfsd_threads=threads,
        # nfsd reports 0 until it has started: that is no block size
        nfsd_max_block_size=block_size if block_size else None,
        nfsd_versions_enabled=versions[0] if versions else None,
        nfsd_versions_disabled=versions[1] if versions else None,
        nfsd_listeners=_listeners(sections.get("nfsd-portlist", "")),
        rdma_devices=_rdma_devices(sections.get("rdma", "")),
        route=_route(sections, peer) if peer else None,
        filesystem=_filesystem(sections, path) if path else None,
        fio_version=fio.group(1) if fio else None,
        iperf3_version=iperf3.group(1) if iperf3 else None,
        tools=frozenset(line.split()[0] for line in sections.get("tools", "").splitlines() if line.strip()),
        appliance=appliance,
        appliance_evidence=evidence,
        unreadable=unreadable,
    )
