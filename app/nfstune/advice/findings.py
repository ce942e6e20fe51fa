"""A stored session's findings, as the report, the CLI and the Results page show them above the detailed verdicts:
the answer in three lines and the diagnosis of each workload. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.advice.answer import Answer, answer
from nfstune.recipes.model import Recipe
from nfstune.results.diagnosis import Diagnosis
from nfstune.results.summary import WorkloadResults


@dataclass(frozen=True)
class Findings:
    answer: Answer
    diagnoses: list[Diagnosis]


def findings_of(
    groups: Sequence[WorkloadResults], diagnoses: list[Diagnosis], recipes: Mapping[str, Recipe]
) -> Findings:
    """`groups`: the session's figures and verdicts; `diagnoses`: what limits each workload
    (results.session_diagnosis)."""
    return Findings(answer(groups, diagnoses, recipes), diagnoses)


def answer_text(found: Findings) -> list[str]:
    return ["In three lines", *(f"  {line}" for line in found.answer.lines)]


def diagnosis_text(found: Findings) -> list[str]:
    """What limits each workload, and what could move it."""
    if not found.diagnoses:
        return []
    lines = ["What limits each workload (its baseline's median against the ceilings)"]
    for d in found.diagnoses:
        lines.append(f"  {d.recipe} / {d.workload}: {d.text}")
        if d.levers:
            lines.append(f"      could move it: {'; '.join(d.levers)}")
    return lines
