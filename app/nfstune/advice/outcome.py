"""A stored session's outcome, computed once: its figures and verdicts (each recipe a family), the scaling of a
recipe run from several clients, the A/A checks, the diagnosis and the three-line answer, and what the
recommendation needs. The run's end, the CLI's report and the HTML and JSON reports render this one object instead
of each judging the session again. Reads the store (the session, the CPUs' samples)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nfstune.advice.findings import Findings, findings_of
from nfstune.advice.measured import measured_of
from nfstune.advice.recommend import Measured
from nfstune.recipes.loader import recipes_by_id
from nfstune.recipes.model import Recipe
from nfstune.results.load_summary import SeriesScaling
from nfstune.results.session_diagnosis import session_diagnoses
from nfstune.results.summary import AACheck, WorkloadResults, aa_checks, family_words, judged_session
from nfstune.store import Results, StoredSession


@dataclass(frozen=True)
class SessionOutcome:
    session_id: int
    groups: list[WorkloadResults]  # per recipe and workload, each configuration's figures and verdict
    scaling: list[SeriesScaling]  # where another client stops adding throughput
    checks: list[AACheck]
    family: str | None  # how the verdicts were judged, in the report's words; None: nothing compared
    findings: Findings  # the answer in three lines and the diagnosis of each workload
    measured: Measured  # what the recommendation needs

    @property
    def async_measured(self) -> bool:
        """Whether a configuration of the session set async on the export (the recommendation page says so)."""
        return any("async" in c.export_set for g in self.groups for c in g.configs)

    @property
    def judged(self) -> tuple[list[WorkloadResults], list[SeriesScaling]]:
        return self.groups, self.scaling


def session_outcome(results: Results, session_id: int, recipes: Mapping[str, Recipe] | None = None) -> SessionOutcome:
    """`recipes`: every recipe by id, whose margins and expectations the verdicts use (None: as on disk now)."""
    data = results.session(session_id)
    known = recipes_by_id() if recipes is None else recipes
    groups, scaling = judged_session(data, known)
    return SessionOutcome(
        session_id,
        groups,
        scaling,
        aa_checks(groups),
        family_words(data, groups),
        findings_of(groups, session_diagnoses(results, data, groups), known),
        measured_of(StoredSession.of(data), groups),
    )


def session_findings(results: Results, session_id: int, recipes: Mapping[str, Recipe] | None = None) -> Findings:
    return session_outcome(results, session_id, recipes).findings
