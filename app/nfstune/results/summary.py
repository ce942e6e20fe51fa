"""A stored session as figures: per recipe and workload, each configuration's summary and its verdict against the
recipe's baseline; and two sessions side by side. Pure (no Qt, no I/O): the history page, the results page, the
text report and the HTML report all read the same figures and verdicts from here.

Values are the figure of every stored repeat that is not a warm-up (bench.figure), so the figures here are
exactly those the engine measured and the stop rule judged. Every comparison of a session is judged in ONE family
(statistics.verdict.judge, Holm-corrected): paired by round when the session stored its plan (the rounds were
interleaved), as independent samples for older sessions, whose repeat numbers are only a counter.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.bench.figure import figure
from nfstune.facts.model import HostFacts
from nfstune.nfs.export_options import split_options
from nfstune.nfs.mount_options import MountOptions
from nfstune.recipes.model import WORKLOADS, Config, Recipe, Rounds, recipe_facts
from nfstune.results.load_summary import (
    SeriesScaling,
    clients_order,
    is_clients_group,
    load_of,
    load_text,
    reference,
    scaling_lines,
    series_scaling,
    step_questions,
    step_verdicts,
)
from nfstune.statistics.stats import Summary, summarize
from nfstune.statistics.verdict import Question, Verdict, judge

# what /proc/mounts says that a recipe can change; the rest of its option list is noise next to the requested ones
NEGOTIATED_KEYS = ("vers", "rsize", "wsize", "nconnect")
DEFAULT_MARGIN_PERCENT = 5.0
WHY_MAX = 120  # characters of a recipe's expectation quoted in an A/A check's text


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


@dataclass(frozen=True)
class WorkloadResults:
    recipe: str
    workload: str
    unit: str
    higher_is_better: bool
    configs: list[ConfigResult]  # the baseline first, then the others in the order they ran
    baseline_label: str  # the configuration the others' verdicts compare with


def measured_rounds(run: Mapping[str, Any]) -> dict[int, float]:
    """Round -> figure. In a session with a plan the repeat's number is its round; in an older one a counter."""
    return {int(r["number"]): figure(run["workload"], r) for r in run["repeats"] if not r["warmup"]}


def judgeable(rounds: Mapping[int, float]) -> dict[int, float]:
    """The rounds whose figure can enter a speed ratio: a 0 (a repeat that moved no bytes, or too fast for the
    clock) has none, and is shown with the figures but left out of the verdict."""
    return {n: v for n, v in rounds.items() if math.isfinite(v) and v > 0}


def is_paired(session: Mapping[str, Any]) -> bool:
    """Whether the session ran interleaved rounds (it stored its plan), so that round N of two configurations
    ran side by side and may be compared pair by pair."""
    return bool(session.get("plan"))


def summarize_session(session: Mapping[str, Any], recipes: Mapping[str, Recipe] | None = None) -> list[WorkloadResults]:
    """Per recipe and workload (in the order they ran), each configuration's figures and its verdict against the
    baseline: the recipe's own baseline when it ran that workload, else a configuration labelled "baseline",
    else the first that ran. A configuration that ran twice counts with its last run. All comparisons of the
    session are judged together, as one family. A recipe run from several clients at once is compared as
    load_summary.py says (by client count, and step by step)."""
    return _Judged(session, recipes or {}).results()


def session_scaling(session: Mapping[str, Any], recipes: Mapping[str, Recipe] | None = None) -> list[SeriesScaling]:
    """Where adding a client stopped adding throughput, per recipe run from several clients, workload and series,
    judged in the same family as every other comparison of the session."""
    return _Judged(session, recipes or {}).scaling()


