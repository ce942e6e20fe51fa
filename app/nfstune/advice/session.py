"""The advice a stored session gives: what it measured, as the advice needs it (its verdicts, by workload), and
the recommendation built from that and the admin's own configuration. That configuration is read from the hosts
once the session's changes are undone and kept with the session, so that a report written later (`nfstune
report`, History's export) holds the same recommendation as the desktop showed. No I/O but the store."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.advice.recommend import DEFAULT_MOUNT_POINT, Measured, Recommendation, recommend
from nfstune.advice.threads import threads_finding
from nfstune.errors import ConfigError
from nfstune.recipes.loader import recipes_by_id
from nfstune.recipes.model import Recipe
from nfstune.results.changed import Changed, changed
from nfstune.results.run_options import RunOptions
from nfstune.results.summary import WorkloadResults, summarize_session
from nfstune.statistics.verdict import Verdict
from nfstune.store import Results


@dataclass(frozen=True)
class CurrentConfig:
    """The admin's own configuration as it is after a session's changes were undone: the recommendation edits
    it."""

    exports: dict[str, str] | None  # every exports file of the server, path -> text; None: no login to read them
    fstab: str | None  # the client's /etc/fstab; None when it has none (or no client was read)
    nfs_conf: dict[str, str] | None = None  # the server's nfs.conf files, path -> text; None: not read
    # the addresses the client resolves the server's name to (an fstab entry may name it by one of them)
    server_addresses: tuple[str, ...] = ()


def recommendation(
    results: Results,
    session_id: int,
    *,
    share: str,
    server: str,
    current: CurrentConfig,
    recipes: Mapping[str, Recipe] | None = None,
    mount_point: str = DEFAULT_MOUNT_POINT,
) -> Recommendation:
    """`mount_point`: where a new fstab line mounts the share (an existing entry keeps its own). Raises ConfigError
    when there is nothing to start from (the share is not exported any more)."""
    return recommend(
        share=share,
        server=server,
        exports=current.exports,
        fstab=current.fstab,
        measured=measured_from(results, session_id, recipes),
        mount_point=mount_point,
        nfs_conf=current.nfs_conf,
        server_aliases=current.server_addresses,
        server_login=current.exports is not None,
    )


def measured_from(results: Results, session_id: int, recipes: Mapping[str, Recipe] | None = None) -> Measured:
    """What the advice needs from a session: the verdicts the report shows (summary.summarize_session, each
    recipe a family), by workload, found by what ran (results/changed.py), whatever the configurations are called."""
    data = results.session(session_id)
    groups = summarize_session(data, recipes_by_id() if recipes is None else recipes)
    negotiated_rsize = None
    for run in data["runs"]:
        opts = RunOptions.of(run)
        granted = opts.negotiated.get("rsize")
        if granted is not None and granted.isdigit() and not opts.requested.has("rsize"):
            negotiated_rsize = int(granted)
    facts = json.loads(data["server_facts"] or "{}")
    best_version, version_reason = _best_version(groups)
    return Measured(
        async_vs_sync=_verdicts(groups, _turns_async),
        no_wdelay=_verdicts(groups, _turns_off_gathering),
        negotiated_rsize=negotiated_rsize,
        server_max_block_size=facts.get("nfsd_max_block_size"),
        best_version=best_version,
        version_reason=version_reason,
        threads=threads_finding(groups, data["runs"]),
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


def _best_version(groups: Sequence[WorkloadResults]) -> tuple[str | None, str | None]:
    """An NFS version measured faster than the baseline's on some workload and slower on none (an unreliable or
    unsettled comparison counts as neither), with the verdicts that say so; (None, None) keeps the version."""
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
        return None, None
    _count, vers, found = max(candidates, key=lambda c: c[0])
    quoted = "; ".join(f"{workload}: {v.text}" for workload, v in found if v.kind == "faster")
    return vers, f"measured faster: {quoted}"


def keep_current(results: Results, session_id: int, current: CurrentConfig, *, server: str) -> None:
    """Keep the configuration the session's recommendation starts from, and the server's address as the client
    mounts it, with the session."""
    kept = {
        "exports": current.exports,
        "fstab": current.fstab,
        "server": server,
        "nfs_conf": current.nfs_conf,
        "server_addresses": list(current.server_addresses),
    }
    results.keep_admin_config(session_id, json.dumps(kept))


def kept_current(session: Mapping[str, Any]) -> tuple[CurrentConfig, str] | None:
    """The configuration and the server's address keep_current stored; None for a session without them (one
    that did not complete, or one from an nfstune before 0.12)."""
    text = session.get("admin_config")
    if not text:
        return None
    kept = json.loads(text)
    nfs_conf = kept.get("nfs_conf")  # kept since issue 13
    addresses = tuple(kept.get("server_addresses", ()))  # kept since issue 29
    exports = None if kept["exports"] is None else dict(kept["exports"])
    return CurrentConfig(exports, kept["fstab"], nfs_conf, addresses), str(kept["server"])


def kept_recommendation(
    results: Results,
    session_id: int,
    recipes: Mapping[str, Recipe] | None = None,
    mount_point: str = DEFAULT_MOUNT_POINT,
) -> Recommendation | str:
    """The recommendation of a stored session from the configuration it kept, or why there is none."""
    session = results.session(session_id)
    found = kept_current(session)
    if found is None:
        return "this session did not keep the server's exports and the client's fstab (it did not complete)"
    current, server = found
    try:
        return recommendation(
            results,
            session_id,
            share=session["share"],
            server=server,
            current=current,
            recipes=recipes,
            mount_point=mount_point,
        )
    except ConfigError as exc:
        return str(exc)
