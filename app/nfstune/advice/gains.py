"""The measured gains behind a recommendation, kept as figures (not sentences) so that a page can say the biggest
one in a few words: "async was measured 4.3x faster on small files". Only settled "faster" verdicts count. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nfstune.bench.workloads import WORKLOADS, WorkloadId
from nfstune.statistics.verdict import Verdict, format_change

ASYNC = "async"  # the one gain that is only ever offered, never recommended


@dataclass(frozen=True)
class Gain:
    change: str  # what was measured, as the admin writes it: "async", "vers=3", "32 nfsd threads"
    workload: str
    ratio: float  # speed against what the admin has: above 1

    @property
    def words(self) -> str:
        """'4.3x faster on small files'."""
        return f"{format_change(self.ratio)} on {workload_noun(self.workload)}"


def workload_noun(workload: str) -> str:
    """'small files' for small-files; a workload nfstune does not know keeps its id."""
    try:
        return WORKLOADS[WorkloadId(workload)].noun or workload
    except ValueError:
        return workload


def faster(change: str, verdicts: Mapping[str, Verdict]) -> list[Gain]:
    """A gain for each workload `change` was measured faster on."""
    return [
        Gain(change, workload, v.ratio)
        for workload, v in verdicts.items()
        if v.kind == "faster" and v.ratio is not None
    ]


def biggest(gains: tuple[Gain, ...], *, offered: bool) -> Gain | None:
    """The largest gain of what the recommendation changes (`offered` False) or of async, the opt-in (True)."""
    found = [g for g in gains if (g.change == ASYNC) == offered]
    return max(found, key=lambda g: g.ratio) if found else None
