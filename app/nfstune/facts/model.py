"""What nfstune knows of a host: HostFacts, read once by the probe (remote/probe.py) and stored with each session
as JSON. Pure: the layers that use the facts (preflight, the planner, the results) need no SSH to do so."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, is_dataclass
from types import UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

from nfstune.facts.firewall import FirewallFacts
from nfstune.facts.selinux import SelinuxFacts

FACTS_FORMAT = 3  # bump when HostFacts' fields change: stored JSON says which layout it has


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
    firewall: FirewallFacts | None  # firewalld or ufw when it is on; None: neither is on (or there)
    selinux: SelinuxFacts | None  # None: no SELinux on the host

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
            data = {**data, "format": 2, "nfsd_listeners": None, "rdma_devices": []}
        if isinstance(data, dict) and data.get("format") == 2:
            # stored before the probe read the firewall and SELinux: neither was seen
            data = {**data, "format": FACTS_FORMAT, "firewall": None, "selinux": None}
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
