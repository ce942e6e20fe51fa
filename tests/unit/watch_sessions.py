"""Watched first looks of one pair a week apart, written through the store's own API with their ceilings (iperf3
each way, the server's disk, the round trip and the disk's flush), as `nfstune run` stores them: three on the
lab's own link, then three after the link was shaped to 100mbit (the figures as the lab measured them,
tests/captures/watch/). What the watch's CLI and History's tests read."""

from __future__ import annotations

from collections.abc import Sequence

from nfstune.store import Results
from tests.unit.trend_sessions import DAY, Clock, first_look, store_session

WEEK = 7 * DAY
# per session: the workloads' two rounds, and the ceilings (network each way MB/s, disk write MB/s, round trip ms)
FAST = {"seq-write": (33.6, 35.4), "seq-read": (18.8, 19.7), "small-files": (3.89, 3.85), "sync-4k": (52.2, 52.5)}
SLOW = {"seq-write": (11.2, 11.4), "seq-read": (10.1, 10.3), "small-files": (4.3, 4.2), "sync-4k": (53.0, 52.8)}
FAST_CEILINGS = (84.0, 80.0, 87.0, 1.39)
SLOW_CEILINGS = (11.8, 11.9, 86.0, 1.62)


def store_watched(results: Results, figures: dict[str, Sequence[float]], ceilings: Sequence[float]) -> int:
    sid = store_session(results, first_look(figures))
    to_server, from_server, disk, round_trip = ceilings
    for kind, direction, value in (
        ("network", "to-server", to_server),
        ("network", "from-server", from_server),
        ("disk", "write", disk),
    ):
        results.add_baseline(
            sid, kind=kind, direction=direction, mb_per_s=value, seconds=10.0, size=int(value * 10e6), raw="{}"
        )
    results.add_latency(
        sid,
        kind="round-trip",
        tool="ping",
        mean_ms=round_trip,
        median_ms=round_trip,
        min_ms=round_trip * 0.9,
        max_ms=round_trip * 2,
        count=20,
        raw_output="",
    )
    results.add_latency(
        sid,
        kind="sync-write",
        tool="dd",
        mean_ms=51.6,
        median_ms=None,
        min_ms=None,
        max_ms=None,
        count=32,
        raw_output="",
    )
    return sid


def store_watch_series(results: Results, clock: Clock, slower_from: int | None = 4, count: int = 6) -> list[int]:
    """`count` watched first looks a week apart, each a little different (as the lab's were); from the
    `slower_from`th (counting from 1) on the slower link. None: all on the lab's own link."""
    ids = []
    for number in range(1, count + 1):
        slow = slower_from is not None and number >= slower_from
        wobble = 1 + 0.03 * ((number % 3) - 1)  # -3 %, 0, +3 %: a session's own noise
        figures = {w: tuple(v * wobble for v in values) for w, values in (SLOW if slow else FAST).items()}
        ceilings = tuple(v * wobble for v in (SLOW_CEILINGS if slow else FAST_CEILINGS))
        ids.append(store_watched(results, figures, ceilings))
        clock.now += WEEK
    return ids
