"""The rows of the verdict plot: one per comparison of a session (a configuration against the one it is compared
with), its speed ratio and interval as the verdict has them, the margin within which a difference does not matter,
the verdict's kind and whether the comparison was expected to measure the same (an A/A check). Pure: the plot
draws these, the tests check them against the session's verdicts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.recipes.model import Recipe
from nfstune.results.comparisons import margin_of
from nfstune.results.summary import WorkloadResults, planned_margins
from nfstune.statistics.verdict import Kind
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

    @property
    def title(self) -> str:
        return f"{self.recipe} / {self.workload}: {self.label} vs {self.against}"


def verdict_rows(groups: Sequence[WorkloadResults], margins: Mapping[str, float]) -> list[VerdictRow]:
    """In the order of the groups and their configurations. `margins`: recipe id -> its margin in % (margins_of);
    a recipe missing there has the default margin."""
    rows = []
    for group in groups:
        margin = margins.get(group.recipe, margin_of(None))
        for config in group.configs:
            verdict = config.verdict
            if verdict is None:
                continue
            low, high = verdict.ci if verdict.ci is not None else (None, None)
            rows.append(
                VerdictRow(
                    group.recipe,
                    group.workload,
                    config.label,
                    config.against or group.baseline_label,
                    verdict.ratio,
                    low,
                    high,
                    margin,
                    verdict.kind,
                    config.same_as_baseline is not None,
                    verdict.text,
                )
            )
    return rows


def margins_of(session: StoredSession, recipes: Mapping[str, Recipe]) -> dict[str, float]:
    """recipe id -> the margin its verdicts were judged with: the session's plan's, else the recipe's now (as
    results.summary judges them)."""
    # planned_margins reads the plan as the store keeps it (JSON text); the typed session has it parsed
    planned = planned_margins({"plan": json.dumps(session.plan) if session.plan else None})
    return {r: margin_of(recipes.get(r), planned.get(r)) for r in dict.fromkeys([*session.recipes, *planned])}
