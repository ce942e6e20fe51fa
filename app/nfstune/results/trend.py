"""Each workload's headline figure across the sessions of one pair of hosts and share, oldest first, with a mark
where the settings in force changed (settings_in_force.py): what History's trend draws and the report's Trend
section lists. Pure: sessions as Results.pair_sessions (or Results.session) give them.

The headline figure of a session, per workload, is the one the report's diagnosis starts from: the median over the
rounds of the baseline configuration (summary.baseline_of: what the recipe compares the others with), with a 95 %
confidence interval of that median from the rounds themselves (statistics.median_interval: none below 6 rounds, where
the rounds are too few to bound it; every round's figure is kept, so that their spread still shows). When a session
measured a workload in several recipes, the first recipe that measured it speaks for the session, as the runs
went. The points of one workload are one group for bench.figure.judged_by: sync-4k's trend is of its typical write
when every session kept its percentiles, else of its mean throughout, so that a line never joins a p50 to a mean.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.bench.figure import TYPICAL_WORDS, Basis, RepeatFigures
from nfstune.recipes.model import WORKLOADS, Recipe
from nfstune.results.comparisons import baseline_of
from nfstune.results.judged_figures import group_figures, run_figures
from nfstune.results.settings_in_force import SettingChange, Settings, changes, settings_in_force
from nfstune.statistics.median_interval import median_interval
from nfstune.statistics.stats import format_value
from nfstune.words import count


@dataclass(frozen=True)
class TrendPoint:
    session_id: int
    started_at: float
    recipe: str  # whose baseline the figure is
    config_label: str
    median: float
    ci: tuple[float, float] | None  # 95 % CI of the median over the rounds; None below 6 rounds
    values: tuple[float, ...]  # every counted round's figure, in round order
    settings: Settings

    @property
    def rounds(self) -> int:
        return len(self.values)


@dataclass(frozen=True)
class TrendMark:
    """Where the settings in force differ from those of the workload's previous point."""

    session_id: int
    started_at: float
    changes: tuple[SettingChange, ...]

    @property
    def names(self) -> str:
        """'NAS system, NAS kernel': a chart's label."""
        return ", ".join(dict.fromkeys(c.name for c in self.changes))

    @property
    def text(self) -> str:
        return "; ".join(c.text for c in self.changes)


@dataclass(frozen=True)
class WorkloadTrend:
    workload: str
    unit: str
    higher_is_better: bool
    points: tuple[TrendPoint, ...]  # oldest first
    marks: tuple[TrendMark, ...]
    judged_words: str | None = None  # what the points are, where a workload has more than one figure
    basis: Basis = Basis.OWN

    @property
    def figure_name(self) -> str:
        """'p50' or 'mean' for a latency workload's points, '' for a workload with one figure: a chart's title."""
        return "" if self.basis is Basis.OWN else str(self.basis)

    def mark_at(self, session_id: int) -> TrendMark | None:
        return next((m for m in self.marks if m.session_id == session_id), None)


def workload_trends(
    sessions: Iterable[Mapping[str, Any]], recipes: Mapping[str, Recipe] | None = None
) -> list[WorkloadTrend]:
    """One trend per workload any of the sessions measured, in the workloads' own order (bench.workloads)."""
    headlines: dict[str, list[_Headline]] = {}
    for session in sorted(sessions, key=lambda s: (s["started_at"], s["id"])):
        for workload, headline in _headlines(session, recipes or {}).items():
            headlines.setdefault(workload, []).append(headline)
    trends = []
    for workload in sorted(headlines, key=list(WORKLOADS).index):
        spec = WORKLOADS[workload]
        figures = group_figures(workload, {str(i): h.rounds for i, h in enumerate(headlines[workload])})
        found = [h.point(figures.judged[str(i)]) for i, h in enumerate(headlines[workload])]
        marks = []
        for before, after in itertools.pairwise(found):
            changed = changes(before.settings, after.settings)
            if changed:
                marks.append(TrendMark(after.session_id, after.started_at, changed))
        # a trend has no verdicts: of the group's words, only what its points are
        words = f"each point {TYPICAL_WORDS}" if figures.basis is Basis.TYPICAL else figures.words
        trends.append(
            WorkloadTrend(workload, spec.unit, spec.higher_is_better, tuple(found), tuple(marks), words, figures.basis)
        )
    return trends


