"""A stored session as figures: per recipe and workload, each configuration's summary and its verdict against the
recipe's baseline; and two sessions side by side. Pure (no Qt, no I/O): the history page, the results page, the
text report and the HTML report all read the same figures and verdicts from here.

Values are the figure of every stored repeat that is not a warm-up (bench.figure), so the figures here are
exactly those the engine measured and the stop rule judged. The comparisons are asked and judged as
comparisons.py says, for the stop rule too: a recipe is a family (Holm), paired by round when the session stored
its plan (the rounds were interleaved), as independent samples for older sessions, whose repeat numbers are only a
counter.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.bench.figure import figure
from nfstune.facts.model import HostFacts
from nfstune.nfs.mount_options import MountOptions
from nfstune.recipes.model import WORKLOADS, Recipe, recipe_facts
from nfstune.results.comparisons import (
    FAMILY_RULE,
    baseline_of,
    config_verdicts,
    judge_families,
    judgeable,
    looks_of,
    margin_of,
    workload_questions,
)
from nfstune.results.load_summary import (
    SeriesScaling,
    is_clients_group,
    scaling_lines,
    series_scaling,
)
from nfstune.results.run_options import (
    RunOptions,
    effective_settings,
    export_set_of,
    negotiated_essentials,
)
from nfstune.results.writeback import late_heading, late_starts
from nfstune.statistics.stats import Summary, summarize
from nfstune.statistics.verdict import Question, Verdict
from nfstune.store import StoredSession


@dataclass(frozen=True)
class ConfigResult:
    label: str
    values: list[float]  # one figure per measured repeat, warm-ups left out
    summary: Summary | None  # None when no repeat completed
    requested: MountOptions  # mount options nfstune asked for (none: the defaults)
    negotiated: MountOptions  # the mount's options as /proc/mounts showed them (none when not read back)
    export_options: tuple[str, ...]  # the export's options during the run (server-side recipes; else none)
    verdict: Verdict | None  # against the baseline; None for the baseline itself or when nothing was measured
    status: str | None  # the run's status ("completed", "failed", ...); None while it runs
    rounds: dict[int, float]  # round (the repeat's number) -> figure, warm-ups left out
    same_as_baseline: str | None = None  # why this is an A/A check (expected to measure as the baseline); else None
    settings: tuple[object, ...] | None = None  # what was in force (effective_settings); None when not read back
    # the configuration its verdict compares it with (the baseline; in a recipe run from several clients the one
    # of its client count in the baseline's series); None for the baseline and the steps of its series
    against: str | None = None
    export_set: tuple[str, ...] = ()  # the export options the configuration set, as the run stored them

    @property
    def export_in_force(self) -> tuple[str, ...]:
        """The export's options as read back during the run, else those the configuration set."""
        return self.export_options or self.export_set


@dataclass(frozen=True)
class WorkloadResults:
    recipe: str
    workload: str
    unit: str
    higher_is_better: bool
    configs: list[ConfigResult]  # the baseline first, then the others in the order they ran
    baseline_label: str  # the configuration the others' verdicts compare with

    def config(self, label: str | None) -> ConfigResult | None:
        return next((c for c in self.configs if c.label == label), None)


def measured_rounds(run: Mapping[str, Any]) -> dict[int, float]:
    """Round -> figure. In a session with a plan the repeat's number is its round; in an older one a counter."""
    return {int(r["number"]): figure(run["workload"], r) for r in run["repeats"] if not r["warmup"]}


def is_paired(session: Mapping[str, Any]) -> bool:
    """Whether the session ran interleaved rounds (it stored its plan), so that round N of two configurations
    ran side by side and may be compared pair by pair."""
    return bool(session.get("plan"))


def summarize_session(session: Mapping[str, Any], recipes: Mapping[str, Recipe] | None = None) -> list[WorkloadResults]:
    """Per recipe and workload (in the order they ran), each configuration's figures and its verdict against the
    baseline: the recipe's own baseline when it ran that workload, else a configuration labelled "baseline",
    else the first that ran. A configuration that ran twice counts with its last run. Each recipe's comparisons
    are one family (comparisons.py). A recipe run from several clients at once is compared as load_summary.py
    says (by client count, and step by step)."""
    return _Judged(session, recipes or {}).results()


def session_scaling(session: Mapping[str, Any], recipes: Mapping[str, Recipe] | None = None) -> list[SeriesScaling]:
    """Where adding a client stopped adding throughput, per recipe run from several clients, workload and series,
    judged in the same family as the recipe's other comparisons."""
    return _Judged(session, recipes or {}).scaling()


