"""/proc/self/mountstats: one header line per mount, and for NFS mounts the client's statistics below it.

The header is written by show_vfsstat() in fs/proc_namespace.c:

    device proc mounted on /proc with fstype proc
    device nas:/export mounted on /mnt/a with fstype nfs4 statvers=1.1

and the NFS block by nfs_show_stats() in fs/nfs/super.c (opts, age, impl_id, caps, nfsv4, sec, events, bytes,
fsc), followed by the RPC block (see rpc_iostats). Lines we do not know are kept in `unknown_lines`; parsing
never raises.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from nfstune.nfs.counters import Counters, parse_ints
from nfstune.nfs.mount_options import MountOptions, split_commas
from nfstune.nfs.mounts import unescape_field
from nfstune.nfs.rpc_iostats import RpcOpStats, RpcStats, Transport

# enum nfs_stat_eventcounters in include/linux/nfs_iostat.h. pnfs_read/pnfs_write were appended for pNFS
# (older kernels print 25); statvers 1.2 proposals rename vfs_readpages to vfs_readahead, same position.
EVENT_NAMES = (
    "inode_revalidate",
    "dentry_revalidate",
    "data_invalidate",
    "attr_invalidate",
    "vfs_open",
    "vfs_lookup",
    "vfs_access",
    "vfs_update_page",
    "vfs_readpage",
    "vfs_readpages",
    "vfs_writepage",
    "vfs_writepages",
    "vfs_getdents",
    "vfs_setattr",
    "vfs_flush",
    "vfs_fsync",
    "vfs_lock",
    "vfs_release",
    "congestion_wait",
    "setattr_trunc",
    "extend_write",
    "silly_rename",
    "short_read",
    "short_write",
    "delay",  # NFS(4)ERR_DELAY / JUKEBOX replies from the server
    "pnfs_read",
    "pnfs_write",
)

# enum nfs_stat_bytecounters: bytes applications read/wrote (normal: page cache, direct: O_DIRECT), bytes the
# client read/wrote on the wire (server_*), then pages read/written.
BYTE_NAMES = (
    "normal_read_bytes",
    "normal_write_bytes",
    "direct_read_bytes",
    "direct_write_bytes",
    "server_read_bytes",
    "server_write_bytes",
    "read_pages",
    "write_pages",
)

# enum nfs_stat_fscachecounters; the fsc: line shows only on mounts with -o fsc, and kernels that moved NFS to
# netfs caching no longer print it.
FSCACHE_NAMES = ("pages_read_ok", "pages_read_fail", "pages_written_ok", "pages_written_fail", "pages_uncached")

# what a mount shows before its events:/bytes: lines are read (or when it has none)
NO_EVENTS = Counters(EVENT_NAMES, ())
NO_BYTES = Counters(BYTE_NAMES, ())

_HEADER = re.compile(r"(?:device (\S*)|no device) mounted on (\S*) with fstype (\S+)(?: statvers=(\S+))?")


@dataclass(frozen=True)
class NfsStats:
    statvers: str  # NFS_IOSTAT_VERS: "1.1" on 6.1
    opts: MountOptions  # every option in force, defaults included (unlike /proc/mounts)
    age: int | None = None  # seconds since the mount
    impl_id: Mapping[str, str] = field(default_factory=dict)  # NFSv4.1+: the server's implementation id
    caps: Mapping[str, str] = field(default_factory=dict)  # caps=0x..., wtmult, dtsize, bsize, namlen
    nfsv4: Mapping[str, str] = field(default_factory=dict)  # bm0, bm1, bm2, acl, sessions, pnfs, lease_time...
    sec: Mapping[str, str] = field(default_factory=dict)  # flavor=1 (AUTH_UNIX), pseudoflavor
    events: Counters = NO_EVENTS
    bytes: Counters = NO_BYTES
    fscache: Counters | None = None
    rpc: RpcStats | None = None
    unknown_lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class MountStats:
    device: str | None  # None for "no device"
    mount_point: str  # decoded
    fstype: str
    nfs: NfsStats | None = None  # only file systems that print statistics (NFS) have them

    @property
    def is_nfs(self) -> bool:
        return self.nfs is not None


def parse_mountstats(text: str) -> list[MountStats]:
    """All mounts, NFS or not, in file order. Lines before the first header are ignored."""
    mounts: list[MountStats] = []
    header: re.Match[str] | None = None
    body: list[str] = []
    for line in text.split("\n"):
        if line.startswith(("device ", "no device ")):
            if header is not None:
                mounts.append(_mount(header, body))
            header, body = _HEADER.match(line), []
        elif header is not None and line.strip():
            body.append(line)
    if header is not None:
        mounts.append(_mount(header, body))
    return mounts


def nfs_mounts(text: str) -> list[MountStats]:
    return [mount for mount in parse_mountstats(text) if mount.is_nfs]


def _mount(header: re.Match[str], body: list[str]) -> MountStats:
    device, mount_point, fstype, statvers = header.groups()
    nfs = _nfs_stats(statvers, body) if statvers is not None else None
    return MountStats(None if device is None else unescape_field(device), unescape_field(mount_point), fstype, nfs)


def _pairs(value: str) -> dict[str, str]:
    """ "caps=0xf,wtmult=512,sessions" -> {"caps": "0xf", "wtmult": "512", "sessions": ""}."""
    pairs: dict[str, str] = {}
    for item in split_commas(value, quotes="'\""):
        key, _, item_value = item.partition("=")
        if len(item_value) >= 2 and item_value[0] == item_value[-1] and item_value[0] in "'\"":
            item_value = item_value[1:-1]  # impl_id quotes its values: name='',date='0,0'
        pairs[key.strip()] = item_value
    return pairs


@dataclass
class _NfsLines:
    """The NFS lines of one mount as they are read (the RPC block comes after them)."""

    opts: MountOptions = field(default_factory=MountOptions)
    age: int | None = None
    pairs: dict[str, dict[str, str]] = field(default_factory=dict)
    counters: dict[str, Counters] = field(default_factory=dict)

    def read(self, tag: str, value: str) -> bool:
        """Take one "tag: value" line; False if we do not read it."""
        if tag == "opts":
            self.opts = MountOptions.parse(unescape_field(value))
            return True
        if tag in ("impl_id", "caps", "nfsv4", "sec"):
            self.pairs[tag] = _pairs(value)
            return True
        numbers = parse_ints(value.split())
        names = {"events": EVENT_NAMES, "bytes": BYTE_NAMES, "fsc": FSCACHE_NAMES}.get(tag)
        if numbers is not None and names is not None:
            self.counters[tag] = Counters(names, numbers)
            return True
        if numbers is not None and tag == "age" and len(numbers) == 1:
            self.age = numbers[0]
            return True
        return False


def _nfs_stats(statvers: str, body: list[str]) -> NfsStats:
    nfs = _NfsLines()
    unknown: list[str] = []
    rpc: RpcStats | None = None
    transports: list[Transport] = []
    ops: list[RpcOpStats] = []
    in_ops = False
    for line in body:
        tag, colon, value = line.strip().partition(":")
        value = value.strip()
        if rpc is None and line.strip().startswith("RPC iostats version:"):
            rpc = RpcStats.parse_header(line)
            if rpc is None:
                unknown.append(line)
        elif rpc is not None and tag == "xprt" and colon and (transport := Transport.parse(value)):
            transports.append(transport)
        elif rpc is not None and line.strip() == "per-op statistics":
            in_ops = True
        elif in_ops and colon and (op := RpcOpStats.parse(tag, value)):
            ops.append(op)
        elif rpc is not None or not (colon and nfs.read(tag, value)):
            unknown.append(line)
    if rpc is not None:
        rpc = RpcStats(rpc.version, rpc.program, rpc.program_version, rpc.program_name, tuple(transports), tuple(ops))
    return NfsStats(
        statvers=statvers,
        opts=nfs.opts,
        age=nfs.age,
        impl_id=nfs.pairs.get("impl_id", {}),
        caps=nfs.pairs.get("caps", {}),
        nfsv4=nfs.pairs.get("nfsv4", {}),
        sec=nfs.pairs.get("sec", {}),
        events=nfs.counters.get("events", NO_EVENTS),
        bytes=nfs.counters.get("bytes", NO_BYTES),
        fscache=nfs.counters.get("fsc"),
        rpc=rpc,
        unknown_lines=tuple(unknown),
    )
