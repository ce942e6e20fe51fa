"""The kernel's NFS counters: /proc/net/rpc/nfs (client), /proc/net/rpc/nfsd (server), /proc/fs/nfsd/pool_stats,
and the output of `nfsstat -m`.

Each line of the rpc files is a tag and numbers. Client lines come from rpc_proc_show() in net/sunrpc/stats.c,
server lines from nfsd_show() in fs/nfsd/stats.c and svc_seq_show(). A "procN" line starts with how many
counters follow, one per procedure in the kernel's order; the names are nfs-utils' (utils/nfsstat/nfsstat.c),
extended where the kernel counts more procedures than nfs-utils 2.6.2 names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from nfstune.nfs.counters import Counters, is_number, parse_ints
from nfstune.nfs.mount_options import MountOptions
from nfstune.nfs.mounts import unescape_field

NFS2_PROCEDURES = (
    *("null", "getattr", "setattr", "root", "lookup", "readlink", "read", "wrcache", "write"),
    *("create", "remove", "rename", "link", "symlink", "mkdir", "rmdir", "readdir", "fsstat"),
)
NFS3_PROCEDURES = (
    *("null", "getattr", "setattr", "lookup", "access", "readlink", "read", "write", "create", "mkdir"),
    *("symlink", "mknod", "remove", "rmdir", "rename", "link", "readdir", "readdirplus", "fsstat", "fsinfo"),
    *("pathconf", "commit"),
)
# Client NFSv4 "procedures" (NFSPROC4_CLNT_* in include/linux/nfs4.h). nfs-utils names the first 59; Linux 6.1
# prints 69: the last ten are named as the kernel does (its mountstats per-op names, same order). Kernels after
# 6.1 append more (patches add OFFLOAD_STATUS after READ_PLUS); those land in Counters.extra, unnamed.
NFS4_CLIENT_PROCEDURES = (
    *("null", "read", "write", "commit", "open", "open_conf", "open_noat", "open_dgrd", "close", "setattr"),
    *("fsinfo", "renew", "setclntid", "confirm", "lock", "lockt", "locku", "access", "getattr", "lookup"),
    *("lookup_root", "remove", "rename", "link", "symlink", "create", "pathconf", "statfs", "readlink"),
    *("readdir", "server_caps", "delegreturn", "getacl", "setacl", "fs_locations", "rel_lkowner", "secinfo"),
    *("fsid_present", "exchange_id", "create_session", "destroy_session", "sequence", "get_lease_time"),
    *("reclaim_comp", "layoutget", "getdevinfo", "layoutcommit", "layoutreturn", "secinfo_no"),
    *("test_stateid", "free_stateid", "getdevicelist", "bind_conn_to_ses", "destroy_clientid"),
    *("seek", "allocate", "deallocate", "layoutstats", "clone"),
    # beyond nfs-utils 2.6.2, from the kernel (6.1):
    *("copy", "offload_cancel", "lookupp", "layouterror", "copy_notify", "getxattr", "setxattr"),
    *("listxattrs", "removexattr", "read_plus"),
)
NFS4_SERVER_PROCEDURES = ("null", "compound")
# Server NFSv4 operations, indexed by operation number (enum nfs_opnum4; 0-2 are unused). nfs-utils 2.6.2 names
# 0..70 and its `nfsstat -s` stops there; Linux 6.1 counts 76 (up to OP_REMOVEXATTR = 75).
NFS4_SERVER_OPERATIONS = (
    *("op0-unused", "op1-unused", "op2-future", "access", "close", "commit", "create", "delegpurge"),
    *("delegreturn", "getattr", "getfh", "link", "lock", "lockt", "locku", "lookup", "lookup_root"),
    *("nverify", "open", "openattr", "open_conf", "open_dgrd", "putfh", "putpubfh", "putrootfh", "read"),
    *("readdir", "readlink", "remove", "rename", "renew", "restorefh", "savefh", "secinfo", "setattr"),
    *("setcltid", "setcltidconf", "verify", "write", "rellockowner"),
    *("bc_ctl", "bind_conn", "exchange_id", "create_ses", "destroy_ses", "free_stateid", "getdirdeleg"),
    *("getdevinfo", "getdevlist", "layoutcommit", "layoutget", "layoutreturn", "secinfononam", "sequence"),
    *("set_ssv", "test_stateid", "want_deleg", "destroy_clid", "reclaim_comp"),
    *("allocate", "copy", "copy_notify", "deallocate", "ioadvise", "layouterror", "layoutstats"),
    *("offloadcancel", "offloadstatus", "readplus", "seek", "write_same"),
    # beyond nfs-utils 2.6.2, from the kernel (OP_CLONE = 71 .. OP_REMOVEXATTR = 75):
    *("clone", "getxattr", "setxattr", "listxattrs", "removexattr"),
)

CLIENT_NET = ("packets", "udp_packets", "tcp_packets", "tcp_connections")
CLIENT_RPC = ("calls", "retransmissions", "auth_refreshes")
SERVER_NET = CLIENT_NET
SERVER_RPC = ("calls", "bad_calls", "bad_format", "bad_auth", "bad_client")  # bad_calls = the three after it
SERVER_REPLY_CACHE = ("hits", "misses", "nocache")
# Only "stale" still counts; the rest print 0 since the file handle cache went (2.6 era).
SERVER_FILEHANDLES = ("stale", "total_lookups", "anon_lookups", "dir_not_cached", "nondir_not_cached")
SERVER_IO = ("bytes_read", "bytes_written")

_CLIENT_PROCEDURES = {"proc2": NFS2_PROCEDURES, "proc3": NFS3_PROCEDURES, "proc4": NFS4_CLIENT_PROCEDURES}
_SERVER_PROCEDURES = {
    "proc2": NFS2_PROCEDURES,
    "proc3": NFS3_PROCEDURES,
    "proc4": NFS4_SERVER_PROCEDURES,
    "proc4ops": NFS4_SERVER_OPERATIONS,
}


@dataclass(frozen=True)
class RpcCounterFile:
    """/proc/net/rpc/nfs or /proc/net/rpc/nfsd, line by line: tag -> named numbers.

    `procedures` holds the procN/proc4ops lines without their leading count. Lines we do not know (or whose
    numbers do not read, such as the server's "th" with its decimals) stay in `raw` as their words.
    """

    lines: Mapping[str, Counters] = field(default_factory=dict)
    procedures: Mapping[str, Counters] = field(default_factory=dict)
    raw: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def get(self, tag: str, name: str) -> int | None:
        counters = self.lines.get(tag) or self.procedures.get(tag)
        return None if counters is None else counters.get(name)

    @property
    def nfsd_threads(self) -> int | None:
        """Server only: "th <threads> 0 0.000 ..." (the rest is a deprecated histogram, always zero)."""
        words = self.raw.get("th", ())
        return int(words[0]) if words and is_number(words[0]) else None


def _parse(
    text: str, names: Mapping[str, tuple[str, ...]], procedures: Mapping[str, tuple[str, ...]]
) -> RpcCounterFile:
    lines: dict[str, Counters] = {}
    procs: dict[str, Counters] = {}
    raw: dict[str, tuple[str, ...]] = {}
    for line in text.split("\n"):
        words = line.split()
        if not words:
            continue
        tag, rest = words[0], words[1:]
        numbers = parse_ints(rest)
        if numbers is None:
            raw[tag] = tuple(rest)
        elif tag in procedures or (tag.startswith("proc") and numbers):
            # the leading count says how many follow; trust what is printed if the two disagree
            procs[tag] = Counters(procedures.get(tag, ()), numbers[1:])
        elif tag in names:
            lines[tag] = Counters(names[tag], numbers)
        else:
            raw[tag] = tuple(rest)
    return RpcCounterFile(lines, procs, raw)


def parse_client_counters(text: str) -> RpcCounterFile:
    """/proc/net/rpc/nfs: net, rpc, proc3, proc4 (proc2 only where NFSv2 is built in)."""
    return _parse(text, {"net": CLIENT_NET, "rpc": CLIENT_RPC}, _CLIENT_PROCEDURES)


def parse_server_counters(text: str) -> RpcCounterFile:
    """/proc/net/rpc/nfsd: rc, fh, io, th, ra, net, rpc, proc3, proc4, proc4ops (proc2 if NFSv2 is enabled).

    "ra" is the read-ahead cache the kernel no longer has ("deprecated ra-cache stats": twelve zeros); it is
    kept under lines with no names (all in extra).
    """
    names = {
        "rc": SERVER_REPLY_CACHE,
        "fh": SERVER_FILEHANDLES,
        "io": SERVER_IO,
        "ra": (),
        "net": SERVER_NET,
        "rpc": SERVER_RPC,
    }
    return _parse(text, names, _SERVER_PROCEDURES)


@dataclass(frozen=True)
class PoolStats:
    """/proc/fs/nfsd/pool_stats: one row per nfsd thread pool, named from the file's own "# pool ..." header.

    6.1 prints: pool packets-arrived sockets-enqueued threads-woken threads-timedout (dashes become
    underscores here). Later kernels renamed and zeroed some columns; the header keeps us right.
    """

    columns: tuple[str, ...]
    pools: tuple[Counters, ...]

    def total(self, column: str) -> int:
        return sum(pool.get(column) or 0 for pool in self.pools)


def parse_pool_stats(text: str) -> PoolStats:
    columns: tuple[str, ...] = ()
    pools: list[Counters] = []
    for line in text.split("\n"):
        if line.startswith("#"):
            columns = tuple(word.replace("-", "_") for word in line.lstrip("# ").split())
        elif (numbers := parse_ints(line.split())) is not None and numbers:
            pools.append(Counters(columns, numbers))
    return PoolStats(columns, tuple(pools))


@dataclass(frozen=True)
class NfsstatMount:
    """One mount from `nfsstat -m`: it prints the /proc/mounts fields as they are, so paths are decoded here."""

    mount_point: str
    device: str
    options: MountOptions


def parse_nfsstat_mounts(text: str) -> list[NfsstatMount]:
    """nfsstat -m: "<mount point> from <device>" then " Flags:\\t<options>" and a blank line, per NFS mount."""
    mounts: list[NfsstatMount] = []
    heading: tuple[str, str] | None = None
    for line in text.split("\n"):
        if line.startswith(" Flags:") and heading is not None:
            options = MountOptions.parse(unescape_field(line.removeprefix(" Flags:").strip()))
            mounts.append(NfsstatMount(heading[0], heading[1], options))
            heading = None
        elif " from " in line and not line.startswith(" "):
            mount_point, _, device = line.partition(" from ")  # both are escaped, so neither holds a space
            heading = (unescape_field(mount_point), unescape_field(device))
    return mounts
