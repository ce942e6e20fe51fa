"""What a watch reads in one pair's sessions: the change points of each workload's baseline figures (the trend's
points, results/trend.py) and of each ceiling (results/ceilings.py), found by statistics/change_points.py and
gathered by session, and the regression still open. Pure.

The ceilings are canaries: a workload that moved at the same session as a ceiling names that ceiling as the likely
cause ("the network (client to server) measured 60 % slower from session 14"), and a ceiling that moved alone is a
change point of its own, since a slower network or disk is news whether or not a workload crossed the threshold.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.results.ceilings import ceilings_of
from nfstune.results.trend import WorkloadTrend, day_text
from nfstune.statistics.change_points import MIN_CHANGE, change_points
from nfstune.statistics.stats import format_percent, format_value
from nfstune.statistics.verdict import format_change

# Ceilings field -> (its name, unit, higher is better)
CANARIES: dict[str, tuple[str, str, bool]] = {
    "network_to_server": ("the network (client to server)", "MB/s", True),
    "network_from_server": ("the network (server to client)", "MB/s", True),
    "round_trip_ms": ("the network (round trip)", "ms", False),
    "disk_write": ("the server's disk (write)", "MB/s", True),
    "disk_read": ("the server's disk (read)", "MB/s", True),
    "sync_write_ms": ("the server's disk (synchronous write)", "ms", False),
}

# what the report says once above the change points: what one is and why a ceiling is named
ABOUT = (
    f"A change point is the session from which a figure moved by {format_percent(MIN_CHANGE * 100)} or more and "
    "stayed there: two sessions at the new level at least, so one odd session is never one. When a ceiling "
    "measured in the same sessions, the network or the server's disk, moved there too, it is named as the likely "
    "cause: a cable, a switch port or a disk rather than the NAS's settings."
)


@dataclass(frozen=True)
class Move:
    """One series' change point: a workload's headline figure, or a ceiling."""

    name: str  # "seq-read", "the network (client to server)"
    is_ceiling: bool
    unit: str
    higher_is_better: bool
    before: float
    after: float

    @property
    def speed(self) -> float:
        """After over before as a speed: below 1 is slower, whichever way the figure is better."""
        return self.after / self.before if self.higher_is_better else self.before / self.after

    @property
    def worse(self) -> bool:
        return self.speed < 1

    @property
    def change(self) -> str:
        """'60 % slower', '2.1x faster'."""
        return format_change(self.speed)

    @property
    def text(self) -> str:
        """'seq-read 11.2 → 5.3 MB/s (53 % slower)'."""
        return f"{self.name} {format_value(self.before)} → {format_value(self.after)} {self.unit} ({self.change})"


@dataclass(frozen=True)
class SessionChange:
    """A session where one series or more moved to another level and stayed there."""

    session_id: int
    started_at: float
    number: int  # its place among the pair's sessions read, from 1: "the fourth watched session"
    moves: tuple[Move, ...]

    @property
    def workloads(self) -> tuple[Move, ...]:
        return tuple(m for m in self.moves if not m.is_ceiling)

    @property
    def ceilings(self) -> tuple[Move, ...]:
        return tuple(m for m in self.moves if m.is_ceiling)

    @property
    def worse(self) -> bool:
        return any(m.worse for m in self.moves)

    @property
    def cause(self) -> str | None:
        """'the network measured 7.1x slower (client to server) and 6.7x slower (server to client) from session 14':
        the ceilings that moved, by what they measure (the network, the server's disk)."""
        measured = self._measured()
        return f"{measured} from session {self.session_id}" if measured else None

    def _measured(self) -> str | None:
        if not self.ceilings:
            return None
        by_what: dict[str, list[str]] = {}
        for m in self.ceilings:
            what, _, part = m.name.partition(" (")
            by_what.setdefault(what, []).append(f"{m.change} ({part}" if part else m.change)
        return "; ".join(f"{what} measured {' and '.join(changes)}" for what, changes in by_what.items())

    @property
    def summary(self) -> str:
        """What changed and why, without when: 'seq-read 47 % slower; likely cause: the network measured 7.1x
        slower (client to server).' (History's banner says since when in its heading)."""
        measured = self._measured()
        if self.workloads:
            names = ", ".join(f"{m.name} {m.change}" for m in self.workloads)
            return f"{names}; " + (f"likely cause: {measured}." if measured else "no ceiling moved with it.")
        return f"{measured}; no workload moved by {format_percent(MIN_CHANGE * 100)} or more." if measured else ""

    @property
    def headline(self) -> str:
        """What changed, since when, and why, in one sentence."""
        when = f"session {self.session_id} ({day_text(self.started_at)})"
        workloads = self.workloads
        if workloads:
            names = ", ".join(f"{m.name} {m.change}" for m in workloads)
            cause = f"; likely cause: {self.cause}" if self.cause else "; no ceiling moved with it"
            return f"From {when}: {names}{cause}."
        return (
            f"From {when}: {self.cause}; no workload moved by {format_percent(MIN_CHANGE * 100)} or more."
            if self.cause
            else f"From {when}: no change."
        )

    @property
    def lines(self) -> list[str]:
        return [m.text for m in self.moves]


def _series_moves(
    name: str,
    is_ceiling: bool,
    unit: str,
    higher_is_better: bool,
    points: Sequence[tuple[int, Sequence[float]]],
) -> dict[int, Move]:
    """Session id -> the move of one series at it."""
    found = change_points([values for _, values in points])
    return {points[c.index][0]: Move(name, is_ceiling, unit, higher_is_better, c.before, c.after) for c in found}


def session_changes(sessions: Iterable[Mapping[str, Any]], trends: Sequence[WorkloadTrend]) -> list[SessionChange]:
    """Every change point of the pair's workloads and ceilings, by session, oldest first. `sessions`: as
    Results.pair_sessions gives them (with their ceilings); `trends`: workload_trends of the same sessions."""
    ordered = sorted(sessions, key=lambda s: (s["started_at"], s["id"]))
    number = {s["id"]: i for i, s in enumerate(ordered, 1)}
    started = {s["id"]: float(s["started_at"]) for s in ordered}
    moves: dict[int, list[Move]] = {}
    for trend in trends:
        points = [(p.session_id, p.values) for p in trend.points]
        for sid, move in _series_moves(trend.workload, False, trend.unit, trend.higher_is_better, points).items():
            moves.setdefault(sid, []).append(move)
    ceilings = [(s["id"], ceilings_of(s)) for s in ordered]
    for field, (name, unit, higher) in CANARIES.items():
        points = [(sid, (float(v),)) for sid, c in ceilings if (v := getattr(c, field)) is not None]
        for sid, move in _series_moves(name, True, unit, higher, points).items():
            moves.setdefault(sid, []).append(move)
    return [
        SessionChange(sid, started[sid], number[sid], tuple(moves[sid]))
        for sid in sorted(moves, key=lambda s: (started[s], s))
    ]


def open_regression(changes: Sequence[SessionChange]) -> SessionChange | None:
    """The latest change point where something got slower and has not moved back since (a later change point of
    the same series going the other way closes it); None when there is none."""
    for i in range(len(changes) - 1, -1, -1):
        change = changes[i]
        still = [
            m
            for m in change.moves
            if m.worse
            and not any(later.name == m.name and not later.worse for c in changes[i + 1 :] for later in c.moves)
        ]
        if still:
            return change
    return None


def change_letter(index: int) -> str:
    """A, B, ..., Z, AA, ...: a change point's name on the charts (the settings' marks are numbered)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def change_lines(changes: Sequence[SessionChange]) -> list[str]:
    """The change points as the report's Trend section and `nfstune watch --status` list them."""
    if not changes:
        return [f"No change point: no figure moved by {format_percent(MIN_CHANGE * 100)} or more and stayed there."]
    lines = []
    for change in changes:
        lines.append(change.headline)
        lines += [f"    {line}" for line in change.lines]
    return lines
