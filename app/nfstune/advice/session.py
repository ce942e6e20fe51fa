"""The advice a stored session gives: what it measured, as the advice needs it (its verdicts, by workload), and
the recommendation built from that and the admin's own configuration. That configuration is read from the hosts
once the session's changes are undone and kept with the session, so that a report written later (`nfstune
report`, History's export) holds the same recommendation as the desktop showed. No I/O but the store."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from nfstune.advice.outcome import session_outcome
from nfstune.advice.recommend import DEFAULT_MOUNT_POINT, Measured, Recommendation, recommend
from nfstune.errors import ConfigError
from nfstune.recipes.model import Recipe
from nfstune.store import Results, StoredSession


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
    measured: Measured | None = None,
) -> Recommendation:
    """`mount_point`: where a new fstab line mounts the share (an existing entry keeps its own); `measured`: what
    the session's outcome (outcome.py) already read of it. Raises ConfigError when there is nothing to start from
    (the share is not exported any more)."""
    return recommend(
        share=share,
        server=server,
        exports=current.exports,
        fstab=current.fstab,
        measured=measured or measured_from(results, session_id, recipes),
        mount_point=mount_point,
        nfs_conf=current.nfs_conf,
        server_aliases=current.server_addresses,
        server_login=current.exports is not None,
    )


def measured_from(results: Results, session_id: int, recipes: Mapping[str, Recipe] | None = None) -> Measured:
    """What the advice needs from a session (measured.py), judged as the report judges it: the session's outcome."""
    return session_outcome(results, session_id, recipes).measured


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


def kept_current(session: StoredSession) -> tuple[CurrentConfig, str] | None:
    """The configuration and the server's address keep_current stored; None for a session without them (one
    that did not complete, or one from an nfstune before 0.12)."""
    kept = session.admin_config
    if kept is None:
        return None
    nfs_conf = kept.get("nfs_conf")  # kept since issue 13
    addresses = tuple(kept.get("server_addresses", ()))  # kept since issue 29
    exports = None if kept["exports"] is None else dict(kept["exports"])
    return CurrentConfig(exports, kept["fstab"], nfs_conf, addresses), str(kept["server"])


def kept_recommendation(
    results: Results,
    session_id: int,
    recipes: Mapping[str, Recipe] | None = None,
    mount_point: str = DEFAULT_MOUNT_POINT,
    measured: Measured | None = None,
) -> Recommendation | str:
    """The recommendation of a stored session from the configuration it kept, or why there is none."""
    session = results.stored_session(session_id)
    found = kept_current(session)
    if found is None:
        return "this session did not keep the server's exports and the client's fstab (it did not complete)"
    current, server = found
    try:
        return recommendation(
            results,
            session_id,
            share=session.share,
            server=server,
            current=current,
            recipes=recipes,
            mount_point=mount_point,
            measured=measured,
        )
    except ConfigError as exc:
        return str(exc)
