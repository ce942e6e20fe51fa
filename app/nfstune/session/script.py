"""The session script the CLI and the desktop both follow: survey the connected hosts, check what stands in the way,
run the session and read the recommendation. They differ only in how they ask the admin (`confirm`) and how they
show what happens (`emit`, and what they do with the survey and the outcome). No Qt, no terminal.
"""

from __future__ import annotations

import posixpath
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from nfstune.advice.findings import Findings
from nfstune.advice.outcome import SessionOutcome, session_outcome
from nfstune.advice.recommend import Recommendation
from nfstune.advice.session import keep_current, kept_recommendation
from nfstune.changes.export import exportfs_table, read_export_files
from nfstune.changes.mount import mounts_of
from nfstune.errors import Cancelled, ConfigError, NfstuneError
from nfstune.nfs.names import usable_shares
from nfstune.nfs.own_mount import MOUNT_ROOT
from nfstune.recipes.hand_plan import hand_plan_lines
from nfstune.recipes.model import Recipe
from nfstune.session.admin import HandPrompt
from nfstune.session.engine import Event
from nfstune.session.nas_view import nas_exports
from nfstune.session.preflight import Problem, blocking, check
from nfstune.session.server_change import ServerChange
from nfstune.session.workflow import (
    Facts,
    Pair,
    current_export,
    likely_times,
    make_engine,
    plan_for,
    probe_pair,
    start_session,
)
from nfstune.store import Journal, Results


@dataclass(frozen=True)
class Survey:
    """What the connected hosts are, read before anything is changed: what the preflight checks and shows."""

    facts: Facts
    exports: list[str]  # the server's exported paths (exportfs -s)
    client_mounts_of_server: list[str]  # "server:/path on /mnt/x" already mounted on the client, not by nfstune
    export_files: dict[str, str]  # the server's exports files, by path
    refused_exports: tuple[str, ...] = ()  # what the server lists that no share path can be: not in `exports`


def survey(pair: Pair) -> Survey:
    """The server's exports first: the share whose filesystem is probed is `pair.share` when it is exported,
    otherwise the first export (the desktop then offers that one; a share that is not exported is an error of
    the preflight anyway). Every sudo password is asked for here (probe_pair). A server nfstune cannot log in to:
    its exports as `showmount -e` on the client lists them (or the share alone, which the probe then mounts)."""
    if pair.server is None:
        return _survey_without_login(pair)
    exports, refused = usable_shares(sorted({path for path, _client in exportfs_table(pair.server)}))
    exported = {_normal(path) for path in exports}
    share = pair.share if pair.share and _normal(pair.share) in exported else (exports[0] if exports else "/")
    facts = probe_pair(replace(pair, share=share))
    mounts = [
        f"{m.device} on {m.mount_point}"
        for m in mounts_of(pair.client, (pair.address, facts.server.hostname))
        if posixpath.dirname(m.mount_point) != MOUNT_ROOT
    ]
    return Survey(facts, exports, mounts, read_export_files(pair.server), tuple(refused))


def _survey_without_login(pair: Pair) -> Survey:
    listed = nas_exports(pair.client, pair.address)
    facts = probe_pair(pair)
    # a share that mounted is exported to this client, whether or not the server answers showmount
    mounted = [pair.share] if facts.server.nfsd_versions_enabled else []
    # the NAS's list is its own to write: a path no share can be is left out, and said (preflight)
    exports, refused = usable_shares(sorted(set(listed or []) | set(mounted)))
    mounts = [
        f"{m.device} on {m.mount_point}"
        for m in mounts_of(pair.client, (pair.address,))
        if posixpath.dirname(m.mount_point) != MOUNT_ROOT
    ]
    return Survey(facts, exports, mounts, {}, tuple(refused))


def _normal(path: str) -> str:
    return path.rstrip("/") or "/"  # as the preflight compares a share with the exports


