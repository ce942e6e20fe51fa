"""The comparisons of a recipe, asked one way for its stop rule while it runs (session/rounds.py) and for every view
of the stored session (summary.py: the report, Results, History, the advice), and the one family rule they are
judged by.

The family rule: a recipe is a family. Its comparisons (each configuration against the baseline on each workload
both ran, and the client-count steps of a recipe run from several clients) are corrected together (Holm), as the
stop rule judged them when it stopped the recipe; two recipes of one session are two families. So a comparison the
stop rule called settled is the same verdict in every view. Pure (no Qt, no I/O).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from nfstune.recipes.model import WORKLOADS, Config, Recipe, Rounds
from nfstune.results.load_summary import (
    clients_order,
    is_clients_group,
    reference,
    step_labels,
    step_questions,
    step_verdicts,
)
from nfstune.results.run_options import in_force, settings_key
from nfstune.statistics.blocks import Block, block_question
from nfstune.statistics.verdict import Question, Verdict, judge
from nfstune.store import StoredRun

DEFAULT_MARGIN_PERCENT = 5.0
WHY_MAX = 120  # characters of a recipe's expectation quoted in an A/A check's text
# the family rule in the report's words
FAMILY_RULE = "a recipe is a family: its comparisons are corrected together (Holm), as its stop rule judged them"


def judgeable(rounds: Mapping[int, float]) -> dict[int, float]:
    """The rounds whose figure can enter a speed ratio: a 0 (a repeat that moved no bytes, or too fast for the
    clock) has none, and is shown with the figures but left out of the verdict."""
    return {n: v for n, v in rounds.items() if math.isfinite(v) and v > 0}


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


def looks_of(recipe: Recipe | None, planned: tuple[int, int] | None = None) -> tuple[int, int]:
    """The first and last round after which the session could stop (statistics.verdict's looks): its stored plan's,
    else the recipe's as it is now, else the default rounds."""
    if planned is not None:
        return planned
    rounds = recipe.rounds if recipe is not None else Rounds()
    return rounds.min, rounds.max


def planned_run(config: Config) -> dict[str, Any]:
    """A configuration as a run stores it before anything was read back from the hosts (what the stop rule knows of
    a run the store has not opened yet)."""
    return {
        "config": config.stored(),
        "requested_options": config.mount.render(),
        "negotiated_options": None,
        "export_options": None,
    }


def workload_questions(
    recipe_id: str,
    workload: str,
    runs: Mapping[str, Mapping[str, Any]],
    rounds: Mapping[str, Mapping[int, float]],
    recipe: Recipe | None,
    *,
    margin_percent: float,
    looks: tuple[int, int] | None,
    paired: bool,
    steps: Mapping[str, Mapping[int, float]] | None = None,
    blocks: Sequence[Block] | None = None,
) -> tuple[list[Question], dict[str, str | None]]:
    """The comparisons of one recipe on one workload: each configuration against the baseline (a recipe run from
    several clients: as load_summary.py says), and, per label compared, why it must measure as what it is compared
    with (an A/A check) or None. `runs`: label -> the run as stored (its options and configuration); `rounds`:
    label -> round -> the figure judged (results/judged_figures.py), warm-ups left out. `steps`: the figures the
    client-count steps of a recipe run from several clients are asked on, which is what the NAS served them all
    (sync-4k: the time per write served, not the typical write: whether another client adds writes a second);
    `rounds` when None. `blocks`: a guided hand change's (statistics/blocks.py): each configuration is judged on
    its block figures against the baseline's, not round by round."""
    w = WORKLOADS[workload]
    baseline = baseline_of(recipe, runs)
    several = is_clients_group(runs)
    questions: list[Question] = []
    same: dict[str, str | None] = {}
    for label in runs:
        if label == baseline:
            continue
        against = against_of(runs, label, baseline)
        if against is None:
            continue  # the baseline's own series: compared step by step (below)
        # changed by hand, the settings differ where nfstune cannot read them: only an expectation makes an A/A check
        same[label] = why_same(recipe, label, runs[label], runs[against], read_back=blocks is None)
        base, other = judgeable(rounds.get(against, {})), judgeable(rounds.get(label, {}))
        if blocks is not None:
            questions.append(
                block_question(
                    (recipe_id, workload, label),
                    (against, label),
                    {against: base, label: other},
                    blocks,
                    higher_is_better=w.higher_is_better,
                    margin_percent=margin_percent,
                    expect_same=same[label] is not None,
                    why_same=same[label] or "",
                )
            )
        elif base and other:
            questions.append(
                Question(
                    key=(recipe_id, workload, label),
                    baseline=base,
                    other=other,
                    higher_is_better=w.higher_is_better,
                    names=(against, label),
                    margin_percent=margin_percent,
                    expect_same=same[label] is not None,
                    why_same=same[label] or "",
                    paired=paired,
                    looks=looks,
                )
            )
    if several:
        judged = {label: judgeable(r) for label, r in (rounds if steps is None else steps).items()}
        questions += step_questions(
            recipe_id,
            workload,
            runs,
            judged,
            higher_is_better=w.higher_is_better,
            margin_percent=margin_percent,
            looks=looks,
        )
    return questions, same


def compared_labels(
    recipe_id: str,
    workload: str,
    runs: Mapping[str, Mapping[str, Any]],
    rounds: Mapping[str, Mapping[int, float]],
    recipe: Recipe | None,
) -> dict[tuple[str, ...], tuple[str, str]]:
    """The key of each comparison workload_questions asks on one workload -> (the configuration it is compared
    with, the configuration): the two runs whose figures it judges (what session/skipping.py stops measuring once
    it is settled)."""
    baseline = baseline_of(recipe, runs)
    found: dict[tuple[str, ...], tuple[str, str]] = {}
    for label in runs:
        against = against_of(runs, label, baseline) if label != baseline else None
        if against is not None:
            found[(recipe_id, workload, label)] = (against, label)
    if is_clients_group(runs):
        found |= step_labels(recipe_id, workload, runs, {label: judgeable(r) for label, r in rounds.items()})
    return found


def tail_questions(
    recipe_id: str,
    workload: str,
    runs: Mapping[str, Mapping[str, Any]],
    tails: Mapping[str, Mapping[int, float]],
    recipe: Recipe | None,
    *,
    margin_percent: float,
    looks: tuple[int, int] | None,
    paired: bool,
) -> list[Question]:
    """The tail's (p99) comparisons of a latency workload judged by its typical write: each configuration against
    what its typical write is compared with, on the same rounds, looks and margin, an A/A check as there. They are
    a family of their own (a recipe's tails together: the tail verdict's own Holm), reported beside the typical
    write's verdict and never read by the stop rule or the advice. No client-count steps: those ask what the NAS
    served, which a percentile does not tell."""
    if not tails:
        return []
    questions, _ = workload_questions(
        recipe_id,
        workload,
        runs,
        tails,
        recipe,
        margin_percent=margin_percent,
        looks=looks,
        paired=paired,
        steps={},
    )
    return questions


def against_of(runs: Mapping[str, Mapping[str, Any]], label: str, baseline: str) -> str | None:
    """The configuration `label` is compared with: the baseline; in a recipe run from several clients, the one of
    its client count in the baseline's series (None for that series' own steps, compared step by step)."""
    return reference(runs, label, baseline) if is_clients_group(runs) else baseline


def config_verdicts(
    recipe_id: str,
    workload: str,
    runs: Mapping[str, Mapping[str, Any]],
    baseline: str,
    verdicts: Mapping[tuple[str, ...], Verdict],
) -> dict[str, tuple[str | None, Verdict | None]]:
    """label -> (what its verdict compares it with, that verdict) for each configuration of one workload, in the
    order a table of results shows them (the baseline first; several clients' runs series by series): the
    configuration's own comparison, else the step that added its client (k-1 -> k). The baseline compares with
    nothing (None)."""
    several = is_clients_group(runs)
    steps = step_verdicts(recipe_id, workload, runs, verdicts) if several else {}
    order = clients_order(runs, baseline) if several else {}
    labels = sorted(runs, key=lambda label: (label != baseline, order.get(label, (0, 0))))
    return {
        label: (
            None if label == baseline else against_of(runs, label, baseline),
            verdicts.get((recipe_id, workload, label)) or steps.get(label),
        )
        for label in labels
    }


def judge_families(families: Iterable[list[Question]]) -> dict[tuple[str, ...], Verdict]:
    """Each recipe's questions judged as one family (the rule above)."""
    return {v.key: v for questions in families if questions for v in judge(questions)}


def config_of(recipe: Recipe | None, label: str) -> Config | None:
    if recipe is None:
        return None
    return next((c for c in recipe.configs if c.label == label), None)


def why_same(
    recipe: Recipe | None, label: str, run: Mapping[str, Any], base: Mapping[str, Any], *, read_back: bool = True
) -> str | None:
    """Why `label` must measure as the baseline, or None when it may differ: the configuration says so (expect =
    "same", as the run stored it, else as the recipe says now), or the settings in force were the baseline's
    (export options as stored, the mount's options as /proc/mounts showed them, read-ahead), so that any
    difference is the hosts', not the configuration's. `read_back` False: what was in force is not what nfstune read
    (a guided hand change: the admin changed the NAS), so only the expectation counts."""
    config = config_of(recipe, label)
    stored = run.get("config")
    expect = stored.get("expect") if isinstance(stored, Mapping) else None
    if expect is None and config is not None:
        expect = config.expect
    if expect == "same":
        return _expectation_reason(config.expectation if config is not None else None, recipe)
    shown = in_force(run) if read_back else None
    if shown is not None and settings_key(run) == settings_key(base):
        return f"the same settings were in force: {shown}"
    return None


def _expectation_reason(text: str | None, recipe: Recipe | None) -> str:
    """The reason of an expectation such as "No measurable difference expected on NFSv3/v4: current kernels apply
    write gathering to NFSv2 only, and ...": "current kernels apply write gathering to NFSv2 only"."""
    text = text or (recipe.expectation if recipe is not None else None)
    if not text:
        return "the recipe expects no difference"
    reason = text.split(": ", 1)[1] if ": " in text else text
    reason = re.split(r"[,.;]\s", " ".join(reason.split()), maxsplit=1)[0].rstrip(".")
    return reason if len(reason) <= WHY_MAX else reason[: WHY_MAX - 1].rstrip() + "…"


def stored_run(run: StoredRun) -> dict[str, Any]:
    """A run the store opened, as the comparisons read a run: planned_run's configuration with the options read back
    from the hosts (what the stop rule tells an A/A check by, as the report does)."""
    config = run.config
    return {
        "config": {
            "mount": config.mount,
            "export_set": list(config.export_set),
            "read_ahead_kb": config.read_ahead_kb,
            "expect": config.expect,
            "clients": config.clients,
            "nfsd_threads": config.nfsd_threads,
        },
        "requested_options": run.requested_options,
        "negotiated_options": run.negotiated_options,
        "export_options": run.export_options,
    }
