"""A session's trend: the same pair of hosts and share's completed sessions up to it, each workload's headline
figure per session and where the settings in force changed (results/trend.py). The HTML report shows it as a
"Trend" section once the pair has two sessions or more (one point is no trend), `report --json` as its `trend`,
and `nfstune report --trend` adds it to the text a terminal shows.

The newest TREND_SESSIONS sessions at most: a report is sent on and read, and the desktop's History draws every
session of a pair."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from nfstune.recipes.model import Recipe
from nfstune.report.trend_chart import trend_chart_svg
from nfstune.results.trend import WorkloadTrend, changes_by_session, day_text, mark_numbers, workload_trends
from nfstune.results.watch import ABOUT as CHANGE_ABOUT
from nfstune.results.watch import Move, SessionChange, change_lines, session_changes
from nfstune.statistics.stats import format_value
from nfstune.store import Results

TREND_SESSIONS = 20
DASH = "\u2013"


def session_trends(
    results: Results, session_id: int, recipes: Mapping[str, Recipe] | None = None, last: int = TREND_SESSIONS
) -> list[WorkloadTrend]:
    """The trends of the session's pair up to the session; [] for a session without both hosts."""
    pair = results.pair_of(session_id)
    if pair is None:
        return []
    return workload_trends(results.pair_sessions(pair, until=session_id, last=last), recipes)


def session_change_points(
    results: Results, session_id: int, recipes: Mapping[str, Recipe] | None = None, last: int = TREND_SESSIONS
) -> tuple[list[WorkloadTrend], list[SessionChange]]:
    """session_trends, and the change points a watch finds in the same sessions (results/watch.py)."""
    pair = results.pair_of(session_id)
    if pair is None:
        return [], []
    sessions = results.pair_sessions(pair, until=session_id, last=last)
    trends = workload_trends(sessions, recipes)
    return trends, session_changes(sessions, trends)


def sessions_in(trends: Sequence[WorkloadTrend]) -> list[tuple[int, float]]:
    """(session id, start) of every session with a point, oldest first."""
    return sorted({(p.session_id, p.started_at) for t in trends for p in t.points}, key=lambda s: (s[1], s[0]))


def trend_html(trends: Sequence[WorkloadTrend], session_id: int, change_points: Sequence[SessionChange] = ()) -> str:
    """The Trend section, or "" when fewer than two sessions have a figure."""
    sessions = sessions_in(trends)
    if len(sessions) < 2:
        return ""
    e = html.escape
    parts = [
        "<h2>Trend</h2><p>This pair of hosts and share over its last "
        f"{len(sessions)} completed sessions up to this one: each workload's baseline median on the line, every "
        "round as a small dot, the median's 95 % interval as a bar where the rounds give one (6 rounds or more), "
        "and a dashed line, numbered, where the settings in force changed from the session before: the export and "
        "the mount as read back, the hosts as probed.</p>"
    ]
    numbers = mark_numbers(trends)
    parts += [trend_chart_svg(trend, session_id, numbers) for trend in trends]
    changed = changes_by_session(trends)
    if changed:
        items = "".join(
            f"<li value={numbers[sid]}>session {sid}, {e(day_text(started))}: {e('; '.join(texts))}</li>"
            for sid, started, texts in changed
        )
        parts.append(f"<p>Where the settings in force changed:</p><ol class=marks>{items}</ol>")
    parts.append(_change_points_html(change_points))
    parts.append(_table(trends, sessions, session_id))
    return "\n".join(parts)


def _change_points_html(change_points: Sequence[SessionChange]) -> str:
    """Where a figure moved to another level and stayed (a watch's change points), each with its likely cause."""
    e = html.escape
    if not change_points:
        return f"<p>{e(change_lines([])[0])}</p>"
    items = "".join(
        f"<li>{e(c.headline)}<br><span class=muted>{e('; '.join(c.lines))}</span></li>" for c in change_points
    )
    return f"<p>Change points: {e(CHANGE_ABOUT)}</p><ul>{items}</ul>"


def _table(trends: Sequence[WorkloadTrend], sessions: Sequence[tuple[int, float]], session_id: int) -> str:
    e = html.escape
    head = "".join(f"<th>{e(t.workload)} ({e(t.unit)})</th>" for t in trends)
    rows = []
    for sid, started in sessions:
        cells = []
        for t in trends:
            point = next((p for p in t.points if p.session_id == sid), None)
            cells.append(f"<td class=n>{DASH if point is None else format_value(point.median)}</td>")
        changed = dict.fromkeys(c.text for t in trends if (m := t.mark_at(sid)) for c in m.changes)
        own = " style='font-weight:bold'" if sid == session_id else ""
        rows.append(
            f"<tr{own}><td class=n>{sid}</td><td>{e(day_text(started))}</td>{''.join(cells)}"
            f"<td>{e('; '.join(changed))}</td></tr>"
        )
    return (
        f"<table><tr><th>session</th><th>started</th>{head}<th>changed from the session before</th></tr>"
        f"{''.join(rows)}</table>"
    )


def change_points_document(change_points: Sequence[SessionChange]) -> list[dict[str, Any]]:
    """The watch's change points as `report --json` gives them: where each moved, by how much, and the likely cause."""
    return [
        {
            "session": c.session_id,
            "started_at": c.started_at,
            "headline": c.headline,
            "workloads": [_move(m) for m in c.workloads],
            "ceilings": [_move(m) for m in c.ceilings],
            "likely_cause": c.cause,
        }
        for c in change_points
    ]


def _move(move: Move) -> dict[str, Any]:
    return {
        "name": move.name,
        "unit": move.unit,
        "higher_is_better": move.higher_is_better,
        "before": move.before,
        "after": move.after,
        "ratio": move.speed,  # after over before as a speed, as a verdict's: below 1 slower, whatever the unit
        "change": move.change,
    }


def trend_document(trends: Sequence[WorkloadTrend]) -> list[dict[str, Any]]:
    """The trends as `report --json` gives them (resources/schemas/report.schema.json)."""
    return [
        {
            "workload": t.workload,
            "unit": t.unit,
            "higher_is_better": t.higher_is_better,
            "judged_words": t.judged_words,  # what the points are, for a workload with more than one figure
            "points": [
                {
                    "session": p.session_id,
                    "started_at": p.started_at,
                    "recipe": p.recipe,
                    "config": p.config_label,
                    "median": p.median,
                    "ci_low": p.ci[0] if p.ci else None,
                    "ci_high": p.ci[1] if p.ci else None,
                    "values": list(p.values),
                    "settings": dict(p.settings),
                }
                for p in t.points
            ],
            "changes": [
                {
                    "session": m.session_id,
                    "started_at": m.started_at,
                    "changes": [{"setting": c.name, "text": c.text} for c in m.changes],
                }
                for m in t.marks
            ],
        }
        for t in trends
    ]
