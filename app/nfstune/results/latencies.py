"""The latency ceilings of a session as stored (StoredSession.latencies, or a row as the store keeps it): what each
is called, the figure a latency budget adds up, and the sentence that says what they bound. Pure.

A row: kind (ROUND_TRIP | SYNC_WRITE), tool (ping | dd), mean_ms, median_ms (None when the tool timed only the
whole run), min_ms and max_ms (likewise), count (operations timed). A session without a row of a kind did not
measure it: no login on the server (no sync-write), no ping or no reply (no round-trip), or one stored before
nfstune measured them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from nfstune.statistics.stats import format_value
from nfstune.store import StoredLatency

ROUND_TRIP = "round-trip"  # the network: client → server → client, ping to the address the client mounts
SYNC_WRITE = "sync-write"  # the server's disk: one 4 KiB O_DSYNC write on the export's filesystem, on the server
KINDS = (ROUND_TRIP, SYNC_WRITE)
LATENCY_NOTE = (
    "They bound synchronous writes and metadata operations: each such operation waits at least one network round "
    "trip, plus on a sync export the server disk's synchronous write, plus the NFS server's own share."
)


Latency = StoredLatency | Mapping[str, Any]  # a stored ceiling, or a fresh one as the store will keep it


def latency_label(latency: Latency) -> str:
    """'network round trip (ping, client → server → client)': a stored or fresh latency ceiling in words."""
    row = _row(latency)
    if row["kind"] == ROUND_TRIP:
        return f"network round trip ({row['tool']}, client → server → client)"
    return f"server disk, one 4 KiB synchronous write ({row['tool']}, O_DSYNC)"


def latency_ms(latency: Latency) -> float:
    """The figure a budget adds up, in ms: the median where each operation was timed (ping: its first reply often
    waits for ARP), else the mean (dd times only the whole run)."""
    row = _row(latency)
    median = row.get("median_ms")
    return float(median if median is not None else row["mean_ms"])


def latency_text(latency: Latency) -> str:
    """'1.39 ms (median of 20 replies, 0.536-5.16 ms)', '62.4 ms (mean of 32 writes)'."""
    row = _row(latency)
    what = "replies" if row["kind"] == ROUND_TRIP else "writes"
    statistic = "median" if row.get("median_ms") is not None else "mean"
    text = f"{format_value(latency_ms(row))} ms ({statistic} of {row['count']} {what}"
    if row.get("min_ms") is not None and row.get("max_ms") is not None:
        text += f", {format_value(row['min_ms'])}\u2013{format_value(row['max_ms'])} ms"
    return text + ")"


def _row(latency: Latency) -> Mapping[str, Any]:
    return dataclasses.asdict(latency) if isinstance(latency, StoredLatency) else latency
