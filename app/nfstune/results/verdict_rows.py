"""The rows of the verdict plot: one per comparison of a session (a configuration against the one it is compared
with), its speed ratio and interval as the verdict has them, the margin within which a difference does not matter,
the verdict's kind and whether the comparison was expected to measure the same (an A/A check). Pure: the plot
draws these, the tests check them against the session's verdicts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from nfstune.bench.figure import TAIL_WORDS
from nfstune.recipes.model import Recipe
from nfstune.results.comparisons import config_verdicts, margin_of
from nfstune.results.summary import WorkloadResults, planned_margins
from nfstune.statistics.verdict import Kind, Verdict
from nfstune.store import StoredSession


@dataclass(frozen=True)
class VerdictRow:
    recipe: str
    workload: str
    label: str
    against: str  # the configuration it is compared with
    ratio: float | None  # > 1: faster; None: too few rounds for an estimate
    low: float | None  # the verdict's interval, at its Holm-corrected level
    high: float | None
    margin_percent: float  # within +-margin: no difference that matters
    kind: Kind
    expected_same: bool  # an A/A check: nothing differs from what it is compared with
    text: str  # the verdict's sentence
    tail: bool = False  # the tail's (p99) verdict of a latency workload, beside its typical write's
    blocks: int = 0  # > 0: judged from this many blocks changed by hand (statistics/blocks.py), not rounds

    @property
    def title(self) -> str:
        return f"{self.recipe} / {self.workload}{self.aspect}: {self.label} vs {self.against}"

    @property
    def aspect(self) -> str:
        """', tail (p99)' for a tail's row, which follows its typical write's; '' for every other row."""
        return f", {TAIL_WORDS}" if self.tail else ""


def verdict_rows(groups: Sequence[WorkloadResults], margins: Mapping[str, float]) -> list[VerdictRow]:
    """In the order of the groups and their configurations, a latency workload's tail (p99) right after its typical
    write. `margins`: recipe id -> its margin in % (margins_of); a recipe missing there has the default margin."""
    rows = []
    for group in groups:
        margin = margins.get(group.recipe, margin_of(None))
        for config in group.configs:
            against = config.against or group.baseline_label
            expected_same = config.same_as_baseline is not None
            for verdict, tail in ((config.verdict, False), (config.tail_verdict, True)):
                if verdict is not None:
                    row = _row(group.recipe, group.workload, config.label, against, verdict, margin, expected_same)
                    rows.append(replace(row, tail=tail))
    return rows


@dataclass(frozen=True)
class AskedWorkload:
    """One workload of a recipe as its comparisons were asked (comparisons.workload_questions)."""

    workload: str
    baseline: str
    runs: Mapping[str, Mapping[str, Any]]  # label -> the run as the comparisons read it
    same: Mapping[str, str | None]  # label -> why it must measure as what it is compared with (an A/A check)


def judged_rows(
    recipe_id: str, asked: Sequence[AskedWorkload], verdicts: Sequence[Verdict], margin_percent: float
) -> list[VerdictRow]:
    """The rows of one recipe from its comparisons as judged at one look (the stop rule's judgement while it runs),
    each as verdict_rows makes it from the stored session: the same configurations, what they are compared with,
    and verdicts."""
    by_key = {v.key: v for v in verdicts}
    rows = []
    for w in asked:
        for label, (against, verdict) in config_verdicts(recipe_id, w.workload, w.runs, w.baseline, by_key).items():
            if verdict is not None:
                expected_same = w.same.get(label) is not None
                rows.append(
                    _row(recipe_id, w.workload, label, against or w.baseline, verdict, margin_percent, expected_same)
                )
    return rows


def _row(
    recipe: str, workload: str, label: str, against: str, verdict: Verdict, margin: float, expected_same: bool
) -> VerdictRow:
    low, high = verdict.ci if verdict.ci is not None else (None, None)
    return VerdictRow(
        recipe,
        workload,
        label,
        against,
        verdict.ratio,
        low,
        high,
        margin,
        verdict.kind,
        expected_same,
        verdict.text,
        blocks=verdict.blocks,
    )


def margins_of(session: StoredSession, recipes: Mapping[str, Recipe]) -> dict[str, float]:
    """recipe id -> the margin its verdicts were judged with: the session's plan's, else the recipe's now (as
    results.summary judges them)."""
    # planned_margins reads the plan as the store keeps it (JSON text); the typed session has it parsed
    planned = planned_margins({"plan": json.dumps(session.plan) if session.plan else None})
    return {r: margin_of(recipes.get(r), planned.get(r)) for r in dict.fromkeys([*session.recipes, *planned])}


# the ticks of the ratio axis, nearest "same" first on each side: round words ("10 % slower", "2x faster") rather
# than the exact reciprocals of the other side's
FASTER_TICKS = (1.1, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0, 1000.0)
SLOWER_TICKS = (0.9, 0.8, 0.5, 1 / 3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.001)
SHOWN_RANGE = (1e-3, 1e3)  # a CI of two rounds in a large family can reach 1e7: drawn to the axis' end


# how far past the farthest estimate (or "same") an interval may widen the axis on its side: a comparison of two
# rounds in a large family has an interval of 1000x each way, which would squeeze every other row into the middle
# (a 390 px plot read only "same"); past this its bar runs to the axis' end
INTERVAL_REACH = 10.0


def ratio_span(rows: Sequence[VerdictRow]) -> tuple[float, float]:
    """The ratios the axis spans: every estimate and margin band, and one tick each side of 1; the intervals as far
    as INTERVAL_REACH beyond the farthest estimate on their side."""
    centres = [r.ratio for r in rows if r.ratio is not None and r.ratio > 0]
    centres += [m for r in rows for m in (1 + r.margin_percent / 100, 1 / (1 + r.margin_percent / 100))]
    low = min([SLOWER_TICKS[0], *centres])
    high = max([FASTER_TICKS[0], *centres])
    ends = [v for r in rows for v in (r.low, r.high) if v is not None and v > 0]
    low = max(min([low, *ends]), low / INTERVAL_REACH)
    high = min(max([high, *ends]), high * INTERVAL_REACH)
    return max(low, SHOWN_RANGE[0]), min(high, SHOWN_RANGE[1])


def ratio_ticks(low: float, high: float, *, short: bool = False) -> list[tuple[float, str]]:
    """(ratio, words) for the axis from `low` to `high`: "same" and the round ratios between (a chart keeps those
    whose words do not touch). `short`: "2x", "20 %" without the direction, for a narrow chart whose axis title
    says which side is faster."""
    inside = [t for t in SLOWER_TICKS if t >= low] + [t for t in FASTER_TICKS if t <= high]
    words = ratio_short if short else ratio_words
    return sorted([(1.0, "same"), *((t, words(t)) for t in inside)])


def ratio_short(ratio: float) -> str:
    """'2x', '25 %': ratio_words without the direction."""
    return ratio_words(ratio).removesuffix(" faster").removesuffix(" slower")


def ratio_words(ratio: float) -> str:
    """'2x faster', '3x slower', '25 % faster', '20 % slower'."""
    if ratio == 1:
        return "same"
    factor = ratio if ratio > 1 else 1 / ratio
    direction = "faster" if ratio > 1 else "slower"
    if factor >= 2 - 1e-9:
        return f"{round(factor):g}x {direction}"
    # slower in the share of the speed lost, as the verdicts say it: 0.8 is 20 % slower
    return f"{abs(ratio - 1) * 100:.0f} % {direction}"


def corrected_for(rows: Sequence[VerdictRow]) -> str:
    """What the intervals shown are corrected for: blocks changed by hand are judged with no looks (the admin, not a
    stop rule, ends them: statistics/blocks.py), so when every row is from blocks there are none to name."""
    return "the comparisons" if rows and all(r.blocks for r in rows) else "the comparisons and the looks"
