"""A stored session's outcome, computed once: the typed session, its figures and verdicts (each recipe a family), the
scaling of a recipe run from several clients, the A/A checks, the diagnosis and the three-line answer, the caveats
and notes, and what the recommendation needs. The run's end, the CLI's report, `apply` and the HTML and JSON
reports render this one object instead of each judging the session again. Reads the store (the session, the CPUs'
samples)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nfstune.advice.findings import Findings, findings_of
from nfstune.advice.measured import measured_of
from nfstune.advice.recommend import Measured
from nfstune.recipes.loader import recipes_by_id
from nfstune.recipes.model import Recipe
from nfstune.results.check_text import check_answer
from nfstune.results.load_summary import SeriesScaling
from nfstune.results.session_view import session_view
from nfstune.results.summary import AACheck, WorkloadResults, aa_checks
from nfstune.store import Results, StoredSession


@dataclass(frozen=True)
class SessionOutcome:
    session_id: int
    session: StoredSession
    groups: list[WorkloadResults]  # per recipe and workload, each configuration's figures and verdict
    scaling: list[SeriesScaling]  # where another client stops adding throughput
    checks: list[AACheck]
    family: str | None  # how the verdicts were judged, in the report's words; None: nothing compared
    findings: Findings  # the answer in three lines and the diagnosis of each workload
    measured: Measured  # what the recommendation needs
    caveats: list[str]  # what the figures lack (no login on the server), each a sentence
    notes: dict[str, list[str]]  # recipe id -> its notes that hold on the session's hosts
    results_text: str  # the figures and verdicts as `nfstune report` prints them

    @property
    def async_measured(self) -> bool:
        """Whether a configuration of the session set async on the export (the recommendation page says so)."""
        return any("async" in c.export_set for g in self.groups for c in g.configs)

    @property
    def answer_lines(self) -> list[str]:
        """What the session answers, first: a check's word and lines (a check session measured one configuration,
        and its three lines would only suggest a first look's next recipe); else the three lines."""
        if self.session.checks is not None:
            return check_answer(self.session.checks, self.session.check_outcome)
        return list(self.findings.answer.lines)

    @property
    def judged(self) -> tuple[list[WorkloadResults], list[SeriesScaling]]:
        return self.groups, self.scaling


def session_outcome(results: Results, session_id: int, recipes: Mapping[str, Recipe] | None = None) -> SessionOutcome:
    """`recipes`: every recipe by id, whose margins and expectations the verdicts use (None: as on disk now).
    Raises KeyError when there is no such session."""
    known = recipes_by_id() if recipes is None else recipes
    view = session_view(results, session_id, known)
    groups = view.groups
    return SessionOutcome(
        session_id,
        view.session,
        groups,
        view.scaling,
        aa_checks(groups),
        view.family,
        findings_of(groups, view.diagnoses, known),
        measured_of(view.session, groups),
        view.caveats,
        view.notes,
        view.text,
    )


def session_findings(results: Results, session_id: int, recipes: Mapping[str, Recipe] | None = None) -> Findings:
    return session_outcome(results, session_id, recipes).findings
