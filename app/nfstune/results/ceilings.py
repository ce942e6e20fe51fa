"""The ceilings a session measured before its recipes, as the diagnosis reads them: the network each way (iperf3),
the server's own disk (sequential write and cold read), the network's round trip and the server disk's own
synchronous write latency. Each one missing says why, so that a diagnosis says that instead of guessing. Pure."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nfstune.results.latencies import ROUND_TRIP, SYNC_WRITE, latency_ms


@dataclass(frozen=True)
class Ceilings:
    network_to_server: float | None = None  # MB/s, iperf3 client -> server (what writes cross)
    network_from_server: float | None = None  # MB/s, server -> client (reads)
    disk_write: float | None = None  # MB/s, the server's disk alone, sequential write ending in fsync
    disk_read: float | None = None  # MB/s, cold sequential read
    round_trip_ms: float | None = None  # the network's round trip, client -> server and back
    sync_write_ms: float | None = None  # one 4 KiB O_DSYNC write on the server's exported filesystem
    server_login: bool = True  # False: a client-only session, where nothing could be measured on the server

    def missing(self, what: str, *, on_server: bool = True) -> str:
        """Why a ceiling is not there, in the admin's words. `on_server`: whether measuring it needs the server
        (the round trip needs only the client)."""
        if on_server and not self.server_login:
            return f"no {what} could be measured: nfstune had no login on the server"
        return f"no {what} was measured in this session (baselines skipped, or the tool was missing)"


def ceilings_of(session: Mapping[str, Any]) -> Ceilings:
    """From results.session(): its baselines rows and, for whether it had a login, its stored plan."""
    found: dict[str, float] = {}
    for row in session.get("baselines") or ():
        key = {
            ("network", "to-server"): "network_to_server",
            ("network", "from-server"): "network_from_server",
            ("disk", "write"): "disk_write",
            ("disk", "read"): "disk_read",
        }.get((row["kind"], row["direction"]))
        if key is not None and row["mb_per_s"] > 0:
            found[key] = max(found.get(key, 0.0), float(row["mb_per_s"]))
    for row in session.get("latencies") or ():
        name = {ROUND_TRIP: "round_trip_ms", SYNC_WRITE: "sync_write_ms"}.get(row["kind"])
        value = latency_ms(row)
        if name is not None and value is not None and value > 0:
            found[name] = value
    try:
        plan = json.loads(session.get("plan") or "{}")
    except ValueError:
        plan = {}
    login = not isinstance(plan, dict) or bool(plan.get("server_login", True))
    return Ceilings(**found, server_login=login)