class _Judged:
    """A session's comparisons, asked and judged once as one family."""

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
        questions: list[Question] = []
        self.shapes = []  # per group: (recipe, workload, baseline, runs, rounds, why the same)
        for (recipe_id, workload), runs in runs_by_key.items():
            w = WORKLOADS[workload]
            recipe = recipes.get(recipe_id)
            baseline = baseline_of(recipe, runs)
            rounds = {label: measured_rounds(run) for label, run in runs.items()}
            margin = margin_of(recipe, margins.get(recipe_id))
            # the rounds after which the engine's stop rule could stop: the verdicts are judged as it judged them
            looks = looks_of(recipe, planned_looks.get(recipe_id)) if paired else None
            several = is_clients_group(runs)
            same: dict[str, str | None] = {}
            for label in runs:
                if label == baseline:
                    continue
                against = reference(runs, label, baseline) if several else baseline
                if against is None:
                    continue  # the baseline's own series: compared step by step (below)
                same[label] = _why_same(
                    recipe, label, self.options[(recipe_id, label)], self.options[(recipe_id, against)]
                )
                if judgeable(rounds[against]) and judgeable(rounds[label]):
                    questions.append(
                        Question(
                            key=(recipe_id, workload, label),
                            baseline=judgeable(rounds[against]),
                            other=judgeable(rounds[label]),
                            higher_is_better=w.higher_is_better,
                            names=(against, label),
                            margin_percent=margin,
                            expect_same=same[label] is not None,
                            why_same=same[label] or "",
                            paired=paired,
                            looks=looks,
                        )
                    )
            if several:
                judged = {label: judgeable(r) for label, r in rounds.items()}
                questions += step_questions(
                    recipe_id,
                    workload,
                    runs,
                    judged,
                    higher_is_better=w.higher_is_better,
                    margin_percent=margin,
                    looks=looks,
                )
            self.shapes.append((recipe_id, workload, baseline, runs, rounds, same))
        self.verdicts = {v.key: v for v in judge(questions)} if questions else {}

    def results(self) -> list[WorkloadResults]:
        found = []
        for recipe_id, workload, baseline, runs, rounds, same in self.shapes:
            w = WORKLOADS[workload]
            steps = step_verdicts(recipe_id, workload, runs, self.verdicts) if is_clients_group(runs) else {}
            configs = []
            for label, run in runs.items():
                values = list(rounds[label].values())
                opts = RunOptions.of(self.options[(recipe_id, label)])
                configs.append(
                    ConfigResult(
                        label=label,
                        values=values,
                        summary=summarize(values) if values else None,
                        requested=opts.requested,
                        negotiated=opts.negotiated,
                        export_options=opts.export,
                        verdict=self.verdicts.get((recipe_id, workload, label)) or steps.get(label),
                        status=run["status"],
                        rounds=rounds[label],
                        same_as_baseline=same.get(label),
                        settings=effective_settings(self.options[(recipe_id, label)]),
                    )
                )
            # the baseline leads, as in every table of results; several clients' runs then go series by series,
            # each in its client counts' order
            order = clients_order(runs, baseline) if is_clients_group(runs) else {}
            configs.sort(key=lambda c: (c.label != baseline, order.get(c.label, (0, 0))))
            found.append(WorkloadResults(recipe_id, workload, w.unit, w.higher_is_better, configs, baseline))
        return found

    def scaling(self) -> list[SeriesScaling]:
        found = []
        for recipe_id, workload, _, runs, rounds, _ in self.shapes:
            if is_clients_group(runs):
                judged = {label: judgeable(r) for label, r in rounds.items()}
                found += series_scaling(recipe_id, workload, WORKLOADS[workload].unit, runs, judged, self.verdicts)
        return found


def baseline_of(recipe: Recipe | None, runs: Mapping[str, Any]) -> str:
    """The configuration (label) a group of runs is compared with: the recipe's baseline when it ran, else one
    labelled "baseline", else the first that ran."""
    if recipe is not None and recipe.baseline in runs:
        return recipe.baseline
    return "baseline" if "baseline" in runs else next(iter(runs))


def margin_of(recipe: Recipe | None, planned: float | None = None) -> float:
    """The margin the session ran with (its stored plan), else the recipe's as it is now, else the default."""
    if planned is not None:
        return planned
    return recipe.rounds.margin_percent if recipe is not None else DEFAULT_MARGIN_PERCENT


def planned_margins(session: Mapping[str, Any]) -> dict[str, float]:
    """recipe id -> the margin stored in the session's plan (recipes.plan.plan_json); {} without a plan."""
    try:
        plan = json.loads(session.get("plan") or "{}")
        return {str(r["id"]): float(r["rounds"]["margin_percent"]) for r in plan.get("recipes", [])}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}  # a plan this version cannot read: the recipes' margins serve


def looks_of(recipe: Recipe | None, planned: tuple[int, int] | None = None) -> tuple[int, int]:
    """The first and last round after which the session could stop (statistics.verdict's looks): its stored plan's,
    else the recipe's as it is now, else the default rounds."""
    if planned is not None:
        return planned
    rounds = recipe.rounds if recipe is not None else Rounds()
    return rounds.min, rounds.max


def planned_rounds(session: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """recipe id -> (rounds.min, rounds.max) stored in the session's plan; {} without a plan."""
    try:
        plan = json.loads(session.get("plan") or "{}")
        return {str(r["id"]): (int(r["rounds"]["min"]), int(r["rounds"]["max"])) for r in plan.get("recipes", [])}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}  # a plan this version cannot read: the recipes' rounds serve


def _config(recipe: Recipe | None, label: str) -> Config | None:
    if recipe is None:
        return None
    return next((c for c in recipe.configs if c.label == label), None)


def _why_same(recipe: Recipe | None, label: str, run: Mapping[str, Any], base: Mapping[str, Any]) -> str | None:
    """Why `label` must measure as the baseline, or None when it may differ: the recipe says so (expect =
    "same"), or the settings in force were the baseline's (export options as stored, the mount's options as
    /proc/mounts showed them, read-ahead), so that any difference is the hosts', not the configuration's."""
    config = _config(recipe, label)
    if config is not None and config.expect == "same":
        return _expectation_reason(config.expectation or (recipe.expectation if recipe else None))
    shown = in_force(run)
    if shown is not None and _settings(run) == _settings(base):
        return f"the same settings were in force: {shown}"
    return None


