"""A stored session's findings, as the report, the CLI and the Results page show them above the detailed verdicts:
the answer in three lines and the diagnosis of each workload. Reads the store (samples for the CPUs)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.advice.answer import Answer, answer
from nfstune.recipes.model import Recipe
from nfstune.results.busy import busy_cpus
from nfstune.results.ceilings import ceilings_of
from nfstune.results.diagnosis import Diagnosis, diagnose
from nfstune.results.summary import WorkloadResults
from nfstune.store import Results


@dataclass(frozen=True)
class Findings:
    answer: Answer
    diagnoses: list[Diagnosis]


def findings_of(
    results: Results, data: Mapping[str, Any], groups: Sequence[WorkloadResults], recipes: Mapping[str, Recipe]
) -> Findings:
    """`groups`: the session's figures and verdicts (summary.summarize_session); `results`: for the CPUs' samples."""
    try:
        sizes = (json.loads(data.get("plan") or "{}") or {}).get("sizes") or {}
    except (ValueError, AttributeError):
        sizes = {}
    files = sizes.get("small_file_count") if isinstance(sizes, dict) else None
    found = diagnose(groups, ceilings_of(data), files=files, busy=busy_cpus(results, data))
    return Findings(answer(groups, found, recipes), found)


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
