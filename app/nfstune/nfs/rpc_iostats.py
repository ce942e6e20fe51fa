"""The RPC part of one NFS mount in /proc/self/mountstats: its transports and its per-operation statistics.

Written by rpc_clnt_show_stats() in net/sunrpc/stats.c:

    RPC iostats version: 1.1  p/v: 100003/4 (nfs)
    xprt:	tcp 0 0 2 0 9 105 105 0 221 0 25 382 95      <- one line per transport: several with nconnect=N
    per-op statistics
            READ: 64 64 0 12288 8395264 28 1557 1616 0

Transports belong to the NFS client (one per server, NFS version and options), not to the mount: two mounts
of the same server share them, so their xprt: lines show the same numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nfstune.nfs.counters import Counters, parse_ints

# Counters after "xprt:\t<kind> ", in kernel order. udp/tcp/local: xs_udp_print_stats, xs_tcp_print_stats and
# xs_local_print_stats in net/sunrpc/xprtsock.c; rdma: xprt_rdma_print_stats in net/sunrpc/xprtrdma/transport.c.
# "port" is the local (source) port. connect_time was printed in jiffies by old kernels, in seconds by newer
# ones (connect_time / HZ). req_u and bklog_u are running sums: divide by sends for mean requests in flight and
# mean backlog (what nfs-utils' mountstats does).
# The socket transports ended at bklog_u until max_slots, sending_u and pending_u were appended (2011, Linux
# 3.x); RDMA never printed those three but grew its own tail (nomsg_call_count, then the mrs_* counters).
_SOCKET_TAIL = ("max_slots", "sending_u", "pending_u")
_CONNECTION = ("bind_count", "connect_count", "connect_time", "idle_time")
_MESSAGES = ("sends", "recvs", "bad_xids", "req_u", "bklog_u")
TRANSPORT_FIELDS: dict[str, tuple[str, ...]] = {
    "udp": ("port", "bind_count", *_MESSAGES, *_SOCKET_TAIL),
    "tcp": ("port", *_CONNECTION, *_MESSAGES, *_SOCKET_TAIL),
    "local": (*_CONNECTION, *_MESSAGES, *_SOCKET_TAIL),  # AF_LOCAL sockets have no port
    "rdma": (
        "port",  # always 0 ("need a local port?" in the kernel source)
        *_CONNECTION,
        *_MESSAGES,
        "read_chunk_count",
        "write_chunk_count",
        "reply_chunk_count",
        "total_rdma_request",
        "total_rdma_reply",
        "pullup_copy_count",
        "fixup_copy_count",
        "hardway_register_count",
        "failed_marshal_count",
        "bad_reply_count",
        "nomsg_call_count",
        "mrs_recovered",
        "mrs_orphaned",
        "mrs_allocated",
        "local_inv_needed",
        "empty_sendctx_q",
        "reply_waits_for_send",  # printed as a constant 0 by kernels that dropped the counter
    ),
}


@dataclass(frozen=True)
class Transport:
    """One xprt: line. An unknown transport kind keeps all its numbers in counters.extra."""

    kind: str
    counters: Counters

    @classmethod
    def parse(cls, value: str) -> Transport | None:
        """From the text after "xprt:", e.g. "tcp 0 0 2 0 9 105 105 0 221 0 25 382 95"; None if unreadable."""
        words = value.split()
        numbers = parse_ints(words[1:]) if words else None
        if numbers is None:
            return None
        return cls(words[0], Counters(TRANSPORT_FIELDS.get(words[0], ()), numbers))

    def get(self, name: str) -> int | None:
        return self.counters.get(name)

    @property
    def sends(self) -> int | None:
        return self.get("sends")

    @property
    def max_slots(self) -> int | None:
        """Most RPC slots (concurrent requests) this transport has used; absent before Linux 3.x."""
        return self.get("max_slots")


@dataclass(frozen=True)
class RpcOpStats:
    """One per-op line (_print_rpc_iostats in net/sunrpc/stats.c); times are sums in milliseconds."""

    name: str
    ops: int  # requests issued
    ntrans: int  # transmissions: ntrans - ops are retransmissions
    timeouts: int  # major timeouts
    bytes_sent: int
    bytes_recv: int
    queue_ms: int  # from the request being queued to it being sent
    rtt_ms: int  # from sending to receiving the reply
    execute_ms: int  # from the request being queued to it completing
    errors: int | None  # requests that ended with an error; added in 2019 (about Linux 5.3), None before
    extra: tuple[int, ...] = ()  # numbers a newer kernel prints after these

    @classmethod
    def parse(cls, name: str, value: str) -> RpcOpStats | None:
        numbers = parse_ints(value.split())
        if numbers is None or len(numbers) < 8:
            return None
        ops, ntrans, timeouts, bytes_sent, bytes_recv, queue_ms, rtt_ms, execute_ms = numbers[:8]
        errors = numbers[8] if len(numbers) > 8 else None
        return cls(
            name, ops, ntrans, timeouts, bytes_sent, bytes_recv, queue_ms, rtt_ms, execute_ms, errors, numbers[9:]
        )


_RPC_HEADER = re.compile(r"RPC iostats version: (\S+)\s+p/v: ([0-9]{1,20})/([0-9]{1,20}) \((.*)\)")


@dataclass(frozen=True)
class RpcStats:
    version: str  # RPC_IOSTATS_VERS: "1.1" since 2.6.x kernels
    program: int  # 100003 for NFS
    program_version: int  # 3 or 4
    program_name: str  # "nfs"
    transports: tuple[Transport, ...] = ()
    ops: tuple[RpcOpStats, ...] = ()

    @classmethod
    def parse_header(cls, line: str) -> RpcStats | None:
        match = _RPC_HEADER.fullmatch(line.strip())
        if match is None:
            return None
        version, program, program_version, name = match.groups()
        return cls(version, int(program), int(program_version), name)

    def op(self, name: str) -> RpcOpStats | None:
        return next((op for op in self.ops if op.name == name), None)
