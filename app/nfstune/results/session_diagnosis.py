"""What limits each workload of a stored session (diagnosis.py), from the session as the store keeps it: its
ceilings, its plan's sizes and its CPUs' samples. Reads the store (the samples)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from nfstune.results.busy import busy_cpus
from nfstune.results.ceilings import ceilings_of
from nfstune.results.diagnosis import Diagnosis, diagnose
from nfstune.results.summary import WorkloadResults
from nfstune.store import Results


def session_diagnoses(results: Results, data: Mapping[str, Any], groups: Sequence[WorkloadResults]) -> list[Diagnosis]:
    """`data`: Results.session's; `groups`: its figures and verdicts (summary.summarize_session)."""
    try:
        sizes = (json.loads(data.get("plan") or "{}") or {}).get("sizes") or {}
    except (ValueError, AttributeError):
        sizes = {}
    files = sizes.get("small_file_count") if isinstance(sizes, dict) else None
    return diagnose(groups, ceilings_of(data), files=files, busy=busy_cpus(results, data))
