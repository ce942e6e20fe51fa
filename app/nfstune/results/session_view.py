"""A stored session read once for every view: the typed session (store.stored), its figures and verdicts, the
diagnosis of each workload, the caveats, each recipe's notes and the results as `nfstune report` prints them. The
one place outside the store that reads Results.session's plain data for the views; advice.outcome builds the
session's outcome on it. Reads the store (the session, the CPUs' samples)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nfstune.recipes.model import Recipe
from nfstune.results.caveats import caveats
from nfstune.results.diagnosis import Diagnosis
from nfstune.results.load_summary import SeriesScaling
from nfstune.results.session_diagnosis import session_diagnoses
from nfstune.results.summary import WorkloadResults, family_words, judged_session, recipe_notes
from nfstune.results.summary_text import results_text
from nfstune.store import Results, StoredSession


@dataclass(frozen=True)
class SessionView:
    session: StoredSession
    groups: list[WorkloadResults]
    scaling: list[SeriesScaling]
    family: str | None  # how the verdicts were judged, in the report's words; None: nothing compared
    diagnoses: list[Diagnosis]
    caveats: list[str]  # what the figures lack (no login on the server), each a sentence
    notes: dict[str, list[str]]  # recipe id -> its notes that hold on the session's hosts, for each recipe judged
    text: str  # the figures and verdicts as `nfstune report` prints them (summary.results_text)


def session_view(results: Results, session_id: int, recipes: Mapping[str, Recipe]) -> SessionView:
    """Raises KeyError when there is no such session."""
    data = results.session(session_id)
    groups, scaling = judged_session(data, recipes)
    judged = dict.fromkeys(g.recipe for g in groups)
    return SessionView(
        StoredSession.of(data),
        groups,
        scaling,
        family_words(data, groups),
        session_diagnoses(results, data, groups),
        caveats(data),
        {recipe_id: recipe_notes(data, recipes.get(recipe_id)) for recipe_id in judged},
        results_text(data, recipes, (groups, scaling)),
    )