def judged_session(
    session: Mapping[str, Any], recipes: Mapping[str, Recipe] | None = None
) -> tuple[list[WorkloadResults], list[SeriesScaling]]:
    """summarize_session and session_scaling from one judgement of the session."""
    judged = _Judged(session, recipes or {})
    return judged.results(), judged.scaling()


def family_words(session: Mapping[str, Any], groups: Sequence[WorkloadResults]) -> str | None:
    """How the verdicts were judged, in the report's words; None when nothing was compared."""
    if not any(c.verdict is not None for g in groups for c in g.configs):
        return None
    how = "paired by round" if is_paired(session) else "unpaired (a session from before interleaved rounds)"
    return f"{how}; {FAMILY_RULE}"


class _Judged:
    """A session's comparisons, asked as comparisons.py asks them and judged once, a recipe a family."""

    def __init__(self, session: Mapping[str, Any], recipes: Mapping[str, Recipe]) -> None:
        runs_by_key: dict[tuple[str, str], dict[str, Mapping[str, Any]]] = {}
        for run in session["runs"]:
            runs_by_key.setdefault((run["recipe"], run["workload"]), {})[run["config_label"]] = run
        # options belong to the configuration, not to the workload: the last run of a configuration tells them
        self.options: dict[tuple[str, str], Mapping[str, Any]] = {
            (r["recipe"], r["config_label"]): r for r in session["runs"]
        }
        paired = is_paired(session)
        margins = planned_margins(session)
        planned_looks = planned_rounds(session)
        families: dict[str, list[Question]] = {}
        self.shapes = []  # per group: (recipe, workload, baseline, runs, rounds, why the same)
        for (recipe_id, workload), runs in runs_by_key.items():
            recipe = recipes.get(recipe_id)
            rounds = {label: measured_rounds(run) for label, run in runs.items()}
            # as the configuration's options, not the workload's run's: the last run of a configuration
            shown = {label: self.options[(recipe_id, label)] for label in runs}
            # the rounds after which the engine's stop rule could stop: the verdicts are judged as it judged them
            looks = looks_of(recipe, planned_looks.get(recipe_id)) if paired else None
            questions, same = workload_questions(
                recipe_id,
                workload,
                shown,
                rounds,
                recipe,
                margin_percent=margin_of(recipe, margins.get(recipe_id)),
                looks=looks,
                paired=paired,
            )
            families.setdefault(recipe_id, []).extend(questions)
            self.shapes.append((recipe_id, workload, baseline_of(recipe, runs), runs, rounds, same))
        self.verdicts = judge_families(families.values())

    def results(self) -> list[WorkloadResults]:
        found = []
        for recipe_id, workload, baseline, runs, rounds, same in self.shapes:
            w = WORKLOADS[workload]
            configs = []
            # the baseline leads, as in every table of results; several clients' runs then go series by series
            compared = config_verdicts(recipe_id, workload, runs, baseline, self.verdicts)
            for label, (against, verdict) in compared.items():
                values = list(rounds[label].values())
                stored = self.options[(recipe_id, label)]
                opts = RunOptions.of(stored)
                configs.append(
                    ConfigResult(
                        label=label,
                        values=values,
                        summary=summarize(values) if values else None,
                        requested=opts.requested,
                        negotiated=opts.negotiated,
                        export_options=opts.export,
                        verdict=verdict,
                        status=runs[label]["status"],
                        rounds=rounds[label],
                        same_as_baseline=same.get(label),
                        settings=effective_settings(stored),
                        against=against,
                        export_set=export_set_of(stored),
                    )
                )
            found.append(WorkloadResults(recipe_id, workload, w.unit, w.higher_is_better, configs, baseline))
        return found

    def scaling(self) -> list[SeriesScaling]:
        found = []
        for recipe_id, workload, _, runs, rounds, _ in self.shapes:
            if is_clients_group(runs):
                judged = {label: judgeable(r) for label, r in rounds.items()}
                found += series_scaling(recipe_id, workload, WORKLOADS[workload].unit, runs, judged, self.verdicts)
        return found


def planned_margins(session: Mapping[str, Any]) -> dict[str, float]:
    """recipe id -> the margin stored in the session's plan (recipes.plan.plan_json); {} without a plan."""
    try:
        plan = json.loads(session.get("plan") or "{}")
        return {str(r["id"]): float(r["rounds"]["margin_percent"]) for r in plan.get("recipes", [])}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}  # a plan this version cannot read: the recipes' margins serve


def planned_rounds(session: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """recipe id -> (rounds.min, rounds.max) stored in the session's plan; {} without a plan."""
    try:
        plan = json.loads(session.get("plan") or "{}")
        return {str(r["id"]): (int(r["rounds"]["min"]), int(r["rounds"]["max"])) for r in plan.get("recipes", [])}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}  # a plan this version cannot read: the recipes' rounds serve


