"""What the advice needs from a stored session (advice.recommend.Measured): the verdicts the report shows (each
recipe a family), by workload, found by what ran (results/changed.py: the export's options as stored, the mount
options asked for), whatever the configurations are called. Pure."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from nfstune.advice.recommend import Measured
from nfstune.advice.threads import threads_finding
from nfstune.results.changed import Changed, changed
from nfstune.results.run_options import RunOptions
from nfstune.results.summary import WorkloadResults
from nfstune.statistics.verdict import Verdict
from nfstune.store import StoredSession


def measured_of(stored: StoredSession, groups: Sequence[WorkloadResults]) -> Measured:
    """`groups`: the session's figures and verdicts (summary.summarize_session)."""
    negotiated_rsize = None
    for run in stored.runs:
        opts = RunOptions.of_stored(run)
        granted = opts.negotiated.get("rsize")
        if granted is not None and granted.isdigit() and not opts.requested.has("rsize"):
            negotiated_rsize = int(granted)
    facts = json.loads(stored.server_facts or "{}")
    best_version, version_reason, version_verdicts = _best_version(groups)
    return Measured(
        async_vs_sync=_verdicts(groups, _turns_async),
        no_wdelay=_verdicts(groups, _turns_off_gathering),
        negotiated_rsize=negotiated_rsize,
        server_max_block_size=facts.get("nfsd_max_block_size"),
        best_version=best_version,
        version_reason=version_reason,
        version_verdicts=version_verdicts,
        threads=threads_finding(groups, stored.runs),
        own_threads=facts.get("nfsd_threads"),
    )


def _turns_async(change: Changed) -> bool:
    return "async" in change.export


def _turns_off_gathering(change: Changed) -> bool:
    return "no_wdelay" in change.export and "async" not in change.export


def _verdicts(groups: Sequence[WorkloadResults], knob: Callable[[Changed], bool]) -> dict[str, Verdict]:
    """workload -> the verdict of a configuration whose change against its recipe's baseline is the knob; where
    several recipes measured it, the one of the most rounds (the first that ran of those)."""
    found: dict[str, Verdict] = {}
    for group in groups:
        base = group.config(group.baseline_label)
        for config in group.configs:
            if config.verdict is None or config.against != group.baseline_label:
                continue  # the baseline, or a step or series of a recipe run from several clients
            if not knob(changed(config, base)):
                continue
            held = found.get(group.workload)
            if held is None or config.verdict.n > held.n:
                found[group.workload] = config.verdict
    return found


def _best_version(groups: Sequence[WorkloadResults]) -> tuple[str | None, str | None, dict[str, Verdict]]:
    """An NFS version measured faster than the baseline's on some workload and slower on none (an unreliable or
    unsettled comparison counts as neither), with the verdicts that say so, in words and by workload; (None, None,
    {}) keeps the version."""
    by_version: dict[str, list[tuple[str, Verdict]]] = {}
    for group in groups:
        base = group.config(group.baseline_label)
        base_vers = base.negotiated.get("vers") if base is not None else None
        for config in group.configs:
            vers = config.negotiated.get("vers")
            if config.verdict is None or vers is None or base_vers is None or vers == base_vers:
                continue
            if changed(config, base).vers is None:
                continue  # another knob, which happened to negotiate another version
            by_version.setdefault(vers, []).append((group.workload, config.verdict))
    candidates = [
        (sum(v.kind == "faster" for _, v in found), vers, found)
        for vers, found in by_version.items()
        if any(v.kind == "faster" for _, v in found) and not any(v.kind == "slower" for _, v in found)
    ]
    if not candidates:
        return None, None, {}
    _count, vers, found = max(candidates, key=lambda c: c[0])
    quoted = "; ".join(f"{workload}: {v.text}" for workload, v in found if v.kind == "faster")
    return vers, f"measured faster: {quoted}", dict(found)
