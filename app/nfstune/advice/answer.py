"""The answer in three lines, above the detailed verdicts: what to change (or that nothing should, and why), what
it gains with its interval, and what it risks. Made from the session's verdicts (Holm-corrected across the session:
only a settled "faster" is a gain) and the diagnosis of each workload (results/diagnosis.py). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.advice.next_steps import worth_running
from nfstune.advice.recommend import NEVER, PLAIN_RISK
from nfstune.recipes.model import Config, Recipe
from nfstune.results.changed import Changed, changed
from nfstune.results.diagnosis import Diagnosis, percent
from nfstune.results.summary import ConfigResult, WorkloadResults
from nfstune.statistics.verdict import Verdict, format_change


@dataclass(frozen=True)
class Answer:
    change: str
    gain: str
    risk: str

    @property
    def lines(self) -> tuple[str, str, str]:
        return (f"Change: {self.change}", f"Gain: {self.gain}", f"Risk: {self.risk}")


@dataclass(frozen=True)
class _Effect:
    recipe: str
    workload: str
    label: str
    baseline: str
    verdict: Verdict
    change: Changed  # what ran differently from the baseline (the export's options, the mount's)


def answer(groups: Sequence[WorkloadResults], diagnoses: Sequence[Diagnosis], recipes: Mapping[str, Recipe]) -> Answer:
    if not any(c.verdict is not None for g in groups for c in g.configs):
        # a first look (one configuration): what limits the hosts, and what is worth running next
        held = [d for d in diagnoses if d.bottleneck is not None]
        limit = f"these hosts are held by {_limits(held)}" if held else "nothing measured explains the figures"
        nxt = worth_running(diagnoses, {g.recipe for g in groups})
        return Answer(
            f"nothing to change from this alone: {limit}.",
            "run next: " + "; ".join(f"{r} ({why})" for r, why in nxt) + "."
            if nxt
            else "none expected from NFS settings.",
            "none taken: nothing was compared, and nothing on the hosts was changed.",
        )
    effects = [
        _Effect(
            g.recipe, g.workload, c.label, c.against or g.baseline_label, c.verdict, changed(c, g.config(c.against))
        )
        for g in groups
        for c in g.configs
        if c.verdict is not None and c.verdict.kind == "faster" and c.same_as_baseline is None
    ]
    # what nfstune never recommends (advice.recommend.NEVER: no_wdelay, soft, udp, noac...) is no answer, whatever
    # it measured: a no_wdelay "gain" on v3/v4 is noise or a fault of the measurement (its A/A check says which)
    refused = [e for e in effects if _never(e.change)]
    effects = [e for e in effects if e not in refused]
    if not effects and refused:
        never = refused[0]
        why = _never(never.change)
        return Answer(
            f"nothing: {never.label} measured faster, but nfstune does not recommend it ({why}).",
            f"{never.workload}: {never.verdict.text}; not worth what it risks.",
            "none taken: every change nfstune made was undone.",
        )
    # async is never the change by default (the recommendation keeps sync): a safe gain comes first, and async
    # alone is said as the opt-in it is
    unsafe = [e for e in effects if "async" in e.change.export]
    if effects and len(unsafe) == len(effects):
        best = max(unsafe, key=lambda e: (e.verdict.ci or (1.0, 1.0))[0])
        return Answer(
            f"keep sync (the recommended export); the one faster setting found is async ({best.recipe}: "
            f"{best.label} against {best.baseline}), only as an opt-in.",
            f"{best.workload}: {best.verdict.text}, if you opt in.",
            _risk(_config(recipes.get(best.recipe), best.label), best.change),
        )
    effects = [e for e in effects if e not in unsafe]
    if effects:
        # the surest gain: the highest lower bound of its interval
        best = max(effects, key=lambda e: (e.verdict.ci or (1.0, 1.0))[0])
        recipe = recipes.get(best.recipe)
        config = _config(recipe, best.label)
        base = _config(recipe, best.baseline)
        what = _what(config, base) if config is not None else best.label
        also = [e for e in effects if e.label == best.label and e.workload != best.workload]
        more = f"; also {', '.join(e.workload for e in also)}" if also else ""
        return Answer(
            f"{what} ({best.recipe}: {best.label} against {best.baseline}).",
            f"{best.workload}: {best.verdict.text}{more}.",
            _risk(config, best.change),
        )
    held = [d for d in diagnoses if d.bottleneck is not None]  # a figure held by a ceiling, a budget or a CPU
    if held:
        first = held[0]
        lever = first.levers[0] if first.levers else "changing the hardware that holds it"
        return Answer(
            f"nothing in NFS: these hosts are at their limit, which is {_limit(first)}.",
            f"none from NFS settings; only from {lever}.",
            "none: nothing to change.",
        )
    unsettled = [
        (g.workload, c, c.verdict)
        for g in groups
        for c in g.configs
        if c.verdict is not None and c.verdict.kind == "not settled" and c.same_as_baseline is None
    ]
    if unsettled:
        workload, unsure, closest = min(unsettled, key=lambda u: u[2].rounds_needed or 10**6)
        settle = closest.settle or "more rounds"
        return Answer(
            "nothing yet: no setting tried was measured faster with confidence.",
            f"not settled; the closest: {workload}, {_so_far(unsure, closest)}; {settle}.",
            "none: every change nfstune made was undone.",
        )
    return Answer(
        "nothing: no setting tried made a difference that matters here.",
        "none expected from these settings.",
        "none: every change nfstune made was undone.",
    )


def _config(recipe: Recipe | None, label: str) -> Config | None:
    if recipe is None:
        return None
    return next((c for c in recipe.configs if c.label == label), None)


def _what(config: Config, base: Config | None) -> str:
    """The change from the baseline, in the admin's words."""
    parts = []
    ours = config.mount.render().split(",") if config.mount.render() else []
    theirs = set(base.mount.render().split(",")) if base is not None and base.mount.render() else set()
    mount = [o for o in ours if o not in theirs]
    if mount:
        parts.append(f"mount with {','.join(mount)}")
    export = [o for o in config.export.set if base is None or o not in base.export.set]
    if export:
        parts.append(f"export with {','.join(export)}")
    if config.read_ahead_kb is not None:
        parts.append(f"read_ahead_kb {config.read_ahead_kb} on the client's mount")
    if config.nfsd_threads is not None:
        parts.append(f"{config.nfsd_threads} nfsd threads on the server")
    if config.filesystem is not None:
        parts.append(f"a {config.filesystem} filesystem under the export")
    text = " and ".join(parts) or f"use {config.label}"
    return text[0].upper() + text[1:]


