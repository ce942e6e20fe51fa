"""The ceilings of a check against those of the session it checks: one that moved beyond its noise is named as the
likely cause of what the check found ("the network measured 40 % slower than in session 12: the comparison says
more about the network than about the settings"). Pure.

A ceiling is one run of one tool, so its noise is taken from what one run of it spreads: iperf3 and a sequential dd
within about 15 % from one session to the next on unchanged hosts, a latency (ping, a 4 KiB O_DSYNC dd) far more,
so twice as much before it is called a change."""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.results.ceilings import Ceilings
from nfstune.statistics.verdict import format_change

THROUGHPUT_NOISE = 0.15  # a change of more than this (either way, as a ratio) is beyond one run's noise
LATENCY_NOISE = 0.50

# field, words, whose ceiling it is, higher is better
_CEILINGS = (
    ("network_to_server", "the network (client → server)", "network", True),
    ("network_from_server", "the network (server → client)", "network", True),
    ("disk_write", "the server's disk (sequential write)", "disk", True),
    ("disk_read", "the server's disk (cold read)", "disk", True),
    ("round_trip_ms", "the network's round trip", "network", False),
    ("sync_write_ms", "the server disk's synchronous write", "disk", False),
)


@dataclass(frozen=True)
class CeilingChange:
    name: str  # in words: "the network (client → server)"
    then: float
    now: float
    speed: float  # now against then as a speed (above 1: faster now)
    change: str  # what moved: "the network (client → server) measured 40 % slower than in session 12 (110 → 66 MB/s)"
    blame: str  # ": the comparison says more about the network than about the settings"

    @property
    def text(self) -> str:
        """The change named as the likely cause (of a check that did not hold or did not settle)."""
        return self.change + self.blame


def ceiling_changes(then: Ceilings, now: Ceilings, session_id: int) -> tuple[CeilingChange, ...]:
    """Each ceiling measured both times whose speed moved beyond its noise, the largest move first."""
    found = []
    for field, name, what, higher in _CEILINGS:
        before, after = getattr(then, field), getattr(now, field)
        if not before or not after:
            continue
        speed = after / before if higher else before / after
        noise = THROUGHPUT_NOISE if higher else LATENCY_NOISE
        if 1 / (1 + noise) <= speed <= 1 + noise:
            continue
        unit = "MB/s" if higher else "ms"
        change = (
            f"{name} measured {format_change(speed)} than in session {session_id} ({before:.3g} → {after:.3g} {unit})"
        )
        blame = f": the comparison says more about the {what} than about the settings"
        found.append(CeilingChange(name, before, after, speed, change, blame))
    return tuple(sorted(found, key=lambda c: -abs(c.speed - 1 if c.speed >= 1 else 1 / c.speed - 1)))
