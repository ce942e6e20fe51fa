"""Two stored sessions side by side (History's Compare): each configuration of one matched with the configuration
of the other that ran with the same settings in force (summary.effective_settings), whatever the recipes called
them, so that quick-check's "baseline" meets sync-vs-async's "sync"; by recipe and label only where the settings
were not read back. A latency workload is compared by its typical write where both sides kept it, else by both
sides' mean (bench.figure.judged_by over the two, as one group). Pure."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nfstune.bench.figure import Basis
from nfstune.recipes.model import WORKLOADS, Recipe
from nfstune.results.comparisons import judgeable, margin_of
from nfstune.results.summary import ConfigResult, WorkloadResults, summarize_session
from nfstune.statistics.verdict import Question, Verdict, judge
from nfstune.store import Results
from nfstune.words import count

# the two sides, as they appear in the texts ("B is 12 % faster than A")
SIDE_NAMES = ("A", "B")

Key = tuple[object, ...]


@dataclass(frozen=True)
class ComparisonRow:
    recipe: str  # "quick-check", or "quick-check (A) · sync-vs-async (B)" when the matched ones differ
    workload: str
    config_label: str  # "sync", or "baseline (A) · sync (B)"
    unit: str
    median_a: float | None  # None: not measured in session A
    median_b: float | None
    # B's speed against A in percent, the verdict's own estimate (its geometric mean ratio), so that this column and
    # the verdict's sentence say the same figure; None without a verdict
    change_percent: float | None
    text: str  # the verdict's sentence (B against A, with its CI), or "only in A", "no completed repeats in B"
    verdict: Verdict | None = None  # None when the two could not be compared
    caution: str = ""  # a side that stopped early ("B failed after 2 rounds"); "" when both completed


@dataclass(frozen=True)
class _Side:
    recipe: str
    group: WorkloadResults
    config: ConfigResult


def compare_stored(
    results: Results, a: int, b: int, recipes: Mapping[str, Recipe] | None = None
) -> list[ComparisonRow]:
    """compare_sessions of two stored sessions, by id: the views name them, results/ reads them."""
    return compare_sessions(results.session(a), results.session(b), recipes)


def compare_sessions(
    a: Mapping[str, Any], b: Mapping[str, Any], recipes: Mapping[str, Recipe] | None = None
) -> list[ComparisonRow]:
    """Each configuration measured in either session, per workload: both medians, the change of B against A, and
    the verdict of B against A. The two sessions' rounds did not run side by side, so the samples are independent
    (unpaired), and every comparison of the two sessions is one family. Rows follow A's order, then B's own."""
    side_a = _sides(summarize_session(a, recipes))
    side_b = _sides(summarize_session(b, recipes))
    keys = [*side_a, *(k for k in side_b if k not in side_a)]
    questions = []
    for key in keys:
        found_a, found_b = side_a.get(key), side_b.get(key)
        if found_a is None or found_b is None:
            continue
        rounds_a, rounds_b = (judgeable(r) for r in _comparable(found_a, found_b))
        if rounds_a and rounds_b:
            questions.append(
                Question(
                    key=(repr(key),),
                    baseline=rounds_a,
                    other=rounds_b,
                    higher_is_better=found_a.group.higher_is_better,
                    names=SIDE_NAMES,
                    margin_percent=margin_of((recipes or {}).get(found_a.recipe)),
                    paired=False,
                )
            )
    verdicts = {v.key: v for v in judge(questions)} if questions else {}
    return [_row(side_a.get(key), side_b.get(key), verdicts.get((repr(key),))) for key in keys]


def _comparable(a: _Side, b: _Side) -> tuple[dict[int, float], dict[int, float]]:
    """The two sides' rounds on one basis: the figures each was judged by where both were judged alike, else both
    sides' mean (a session stored before nfstune kept percentiles beside one that did)."""
    if a.group.basis is b.group.basis:
        return a.config.rounds, b.config.rounds
    return a.config.own_rounds or a.config.rounds, b.config.own_rounds or b.config.rounds


def _sides(groups: list[WorkloadResults]) -> dict[Key, _Side]:
    """Each configuration by the settings it ran with; by its recipe and label where they are not known, or where
    two configurations of the session ran with the same (an A/A check: the first keeps the settings)."""
    found: dict[Key, _Side] = {}
    for g in groups:
        for c in g.configs:
            key: Key = ("settings", g.workload, c.settings)
            if c.settings is None or key in found:
                key = ("label", g.workload, g.recipe, c.label)
            found[key] = _Side(g.recipe, g, c)
    return found


def _row(a: _Side | None, b: _Side | None, verdict: Verdict | None) -> ComparisonRow:
    some = a or b
    assert some is not None
    ca, cb = (a.config if a else None), (b.config if b else None)
    if a is not None and b is not None:  # the medians of what was compared
        rounds_a, rounds_b = _comparable(a, b)
        median_a = statistics.median(rounds_a.values()) if rounds_a else None
        median_b = statistics.median(rounds_b.values()) if rounds_b else None
    else:
        median_a = ca.summary.median if ca and ca.summary else None
        median_b = cb.summary.median if cb and cb.summary else None
    change = 100 * (verdict.ratio - 1) if verdict is not None and verdict.ratio is not None else None
    text = verdict.text if verdict is not None else _missing_text(ca, cb)
    recipe = _both(a.recipe if a else None, b.recipe if b else None)
    label = _both(ca.label if ca else None, cb.label if cb else None)
    return ComparisonRow(
        recipe,
        some.group.workload,
        label,
        WORKLOADS[some.group.workload].unit,
        median_a,
        median_b,
        change,
        text,
        verdict,
        "; ".join(filter(None, [_caution(ca, cb), _by_mean(a, b)])),
    )


def _by_mean(a: _Side | None, b: _Side | None) -> str:
    if a is None or b is None or a.group.basis is b.group.basis:
        return ""
    without = next(name for name, side in zip(SIDE_NAMES, (a, b), strict=True) if side.group.basis is Basis.MEAN)
    return f"by the mean: {without} was stored without percentiles"


def _both(a: str | None, b: str | None) -> str:
    if a is None or b is None or a == b:
        return str(a or b)
    return f"{a} ({SIDE_NAMES[0]}) · {b} ({SIDE_NAMES[1]})"


def _caution(a: ConfigResult | None, b: ConfigResult | None) -> str:
    stopped = [
        f"{name} {c.status} after {count(len(c.values), 'round')}"
        for name, c in zip(SIDE_NAMES, (a, b), strict=True)
        if c is not None and c.status not in ("completed", None)
    ]
    return "; ".join(stopped)


def _missing_text(a: ConfigResult | None, b: ConfigResult | None) -> str:
    name_a, name_b = SIDE_NAMES
    if a is None or b is None:
        return f"only in {name_a if b is None else name_b}"
    missing = [name for name, c in ((name_a, a), (name_b, b)) if not c.values]
    if missing:
        return f"no completed repeats in {' and '.join(missing)}"
    return "no figures above 0 to compare"