@dataclass(frozen=True)
class _Headline:
    """A session's headline run of one workload, before its group's basis says which of its figures counts."""

    session_id: int
    started_at: float
    recipe: str
    config_label: str
    rounds: dict[int, RepeatFigures]
    settings: Settings

    def point(self, judged: Mapping[int, float]) -> TrendPoint:
        values = tuple(judged[n] for n in sorted(judged))
        return TrendPoint(
            session_id=self.session_id,
            started_at=self.started_at,
            recipe=self.recipe,
            config_label=self.config_label,
            median=statistics.median(values),
            ci=median_interval(values),
            values=values,
            settings=self.settings,
        )


def _headlines(session: Mapping[str, Any], recipes: Mapping[str, Recipe]) -> dict[str, _Headline]:
    """Per workload, the session's headline figure: the first recipe's baseline that has a counted round."""
    groups: dict[tuple[str, str], dict[str, Mapping[str, Any]]] = {}
    for run in session["runs"]:
        if run["workload"] in WORKLOADS:  # a workload this version does not know has no unit to show
            # a configuration that ran twice counts with its last run, as in the session's own results
            groups.setdefault((run["recipe"], run["workload"]), {})[run["config_label"]] = run
    found: dict[str, _Headline] = {}
    for (recipe_id, workload), runs in groups.items():
        if workload in found:
            continue
        label = baseline_of(recipes.get(recipe_id), runs)
        run = runs[label]
        rounds = run_figures(run)
        if not rounds:
            continue
        found[workload] = _Headline(
            session["id"], session["started_at"], recipe_id, label, rounds, settings_in_force(session, run)
        )
    return found


def mark_numbers(trends: Sequence[WorkloadTrend]) -> dict[int, int]:
    """Session id -> the number its marks carry on every chart (1 for the oldest change), so that one list under
    the charts names them all: a host's change marks every workload at once."""
    marked = sorted({(m.started_at, m.session_id) for t in trends for m in t.marks})
    return {session_id: number for number, (_, session_id) in enumerate(marked, 1)}


def changes_by_session(trends: Sequence[WorkloadTrend]) -> list[tuple[int, float, list[str]]]:
    """(session id, start, every change once) of each session where something changed, oldest first."""
    found: dict[int, tuple[float, dict[str, None]]] = {}
    for trend in trends:
        for mark in trend.marks:
            _, texts = found.setdefault(mark.session_id, (mark.started_at, {}))
            texts.update(dict.fromkeys(c.text for c in mark.changes))
    return [(sid, started, list(texts)) for sid, (started, texts) in sorted(found.items(), key=lambda s: s[1][0])]


def day_text(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def figure_text(point: TrendPoint, unit: str) -> str:
    """'31.2 MB/s (95 % CI 28.0 to 34.1, 8 rounds)'; with too few rounds for an interval, their range: '23.3 MB/s
    (2 rounds, 21.2 to 25.3)' (the ranges are written with an en dash)."""
    rounds = count(point.rounds, "round")
    if point.ci is not None:
        low, high = (format_value(end) for end in point.ci)
        return f"{format_value(point.median)} {unit} (95 % CI {low}\u2013{high}, {rounds})"
    if point.rounds > 1:
        low, high = format_value(min(point.values)), format_value(max(point.values))
        return f"{format_value(point.median)} {unit} ({rounds}, {low}\u2013{high})"
    return f"{format_value(point.median)} {unit} ({rounds})"


def trend_lines(trends: Sequence[WorkloadTrend], session_id: int | None = None) -> list[str]:
    """The trends as `nfstune report --trend` prints them: per workload, a line per session, oldest first, and
    what changed before it. `session_id`: the report's own session, marked."""
    lines = []
    for trend in trends:
        better = "higher" if trend.higher_is_better else "lower"
        lines.append(f"{trend.workload} ({trend.unit}, {better} is better; each session's baseline median)")
        if trend.judged_words:
            lines.append(f"  {trend.judged_words}")
        for p in trend.points:
            mark = trend.mark_at(p.session_id)
            if mark is not None:
                lines.append(f"      changed: {mark.text}")
            here = "  <- this session" if p.session_id == session_id else ""
            lines.append(
                f"  {p.session_id:4}  {day_text(p.started_at)}  {figure_text(p, trend.unit)}  "
                f"[{p.recipe}: {p.config_label}]{here}"
            )
    return lines