def preflight(pair: Pair, found: Survey) -> list[Problem]:
    """What stands in the way of a session on `pair.share`, errors first (preflight.check)."""
    return check(
        found.facts.server,
        found.facts.client,
        server_label=pair.server_label,
        client_label=pair.client.label,
        client_mounts_of_server=found.client_mounts_of_server,
        share=pair.share,
        exports=found.exports,
        export_files=found.export_files,
        more=[(host.label, f) for host, f in zip(pair.more, found.facts.more, strict=True)],
        server_login=pair.server is not None,
        refused_exports=found.refused_exports,
    )


def refuse_if_blocked(problems: Sequence[Problem]) -> None:
    """Raises ConfigError naming every error among `problems`; nothing was changed yet. (The desktop keeps its
    Next button disabled instead.)"""
    if blocking(problems):
        stops = "; ".join(p.title for p in problems if p.severity == "error")
        raise ConfigError(f"preflight: {stops}. Nothing was changed.")


Status = Literal["completed", "cancelled", "failed"]


@dataclass(frozen=True)
class RunOutcome:
    session_id: int
    status: Status
    message: str = ""  # why it was cancelled or failed; when it completed without a recommendation, why not
    recommendation: Recommendation | None = None
    error: NfstuneError | None = None  # what stopped it (cancelled or failed), for a caller that raises it again
    # the session's outcome (its verdicts, the answer, what limits each workload), worked out once here, on the
    # run's own thread: the desktop's GUI thread and the CLI only show it
    outcome: SessionOutcome | None = None

    @property
    def findings(self) -> Findings | None:
        return self.outcome.findings if self.outcome is not None else None


def run_session(
    pair: Pair,
    facts: Facts,
    recipes: Sequence[Recipe],
    *,
    scale: str,
    results: Results,
    journal: Journal,
    emit: Callable[[Event], None],
    cancel: threading.Event,
    confirm: Callable[[ServerChange], bool] | None = None,
    seed: int | None = None,
    ceilings: bool = True,
    known: Mapping[str, Recipe] | None = None,
    ask: Callable[[HandPrompt], str] | None = None,
) -> RunOutcome:
    """Plan the session (the configurations it skips said through `emit` as log events), store it with its plan,
    run it, and once its changes are undone read and keep the admin's own configuration and
    the recommendation made from it. `confirm`: asked before the export is changed while other clients use the
    server; `known`: every recipe by id, whose margins the verdicts use (None: as they are on disk now); `ask`: the
    steps of a guided hand change (without it, the plan skips such configurations and says why). Raises
    what happens before the engine runs; a cancel or a failure while it runs is the outcome's."""
    plan = plan_for(pair, facts, recipes, scale, seed, ask_admin=ask is not None)
    for reason in plan.skipped:
        emit(Event("log", reason))
    for item in plan.recipes:  # a guided hand change: what the admin will be asked, before anything runs
        if item.hand is not None:
            lines = hand_plan_lines(item.hand, item.block_s(plan.scale))
            emit(Event("log", "\n".join([f"{item.recipe.id}: {lines[0].strip()}", *lines[1:]])))
    likely = likely_times(results, pair, recipes, scale)  # before this session is stored: from earlier ones
    sid = start_session(results, pair, facts, scale=scale, recipe_ids=[r.id for r in recipes], plan=plan)
    engine = make_engine(
        pair,
        facts,
        scale=scale,
        results=results,
        journal=journal,
        emit=emit,
        cancel=cancel,
        ceilings=ceilings,
        confirm=confirm,
        likely=likely,
        ask=ask,
    )
    try:
        engine.run(sid, plan)
    except NfstuneError as exc:  # the engine undid its changes and stored why
        status: Status = "cancelled" if isinstance(exc, Cancelled) else "failed"
        return RunOutcome(sid, status, str(exc), error=exc, outcome=session_outcome(results, sid, known))
    current = current_export(pair.server, pair.share, pair.client, pair.address)
    keep_current(results, sid, current, server=pair.address)
    outcome = session_outcome(results, sid, known)
    rec = kept_recommendation(results, sid, known, measured=outcome.measured)
    if isinstance(rec, str):  # nothing to start from (the share is no longer exported): the results stand alone
        return RunOutcome(sid, "completed", f"No recommendation: {rec}", outcome=outcome)
    return RunOutcome(sid, "completed", recommendation=rec, outcome=outcome)