def _settings(run: Mapping[str, Any]) -> tuple[object, ...]:
    # the whole /proc/mounts list, not only what in_force() shows: a user recipe may change any mount option
    config = run.get("config") or {}
    ahead = config.get("read_ahead_kb") if isinstance(config, Mapping) else None
    opts = RunOptions.of(run)
    return opts.export, frozenset(o.render() for o in opts.negotiated.options), ahead, load_of(run)


def effective_settings(run: Mapping[str, Any]) -> tuple[object, ...] | None:
    """What a configuration ran with, as two sessions are matched by it: the export's write mode (sync or async,
    write gathering or not), the negotiated vers/rsize/wsize/nconnect and the read-ahead. quick-check's baseline
    and sync-vs-async's "sync" ran with the same; a label says less. None when the export's or the mount's options
    were not read back (a session of an older nfstune)."""
    opts = RunOptions.of(run)
    essentials = negotiated_essentials(opts.negotiated)
    if not essentials or not opts.export:
        return None
    mode = "async" if "async" in opts.export else "sync"
    gathering = "no_wdelay" if "no_wdelay" in opts.export else "wdelay"
    config = run.get("config") or {}
    ahead = config.get("read_ahead_kb") if isinstance(config, Mapping) else None
    clients, threads = load_of(run)
    if clients is None and threads is None:
        return mode, gathering, essentials, ahead  # as sessions from before several clients were matched
    return mode, gathering, essentials, ahead, clients, threads


def _expectation_reason(text: str | None) -> str:
    """The reason of an expectation such as "No measurable difference expected on NFSv3/v4: current kernels apply
    write gathering to NFSv2 only, and ...": "current kernels apply write gathering to NFSv2 only"."""
    if not text:
        return "the recipe expects no difference"
    reason = text.split(": ", 1)[1] if ": " in text else text
    reason = re.split(r"[,.;]\s", " ".join(reason.split()), maxsplit=1)[0].rstrip(".")
    return reason if len(reason) <= WHY_MAX else reason[: WHY_MAX - 1].rstrip() + "…"


def in_force(run: Mapping[str, Any]) -> str | None:
    """What was actually in force for a run: the export's options as stored, the negotiated vers/rsize/wsize/
    nconnect, read-ahead; None when the mount's options were not read back (nothing to compare)."""
    opts = RunOptions.of(run)
    essentials = negotiated_essentials(opts.negotiated)
    if not essentials:
        return None
    parts = [f"mount {essentials}"]
    config = run.get("config") or {}
    ahead = config.get("read_ahead_kb") if isinstance(config, Mapping) else None
    if ahead is not None:
        parts.append(f"read_ahead_kb={ahead}")
    if opts.export:
        parts.append(f"export {','.join(opts.export)}")
    load = load_text(run)
    if load is not None:
        parts.append(load)
    return "; ".join(parts)


@dataclass(frozen=True)
class RunOptions:
    """What a run asked for and what was in force, parsed once from the text the store keeps."""

    requested: MountOptions
    negotiated: MountOptions
    export: tuple[str, ...]

    @classmethod
    def of(cls, run: Mapping[str, Any]) -> RunOptions:
        export = run["export_options"]
        return cls(
            MountOptions.parse(run["requested_options"] or ""),
            MountOptions.parse(run["negotiated_options"] or ""),
            tuple(split_options(export)) if export else (),
        )


def negotiated_essentials(negotiated: MountOptions, keys: Sequence[str] = NEGOTIATED_KEYS) -> str:
    """The options of /proc/mounts' list that a recipe can change, in the kernel's order: 'vers=4.2,rsize=8192';
    the transport too when it is not TCP ('proto=rdma'): a run over RDMA never matches one over TCP."""
    chosen = {
        o.name: o.render()
        for o in negotiated.options
        if o.name in keys or (o.name == "proto" and o.value not in (None, "tcp", "tcp6"))
    }
    return ",".join(chosen.values())


def negotiated_view(requested: MountOptions, negotiated: MountOptions) -> str:
    """'requested rsize=8192 · negotiated vers=4.2,rsize=8192,wsize=8192': what was asked for next to what the
    client and server agreed, which is what actually ran."""
    essentials = negotiated_essentials(negotiated)
    asked = f"requested {requested.render() or '(defaults)'}"
    return f"{asked} · negotiated {essentials}" if essentials else asked


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


def results_text(session: Mapping[str, Any], recipes: Mapping[str, Recipe] | None = None) -> str:
    """The session's results as `nfstune report` prints them: per recipe and workload each configuration's median,
    min and max, n, its verdict against the baseline (with the CI), and the requested and negotiated options."""
    groups = summarize_session(session, recipes)
    lines = [f"\nsession {session['id']}: {session['status']}"]
    family = next((c.verdict.family for g in groups for c in g.configs if c.verdict is not None), 0)
    if family:
        how = "paired by round" if is_paired(session) else "unpaired (a session from before interleaved rounds)"
        lines.append(f"verdicts: {how}; {family} comparisons corrected together (Holm)")
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
    scaling = session_scaling(session, recipes)
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
