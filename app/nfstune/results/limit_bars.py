"""The bars of what limits each workload: its figure (the baseline's median, as the diagnosis reads it) against each
ceiling it was judged by, in one unit. Throughput (MB/s): the network that way and the server's disk, each a
ceiling the figure cannot pass. Synchronous writes and files (ms each): the round trips each one waits for and the
server disk's flush, each a floor under the figure. A ceiling not measured is a bar without a value, so that the
picture says so as the diagnosis does. Pure."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from nfstune.results.ceilings import Ceilings, ceilings_of
from nfstune.results.diagnosis import ROUND_TRIPS, Diagnosis, per_file_ms
from nfstune.store import StoredSession


@dataclass(frozen=True)
class Bar:
    name: str  # "network, client → server"
    value: float | None  # in the figure's unit; None: not measured in this session


@dataclass(frozen=True)
class LimitBars:
    recipe: str
    workload: str
    label: str  # the configuration diagnosed (the baseline)
    figure: float  # in `unit`
    unit: str  # "MB/s" or "ms"
    bars: tuple[Bar, ...]
    ceiling: bool  # True: the bars bound the figure from above (MB/s); False: from below (ms each)
    bottleneck: str | None  # the diagnosis's, for the caption
    text: str  # the diagnosis's sentence


def limit_bars(diagnoses: Sequence[Diagnosis], ceilings: Ceilings, files: int | None) -> list[LimitBars]:
    """One per diagnosed workload that is judged against a ceiling; `files`: the small-files tree's file count."""
    found = []
    for d in diagnoses:
        shown = _bars(d, ceilings, files)
        if shown is not None:
            figure, unit, bars, ceiling = shown
            found.append(LimitBars(d.recipe, d.workload, d.label, figure, unit, bars, ceiling, d.bottleneck, d.text))
    return found


def _bars(d: Diagnosis, c: Ceilings, files: int | None) -> tuple[float, str, tuple[Bar, ...], bool] | None:
    if d.workload == "seq-write":
        bars: tuple[Bar, ...] = (
            Bar("network, client → server", c.network_to_server),
            Bar("server disk, write", c.disk_write),
        )
        return d.figure, "MB/s", bars, True
    if d.workload == "seq-read":
        bars = (Bar("network, server → client", c.network_from_server), Bar("server disk, cold read", c.disk_read))
        return d.figure, "MB/s", bars, True
    flush = Bar("server disk's flush", c.sync_write_ms)
    if d.workload == "sync-4k":
        return d.figure, "ms", (Bar("network round trip", c.round_trip_ms), flush), False
    if d.workload in ROUND_TRIPS:
        each = per_file_ms(d.workload, d.figure, files)
        if each is None:
            return None
        trips = ROUND_TRIPS[d.workload]
        waits = None if c.round_trip_ms is None else trips * c.round_trip_ms
        bars = (Bar(f"{trips} round trip{'s' if trips > 1 else ''}", waits),)
        # a stat commits nothing: the disk's flush does not bound it (diagnosis.py)
        return each, "ms", bars if d.workload == "file-stat" else (*bars, flush), False
    return None


def stored_ceilings(session: StoredSession) -> Ceilings:
    """The ceilings of a typed session, read as ceilings_of reads the store's rows (whose columns its fields are)."""
    data: dict[str, Any] = {
        "baselines": [asdict(c) for c in session.ceilings],
        "latencies": [asdict(t) for t in session.latencies],
        "plan": json.dumps(session.plan) if session.plan else None,
    }
    return ceilings_of(data)


def file_count(session: StoredSession) -> int | None:
    """The small-files tree's file count from the session's plan (its sizes), as session_diagnosis reads it."""
    sizes = (session.plan or {}).get("sizes")
    count = sizes.get("small_file_count") if isinstance(sizes, Mapping) else None
    return count if isinstance(count, int) else None
