"""The two latency ceilings, measured with the throughput ones (ceilings.py): the network round trip (ping from
the client to the address it mounts; needs no login on the server) and the server disk's own synchronous write (a
short run of 4 KiB O_DSYNC writes with dd, on the server, in the session's scratch directory on the export's
filesystem: journaled with it, removed with it). A synchronous write or a metadata operation over NFS cannot be
quicker than their sum (results/latencies.py).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass

from nfstune.bench.fallback import fallback_commands, fallback_parser
from nfstune.bench.ping import PING_DEADLINE_S, PingOutputError, parse_ping, ping_argv
from nfstune.bench.workloads import WorkloadId, WorkloadSizes
from nfstune.errors import NfstuneError
from nfstune.remote import Host
from nfstune.results.latencies import ROUND_TRIP, SYNC_WRITE, latency_label, latency_text

# enough for a mean within a few % on a steady disk, and a few seconds even on the lab's hdd profile (8 ms per
# write and flush under ext4's journal: 55-140 ms a write, i.e. 2-5 s); an SSD takes milliseconds
SYNC_WRITES = 32


@dataclass(frozen=True)
class Latency:
    kind: str  # results.latencies.ROUND_TRIP | SYNC_WRITE
    tool: str  # ping | dd
    mean_ms: float
    median_ms: float | None  # None: the tool timed only the whole run
    min_ms: float | None
    max_ms: float | None
    count: int  # operations timed
    raw_output: str

    @property
    def row(self) -> dict[str, object]:
        """As the store keeps it: Results.add_latency's fields."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @property
    def label(self) -> str:
        return latency_label(self.row)

    @property
    def text(self) -> str:
        return latency_text(self.row)


class LatencyFailed(NfstuneError):
    pass


def round_trip(client: Host, address: str) -> Latency:
    """Runs as the login (iputils' ping needs no root on current distributions: a file capability or
    ping_group_range); its exit status is 1 when a reply was lost, which still leaves the others to read."""
    argv = ping_argv(address)
    out = client.run(argv, check=False, timeout=PING_DEADLINE_S + 30)
    if out.exit_status == 127:  # the shell's "not found"
        raise LatencyFailed(f"{client.label}: ping is not installed (apt install iputils-ping)")
    try:
        result = parse_ping(out.stdout)
    except PingOutputError as exc:
        raise LatencyFailed(f"{client.label}: `{' '.join(argv)}`: {exc} {out.stderr.strip()[-200:]}") from None
    times = result.times_ms
    raw = out.stdout + (f"\n--- stderr\n{out.stderr}" if out.stderr.strip() else "")
    return Latency(ROUND_TRIP, "ping", result.mean_ms, result.median_ms, min(times), max(times), len(times), raw)


def sync_write(server: Host, directory: str, sizes: WorkloadSizes) -> Latency:
    """The sync-4k workload's own dd fallback (bench/fallback.py), run on the server with fewer writes: a new file
    written 4 KiB at a time with O_DSYNC, as an NFS client's stable writes make nfsd write it."""
    commands = fallback_commands(WorkloadId.SYNC_4K, directory, dataclasses.replace(sizes, sync_4k_count=SYNC_WRITES))
    parser = fallback_parser(commands)
    try:
        out = server.run(list(commands.run), sudo=True, timeout=600)
        parser.feed(out.stdout)
        result = parser.result()
    finally:
        for argv in commands.cleanup:
            server.run(list(argv), sudo=True, check=False)
    if result.lat_mean_us is None:  # the dd parser gives sync-4k a mean; never None here
        raise LatencyFailed(f"{server.label}: dd timed no write")
    return Latency(SYNC_WRITE, "dd", result.lat_mean_us / 1000, None, None, None, result.ops, result.raw)


def measure_latencies(
    server: Host | None,
    client: Host,
    *,
    address: str,
    directory: str,
    sizes: WorkloadSizes,
    cancel: threading.Event,
    warn: Callable[[str], None],
    found: Callable[[Latency], None],
) -> None:
    """Each latency ceiling that can be measured; one that cannot is a warning, never the end of the session.
    `server` None: no login on it, so only the round trip (the stored session's plan says why the other is
    missing: results/caveats.py)."""
    try:
        found(round_trip(client, address))
    except NfstuneError as exc:
        warn(f"network round trip not measured: {exc}")
    if server is None or cancel.is_set():
        return
    try:
        found(sync_write(server, directory, sizes))
    except NfstuneError as exc:
        warn(f"server disk's synchronous write latency not measured: {exc}")
