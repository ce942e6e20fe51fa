"""The two ceilings every result is read against: the network between the hosts (iperf3, both directions, the
server side started and stopped by us) and the server's own disk (dd in a scratch directory of ours on the
export's filesystem, ending in fsync; read back with caches dropped). NFS cannot beat either.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from nfstune.bench.fallback import fallback_commands, fallback_parser
from nfstune.bench.iperf import DEFAULT_PORT, IperfOutputError, iperf_client_argv, iperf_server_argv, parse_iperf_json
from nfstune.bench.workloads import DROP_CACHES, WorkloadId, WorkloadSizes
from nfstune.errors import NfstuneError
from nfstune.remote import Host
from nfstune.remote.process import RemoteProcess

LISTEN_WAIT_S = 15.0


@dataclass(frozen=True)
class Ceiling:
    kind: str  # network | disk
    direction: str  # network: to-server | from-server; disk: write | read
    mb_per_s: float
    seconds: float
    bytes: int
    raw_output: str

    @property
    def label(self) -> str:
        return ceiling_name(self.kind, self.direction)


def ceiling_name(kind: str, direction: str) -> str:
    """'network (iperf3, client → server)', 'server disk write': a stored (StoredCeiling) or fresh ceiling in
    words."""
    if kind == "network":
        way = "client → server" if direction == "to-server" else "server → client"
        return f"network (iperf3, {way})"
    return f"server disk {direction}"


class CeilingFailed(NfstuneError):
    pass


def _wait_listening(server: Host, proc: RemoteProcess, port: int) -> None:
    """Until the one-shot server's socket is bound, as `ss` shows it (its own "listening" line is block-buffered
    when stdout is not a terminal)."""
    deadline = time.monotonic() + LISTEN_WAIT_S
    while time.monotonic() < deadline:
        listening = server.run(["ss", "-Hltn", f"sport = :{port}"], check=False).stdout.strip()
        if listening:
            return
        time.sleep(0.2)
    proc.cancel()
    raise CeilingFailed(f"{server.label}: `iperf3 -s -p {port}` was not listening after {LISTEN_WAIT_S:.0f} s")


def network(
    server: Host, client: Host, address: str, *, to_server: bool, seconds: int, port: int = DEFAULT_PORT
) -> Ceiling:
    """One iperf3 run: client → server (the direction of NFS writes) or, reversed, server → client (reads)."""
    proc = server.start(iperf_server_argv(port), timeout=seconds + 60)
    try:
        _wait_listening(server, proc, port)
        argv = iperf_client_argv(address, port, seconds, reverse=not to_server, json_output=True)
        out = client.run(argv, check=False, timeout=seconds + 60)
        try:
            result = parse_iperf_json(out.stdout)
        except IperfOutputError as exc:
            raise CeilingFailed(f"{client.label}: `{' '.join(argv)}`: {exc} {out.stderr.strip()[-200:]}") from None
    finally:
        proc.cancel()  # a one-shot server exits by itself after the test; this covers a client that never came
    direction = "to-server" if to_server else "from-server"
    received = result.received_bytes
    return Ceiling("network", direction, result.mb_per_s, result.seconds, received, out.stdout)


def server_disk(server: Host, directory: str, sizes: WorkloadSizes) -> list[Ceiling]:
    """Sequential write (ending in fsync) then a cold read of the same file, on the server, in `directory` (the
    session's scratch directory inside the export: journaled, and removed by whoever made it)."""
    found = []
    for workload, direction in ((WorkloadId.SEQ_WRITE, "write"), (WorkloadId.SEQ_READ, "read")):
        commands = fallback_commands(workload, directory, sizes)
        if workload is WorkloadId.SEQ_READ:
            server.run(DROP_CACHES, sudo=True)
        parser = fallback_parser(commands)
        out = server.run(list(commands.run), sudo=True, timeout=3600)
        parser.feed(out.stdout)
        result = parser.result()
        found.append(Ceiling("disk", direction, result.mb_per_s, result.seconds, result.bytes, result.raw))
    return found


def measure_all(
    server: Host,
    client: Host,
    *,
    address: str,
    directory: str,
    sizes: WorkloadSizes,
    iperf_seconds: int,
    iperf_available: bool,
    cancel: threading.Event,
    warn: Callable[[str], None],
    found: Callable[[Ceiling], None],
) -> None:
    """Every baseline that can be measured; one that cannot is a warning, never the end of the session."""
    if iperf_available:
        for to_server in (True, False):
            if cancel.is_set():
                return
            try:
                found(network(server, client, address, to_server=to_server, seconds=iperf_seconds))
            except NfstuneError as exc:
                warn(f"network baseline skipped: {exc}")
                break
    else:
        warn("network baseline skipped: iperf3 is missing on the server or the client (apt install iperf3)")
    if cancel.is_set():
        return
    try:
        for baseline in server_disk(server, directory, sizes):
            found(baseline)
    except NfstuneError as exc:
        warn(f"server disk baseline skipped: {exc}")
