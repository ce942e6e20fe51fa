"""What a stored run asked for and what was in force (the export's options as stored, the mount's options as
/proc/mounts showed them, read-ahead, the load), parsed once from the text the store keeps. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.nfs.export_options import split_options
from nfstune.nfs.mount_options import MountOptions
from nfstune.results.load_summary import load_of, load_text
from nfstune.store import StoredRun

# what /proc/mounts says that a recipe can change; the rest of its option list is noise next to the requested ones
NEGOTIATED_KEYS = ("vers", "rsize", "wsize", "nconnect")


@dataclass(frozen=True)
class RunOptions:
    """What a run asked for and what was in force, parsed once from the text the store keeps."""

    requested: MountOptions
    negotiated: MountOptions
    export: tuple[str, ...]

    @classmethod
    def of_stored(cls, run: StoredRun) -> RunOptions:
        return cls(
            MountOptions.parse(run.requested_options or ""),
            MountOptions.parse(run.negotiated_options or ""),
            tuple(split_options(run.export_options)) if run.export_options else (),
        )

    @classmethod
    def of(cls, run: Mapping[str, Any]) -> RunOptions:
        export = run["export_options"]
        return cls(
            MountOptions.parse(run["requested_options"] or ""),
            MountOptions.parse(run["negotiated_options"] or ""),
            tuple(split_options(export)) if export else (),
        )


def read_ahead_of(run: Mapping[str, Any]) -> object:
    config = run.get("config") or {}
    return config.get("read_ahead_kb") if isinstance(config, Mapping) else None


def export_set_of(run: Mapping[str, Any]) -> tuple[str, ...]:
    """The export options the configuration set (its recipe's `export.set`, as stored with the run)."""
    config = run.get("config") or {}
    found = config.get("export_set") if isinstance(config, Mapping) else None
    return tuple(str(o) for o in found) if isinstance(found, list) else ()


def settings_key(run: Mapping[str, Any]) -> tuple[object, ...]:
    """Everything in force that a recipe can change, to tell two runs apart: the whole /proc/mounts list, not only
    what in_force() shows, since a user recipe may change any mount option."""
    opts = RunOptions.of(run)
    return opts.export, frozenset(o.render() for o in opts.negotiated.options), read_ahead_of(run), load_of(run)


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
    ahead = read_ahead_of(run)
    clients, threads = load_of(run)
    if clients is None and threads is None:
        return mode, gathering, essentials, ahead  # as sessions from before several clients were matched
    return mode, gathering, essentials, ahead, clients, threads


def in_force(run: Mapping[str, Any]) -> str | None:
    """What was actually in force for a run: the export's options as stored, the negotiated vers/rsize/wsize/
    nconnect, read-ahead; None when the mount's options were not read back (nothing to compare)."""
    opts = RunOptions.of(run)
    essentials = negotiated_essentials(opts.negotiated)
    if not essentials:
        return None
    parts = [f"mount {essentials}"]
    ahead = read_ahead_of(run)
    if ahead is not None:
        parts.append(f"read_ahead_kb={ahead}")
    if opts.export:
        parts.append(f"export {','.join(opts.export)}")
    load = load_text(run)
    if load is not None:
        parts.append(load)
    return "; ".join(parts)


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