def recipe_notes(session: Mapping[str, Any], recipe: Recipe | None) -> list[str]:
    """The recipe's own notes (its [[notes]]) whose condition holds on the session's hosts, with their {fact}
    placeholders filled from the facts the session stored."""
    if recipe is None or not recipe.notes:
        return []
    facts = recipe_facts(_stored_facts(session.get("server_facts")), _stored_facts(session.get("client_facts")))
    return [text for note in recipe.notes if (text := note.render(facts)) is not None]


def _stored_facts(text: object) -> HostFacts | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return HostFacts.from_json(text)
    except (ValueError, TypeError, KeyError):  # a session stored by an older nfstune: its notes need no facts
        return None


def results_text(
    session: Mapping[str, Any],
    recipes: Mapping[str, Recipe] | None = None,
    judged: tuple[list[WorkloadResults], list[SeriesScaling]] | None = None,
) -> str:
    """The session's results as `nfstune report` prints them: per recipe and workload each configuration's median,
    min and max, n, its verdict against the baseline (with the CI), and the requested and negotiated options."""
    groups, scaling = judged or judged_session(session, recipes)
    late = late_starts(StoredSession.of(session).runs)
    lines = [f"\nsession {session['id']}: {session['status']}"]
    family = family_words(session, groups)
    if family:
        lines.append(f"verdicts: {family}")
    for group in groups:
        better = "higher" if group.higher_is_better else "lower"
        lines.append(
            f"\n{group.recipe} / {group.workload} ({group.unit}, {better} is better; against {group.baseline_label})"
        )
        width = max([14, *(len(c.label) for c in group.configs)])
        for c in group.configs:
            s = c.summary
            if s is None:
                lines.append(f"  {c.label:{width}} no completed repeats")
                continue
            lines.append(f"  {c.label:{width}} median {s.median:8.3g}  min {s.min:8.3g}  max {s.max:8.3g}  n={s.n}")
            lines += [f"  {'':{width}} {text}" for text in verdict_lines(c)]
            essentials = negotiated_essentials(c.negotiated)
            if essentials:
                lines.append(
                    f"  {'':{width}} requested {c.requested.render() or '(defaults)'}; negotiated {essentials}"
                )
        started_late = late.get((group.recipe, group.workload), [])
        if started_late:
            lines.append(f"  {late_heading(len(started_late))}:")
            lines += [f"    - {text}" for text in started_late]
    if scaling:
        lines.append("\nseveral clients at once: where another client stops adding throughput (same family)")
        lines += scaling_lines(scaling)
    for recipe_id in dict.fromkeys(g.recipe for g in groups):
        notes = recipe_notes(session, (recipes or {}).get(recipe_id))
        if notes:
            lines.append(f"\n{recipe_id}: notes")
            lines += [f"  - {note}" for note in notes]
    return "\n".join(lines)


def verdict_lines(config: ConfigResult) -> list[str]:
    """The verdict's sentence, and what would settle it when it is not settled."""
    v = config.verdict
    if v is None:
        return []
    return [v.text] + ([v.settle] if v.settle else [])


@dataclass(frozen=True)
class AACheck:
    """A configuration expected to measure as its baseline (an A/A check of the measurement itself)."""

    recipe: str
    workload: str
    label: str
    why: str  # why it must measure the same
    verdict: Verdict

    @property
    def text(self) -> str:
        return f"{self.recipe} / {self.workload}: {self.verdict.text}"


def aa_checks(groups: Sequence[WorkloadResults]) -> list[AACheck]:
    """Every comparison that is an A/A check: the recipe expects no difference, or the same settings were in
    force as for the baseline. One that shows an effect says the measurement is unreliable on these hosts."""
    return [
        AACheck(g.recipe, g.workload, c.label, c.same_as_baseline, c.verdict)
        for g in groups
        for c in g.configs
        if c.same_as_baseline is not None and c.verdict is not None
    ]


def aa_summary(checks: Sequence[AACheck]) -> str:
    """One sentence on the session's A/A checks."""
    broken = [c for c in checks if c.verdict.kind == "unreliable"]
    if broken:
        return (
            f"{len(broken)} of {len(checks)} A/A checks came out different where nothing differed: the measurement "
            "is not reliable on these hosts for effects of that size"
        )
    unsettled = [c for c in checks if not c.verdict.settled]
    if unsettled:
        return (
            f"{len(checks) - len(unsettled)} of {len(checks)} A/A checks measured no difference that matters; "
            f"{len(unsettled)} not settled"
        )
    return f"all {len(checks)} A/A checks measured no difference that matters"
