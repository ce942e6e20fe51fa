"""A stored session as figures: per recipe and workload, each configuration's summary and its verdict against the
recipe's baseline; and two sessions side by side. Pure (no Qt, no I/O): the history page, the results page, the
text report and the HTML report all read the same figures and verdicts from here.

Values are the figure of every stored repeat that is not a warm-up, on its group's basis (results/judged_figures.py:
sync-4k's typical write where its percentiles were kept, else its mean), so the figures here are exactly those the
engine measured and the stop rule judged. The comparisons are asked and judged as comparisons.py says, for the stop
rule too: a recipe is a family (Holm), paired by round when the session stored its plan (the rounds were
interleaved), as independent samples for older sessions, whose repeat numbers are only a counter. A latency
workload's tail (p99) is judged too, each recipe's tails a family of their own, shown beside the typical write's
verdict; the advice reads only `verdict`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nfstune.bench.figure import Basis
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
    tail_questions,
    workload_questions,
)
from nfstune.results.judged_figures import group_figures, run_figures
from nfstune.results.load_summary import (
    SeriesScaling,
    is_clients_group,
    series_scaling,
)
from nfstune.results.run_options import (
    RunOptions,
    effective_settings,
    export_set_of,
)
from nfstune.statistics.blocks import Block
from nfstune.statistics.stats import Summary, summarize
from nfstune.statistics.verdict import Question, Verdict


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
    # a latency workload (WorkloadResults.latency): round -> its mean (the unit rule's figure), and its tail (p99)
    # where it is judged by its typical write, with the tail's own verdict (a family of its own; never the advice's)
    own_rounds: dict[int, float] = field(default_factory=dict)
    tail_rounds: dict[int, float] = field(default_factory=dict)
    tail_verdict: Verdict | None = None

    @property
    def export_in_force(self) -> tuple[str, ...]:
        """The export's options as read back during the run, else those the configuration set."""
        return self.export_options or self.export_set

    @property
    def own_summary(self) -> Summary | None:
        return summarize(list(self.own_rounds.values())) if self.own_rounds else None

    @property
    def tail_summary(self) -> Summary | None:
        return summarize(list(self.tail_rounds.values())) if self.tail_rounds else None


@dataclass(frozen=True)
class WorkloadResults:
    recipe: str
    workload: str
    unit: str
    higher_is_better: bool
    configs: list[ConfigResult]  # the baseline first, then the others in the order they ran
    baseline_label: str  # the configuration the others' verdicts compare with
    basis: Basis = Basis.OWN  # what its figures are (bench.figure.judged_by)
    judged_words: str | None = None  # that, in the views' words; None for a workload with one figure
    mean_name: str = "mean"  # what its unit rule's figure is called beside it ("time per write served")

    @property
    def latency(self) -> bool:
        """A latency workload: its tables show the mean (and the tail, where kept) beside the figure judged."""
        return self.basis is not Basis.OWN

    def config(self, label: str | None) -> ConfigResult | None:
        return next((c for c in self.configs if c.label == label), None)


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
        hand_blocks = planned_blocks(session)
        families: dict[str, list[Question]] = {}
        tails: dict[str, list[Question]] = {}  # each recipe's tail (p99) questions: a family of their own
        self.shapes = []  # per group: (recipe, workload, baseline, runs, its figures, why the same)
        for (recipe_id, workload), runs in runs_by_key.items():
            recipe = recipes.get(recipe_id)
            figures = group_figures(workload, {label: run_figures(run) for label, run in runs.items()})
            # as the configuration's options, not the workload's run's: the last run of a configuration
            shown = {label: self.options[(recipe_id, label)] for label in runs}
            # the rounds after which the engine's stop rule could stop: the verdicts are judged as it judged them
            looks = looks_of(recipe, planned_looks.get(recipe_id)) if paired else None
            margin = margin_of(recipe, margins.get(recipe_id))
            questions, same = workload_questions(
                recipe_id,
                workload,
                shown,
                figures.judged,
                recipe,
                margin_percent=margin,
                looks=looks,
                paired=paired,
                steps=figures.own,
                blocks=hand_blocks.get(recipe_id),
            )
            families.setdefault(recipe_id, []).extend(questions)
            tails.setdefault(recipe_id, []).extend(
                tail_questions(
                    recipe_id, workload, shown, figures.tail, recipe, margin_percent=margin, looks=looks, paired=paired
                )
                if recipe_id not in hand_blocks  # a hand change's tails are not asked (session/rounds.py)
                else []
            )
            self.shapes.append((recipe_id, workload, baseline_of(recipe, runs), runs, figures, same))
        self.verdicts = judge_families(families.values())
        self.tail_verdicts = judge_families(tails.values())

    def results(self) -> list[WorkloadResults]:
        found = []
        for recipe_id, workload, baseline, runs, figures, same in self.shapes:
            w = WORKLOADS[workload]
            configs = []
            # the baseline leads, as in every table of results; several clients' runs then go series by series
            compared = config_verdicts(recipe_id, workload, runs, baseline, self.verdicts)
            tails = config_verdicts(recipe_id, workload, runs, baseline, self.tail_verdicts)
            rounds = figures.judged
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
                        own_rounds=figures.own[label] if figures.latency else {},
                        tail_rounds=figures.tail.get(label, {}),
                        tail_verdict=tails[label][1],
                    )
                )
            found.append(
                WorkloadResults(
                    recipe_id,
                    workload,
                    w.unit,
                    w.higher_is_better,
                    configs,
                    baseline,
                    figures.basis,
                    figures.words,
                    figures.mean_name,
                )
            )
        return found

    def scaling(self) -> list[SeriesScaling]:
        found = []
        for recipe_id, workload, _, runs, figures, _ in self.shapes:
            if is_clients_group(runs):
                # what the NAS served them all, as the steps were asked (comparisons.workload_questions)
                judged = {label: judgeable(r) for label, r in figures.own.items()}
                found += series_scaling(recipe_id, workload, WORKLOADS[workload].unit, runs, judged, self.verdicts)
        return found


def planned_margins(session: Mapping[str, Any]) -> dict[str, float]:
    """recipe id -> the margin stored in the session's plan (recipes.plan.plan_json); {} without a plan."""
    try:
        plan = json.loads(session.get("plan") or "{}")
        return {str(r["id"]): float(r["rounds"]["margin_percent"]) for r in plan.get("recipes", [])}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}  # a plan this version cannot read: the recipes' margins serve


def planned_blocks(session: Mapping[str, Any]) -> dict[str, list[Block]]:
    """recipe id -> the blocks of its guided hand change, as the plan laid them out (recipes.plan_text.plan_json);
    only recipes run as one. Blocks the admin stopped before have no figures: the judgement leaves them out."""
    try:
        plan = json.loads(session.get("plan") or "{}")
        return {
            str(r["id"]): [Block(str(label), tuple(int(n) for n in rounds)) for label, rounds in r["hand"]]
            for r in plan.get("recipes", [])
            if r.get("hand")
        }
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}


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
