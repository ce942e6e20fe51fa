"""A stored session's figures and verdicts as `nfstune report` prints them (summary.py judges them), and the lines
each view shares: a verdict's sentence, the tail's (p99) beside it, a latency workload's other figures. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nfstune.bench.figure import TAIL_WORDS, Basis
from nfstune.recipes.model import Recipe
from nfstune.results.load_summary import SeriesScaling, scaling_lines
from nfstune.results.run_options import negotiated_essentials
from nfstune.results.summary import ConfigResult, WorkloadResults, family_words, judged_session, recipe_notes
from nfstune.results.writeback import late_heading, late_starts
from nfstune.store import StoredSession


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
        if group.judged_words:
            lines.append(f"  {group.judged_words}")
        width = max([14, *(len(c.label) for c in group.configs)])
        for c in group.configs:
            s = c.summary
            if s is None:
                lines.append(f"  {c.label:{width}} no completed repeats")
                continue
            lines.append(f"  {c.label:{width}} median {s.median:8.3g}  min {s.min:8.3g}  max {s.max:8.3g}  n={s.n}")
            beside = beside_words(group, c)
            if beside:
                lines.append(f"  {'':{width}} {beside}")
            lines += [f"  {'':{width}} {text}" for text in verdict_lines(c)]
            lines += [f"  {'':{width}} {text}" for text in tail_lines(c)]
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


def tail_lines(config: ConfigResult) -> list[str]:
    """The tail's (p99) verdict beside it: 'tail (p99): async is 2.1x faster than sync (...)'."""
    v = config.tail_verdict
    return [] if v is None else [f"{TAIL_WORDS}: {v.text}"]


def beside_words(group: WorkloadResults, config: ConfigResult) -> str | None:
    """A latency workload's other figures beside the one judged (medians over the rounds): 'mean 5.31 ms, p99
    48.2 ms'; None for a workload with one figure, or where the group is judged by its mean (nothing else kept)."""
    if group.basis is not Basis.TYPICAL:
        return None
    parts = []
    own, tail = config.own_summary, config.tail_summary
    if own is not None:
        parts.append(f"{group.mean_name} {own.median:.3g} {group.unit}")
    if tail is not None:
        parts.append(f"p99 {tail.median:.3g} {group.unit}")
    return ", ".join(parts) or None