def _risk(config: Config | None, change: Changed) -> str:
    if "async" in change.export:
        return f"{PLAIN_RISK} Only with a UPS on the server and data you can recreate."
    if config is None:
        return "see the recipe's warning."
    if config.filesystem is not None:
        return "moving the share to another filesystem is a migration of its own, with its own backup first."
    if config.nfsd_threads is not None:
        return "none to your data: each thread costs the server a little memory."
    if config.read_ahead_kb is not None:
        return "none to your data: the client's read-ahead uses a little more memory."
    return "none to your data: a mount option on the client, undone by taking it out of /etc/fstab."


def _latency(d: Diagnosis) -> bool:
    return d.bottleneck in ("disk flush", "network latency", "round trips")


def _limit(d: Diagnosis) -> str:
    """'the network (reads at 92 % of it)'."""
    share = f", {percent(d.share)} of it" if d.share is not None and not _latency(d) else ""
    return f"{d.bottleneck} ({d.workload}{share})"


def _so_far(config: ConfigResult, verdict: Verdict) -> str:
    """'vers=3 against baseline, 0.8 % slower so far' (the interval stays with the detailed verdict)."""
    who = f"{config.label} against {config.against}" if config.against else config.label
    return f"{who}, {format_change(verdict.ratio)} so far" if verdict.ratio is not None else who


def _never(change: Changed) -> str:
    """Why nfstune never recommends what a configuration changed ("" when it may)."""
    return next((NEVER[w] for w in change.words if w in NEVER), "")


NAMES = {"network": "the network", "server disk": "the server's disk", "disk flush": "the server disk's flush"}


def _limits(held: Sequence[Diagnosis]) -> str:
    """'the network (seq-write at 93 % of it, seq-read at 98 % of it) and the server disk's flush (sync-4k,
    small-files)'."""
    by: dict[str, list[str]] = {}
    for d in held:
        shown = d.share is not None and d.share <= 1 and not _latency(d)  # above 1: the ceiling measured low
        share = f" at {percent(d.share or 0)} of it" if shown else ""
        by.setdefault(d.bottleneck or "", []).append(f"{d.workload}{share}")
    return " and ".join(f"{NAMES.get(b, b)} ({', '.join(workloads)})" for b, workloads in by.items())
