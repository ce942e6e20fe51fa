"""A recipe in plain words, for the page where the admin picks recipes: what it varies, what it changes on which
host and how that is undone, what it risks, and about how long it takes. Pure (no Qt, no I/O).

How long it takes: recipes.estimate (the plan's time at the pace the hosts have shown); format_duration says it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.recipes.model import Config, Recipe

SERVER_CHANGES = (
    "On the server: changes the export's options in /etc/exports (or its file in /etc/exports.d) on the server, "
    "journaled; the original bytes are restored at the end, on cancel, on failure, or at the next start after a "
    "crash."
)
CLIENT_CHANGES = (
    "On the client: mounts the export on nfstune's own mount point with nosharecache and writes only in a scratch "
    "directory, both removed at the end; your own mounts are untouched."
)
CLIENT_ONLY = "The server's configuration is not touched."
READAHEAD_CHANGES = "It sets read_ahead_kb of nfstune's own mount only."
THREADS_CHANGES = (
    "On the server: runs another nfsd thread count (/proc/fs/nfsd/threads) while a configuration asks for it, put "
    "back after it; nfs.conf is not touched."
)
SCRATCH_FS_CHANGES = (
    "On the server: for each configuration, a scratch filesystem of that type in a sparse file on the share's "
    "disk, loop-mounted and exported alone to this client in /etc/exports.d/nfstune-isolated.exports; unexported, "
    "unmounted and deleted after it, on cancel, on failure, or at the next start after a crash. Your export, its "
    "options and its files are not used; /etc/exports is not touched."
)
LISTENER_CHANGES = (
    "On the server: where both hosts have RDMA, nfsd listens for RDMA (port 20049) for the session, journaled. The "
    "kernel cannot remove a single listener while nfsd runs, so the NFS server is restarted at the end, on cancel, "
    "on failure, or at the next start after a crash: its clients pause for a few seconds and NFSv4 clients reclaim "
    "their state. The export and its options are not touched."
)
CLIENTS_CHANGES = (
    "On every client: fio's server for the session, listening on that client's address towards the server only, "
    "stopped at the end; the export mounted as on the first client. A configuration that needs more clients than "
    "you connected is skipped."
)


_KEY_NAMES = {"vers": "NFS version", "rsize": "rsize", "wsize": "wsize", "nconnect": "nconnect"}
_BYTE_KEYS = ("rsize", "wsize", "rsize/wsize")
DASH = "\u2013"  # an en dash, between the ends of a range
LIST_AT_MOST = 3  # more values than this read better as a range: "8 KiB … 1 MiB, 4 steps"


@dataclass(frozen=True)
class RecipeInfo:
    varies: str  # "rsize/wsize 8 KiB … 1 MiB, 4 steps", "export sync vs async"
    changes: str  # what it changes on which host, and how that is undone
    risks: str | None  # the recipe's warning (or its configurations'), None when it has none
    host: str  # "server" or "client": the host whose configuration the recipe changes


def describe(recipe: Recipe) -> RecipeInfo:
    changes = [SERVER_CHANGES, CLIENT_CHANGES] if recipe.changes_host == "server" else [CLIENT_CHANGES, CLIENT_ONLY]
    if not any(c.export for c in recipe.configs) and any(c.rdma_port is not None for c in recipe.configs):
        changes = [LISTENER_CHANGES, CLIENT_CHANGES]
    if all(c.filesystem is not None for c in recipe.configs):
        changes = [SCRATCH_FS_CHANGES, CLIENT_CHANGES.replace("the export", "each scratch filesystem")]
    if any(c.read_ahead_kb is not None for c in recipe.configs):
        changes.append(READAHEAD_CHANGES)
    if any(c.nfsd_threads is not None for c in recipe.configs):
        changes.append(THREADS_CHANGES)
    if any(c.clients is not None for c in recipe.configs):
        changes.append(CLIENTS_CHANGES)
    risks = recipe.warning
    if risks is None:
        config_warnings = [f"{c.label}: {c.warning}" for c in recipe.configs if c.warning]
        risks = "\n".join(config_warnings) or None
    return RecipeInfo(varies_text(recipe), " ".join(changes), risks, recipe.changes_host)


# --- what varies ----------------------------------------------------------------------------------------------


def size_text(size_bytes: int) -> str:
    """8192 -> '8 KiB', 1048576 -> '1 MiB', 15728640 -> '15 MiB', 1000 -> '1000 bytes'."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size_bytes >= size and size_bytes % size == 0:
            return f"{size_bytes // size} {unit}"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size_bytes >= size:
            return f"{size_bytes / size:.3g} {unit}"
    return f"{size_bytes} bytes"


def _dimensions(configs: Sequence[Config]) -> dict[str, list[str | None]]:
    """Each knob a configuration sets (mount options, the export's options, readahead): its value per config."""
    keys = sorted({name for c in configs for name in c.mount.names()})
    found: dict[str, list[str | None]] = {key: [c.mount.get(key) for c in configs] for key in keys}
    found["read_ahead_kb"] = [None if c.read_ahead_kb is None else str(c.read_ahead_kb) for c in configs]
    common = set.intersection(*(set(c.export.set) for c in configs)) if configs else set()
    found["export"] = [_export_text(c, common) for c in configs]
    found["clients"] = [None if c.clients is None else str(c.clients) for c in configs]
    found["nfsd_threads"] = [None if c.nfsd_threads is None else str(c.nfsd_threads) for c in configs]
    found["filesystem"] = [c.filesystem for c in configs]
    return {key: values for key, values in found.items() if len(set(values)) > 1}


def _export_text(config: Config, leave_out: set[str]) -> str | None:
    parts = [o for o in config.export.set if o not in leave_out] + [f"no {name}" for name in config.export.unset]
    return ",".join(parts) or None


def _value_text(key: str, value: str | None) -> str:
    if value is None:
        return {"export": "unchanged", "nfsd_threads": "the server's own"}.get(key, "the default")
    if key in _BYTE_KEYS and value.isdigit():
        return size_text(int(value))
    if key == "read_ahead_kb" and value.isdigit():
        return size_text(int(value) * 1024)
    return value


def _key_text(key: str) -> str:
    names = {
        "read_ahead_kb": "client readahead",
        "export": "export",
        "clients": "clients at once",
        "nfsd_threads": "nfsd threads",
        "filesystem": "scratch filesystem",
    }
    return names.get(key, _KEY_NAMES.get(key, key))


def _values_text(key: str, values: Sequence[str | None]) -> str:
    distinct = list(dict.fromkeys(values))  # in the recipe's order
    texts = [_value_text(key, v) for v in distinct]
    if len(distinct) == 2:
        return f"{_key_text(key)} {texts[0]} vs {texts[1]}"
    numeric = all(v is not None and v.isdigit() for v in distinct)
    if numeric and len(distinct) > LIST_AT_MOST:
        ordered = sorted(distinct, key=lambda v: int(v or 0))
        low, high = _value_text(key, ordered[0]), _value_text(key, ordered[-1])
        return f"{_key_text(key)} {low} … {high}, {len(distinct)} steps"
    return f"{_key_text(key)} {', '.join(texts)}"


def varies_text(recipe: Recipe) -> str:
    """One knob: its values ("NFS version 3, 4.0, 4.1, 4.2"). Several (quick-check): each configuration's
    difference from the baseline ("each against the baseline: export async; rsize/wsize 128 KiB; ...")."""
    configs = list(recipe.configs)
    dims = _dimensions(configs)
    if "rsize" in dims and dims.get("wsize") == dims["rsize"]:
        dims = {("rsize/wsize" if k == "rsize" else k): v for k, v in dims.items() if k != "wsize"}
    conditional = [f"{c.label} only with {c.when.words()}" for c in configs if c.when.tests]
    if "clients" in dims:
        # a grid (counts x settings), not one change against the baseline each: every axis with its values
        return "; ".join(_values_text(key, values) for key, values in dims.items())
    if not dims:
        text = "nothing: every configuration is the same"
    elif len(dims) == 1:
        ((key, values),) = dims.items()
        text = _values_text(key, values)
    else:
        text = "each against the baseline: " + "; ".join(_differences(recipe, dims))
    return "; ".join([text, *conditional])


def _differences(recipe: Recipe, dims: Mapping[str, Sequence[str | None]]) -> list[str]:
    base = [c.label for c in recipe.configs].index(recipe.baseline)
    baseline_export = set(recipe.configs[base].export.set)
    found = []
    for index, config in enumerate(recipe.configs):
        if index == base:
            continue
        changed = [
            # the export against the baseline's, not against all: "export no_wdelay" rather than "sync,no_wdelay"
            f"export {_export_text(config, baseline_export)}"
            if key == "export"
            else f"{_key_text(key)} {_value_text(key, values[index])}"
            for key, values in dims.items()
            if values[index] != values[base]
        ]
        if changed:
            found.append(", ".join(changed))
    return found


# --- how long it takes -----------------------------------------------------------------------------------------


def _minutes_or_hours(seconds: float, *, with_unit: bool) -> str:
    if seconds >= 90 * 60:
        hours = round(seconds / 3600 * 2) / 2  # to the half hour: "about 2.5 h" is as precise as this gets
        return f"{hours:g} h" if with_unit else f"{hours:g}"
    minutes = max(1, round(seconds / 60))
    return f"{minutes} min" if with_unit else str(minutes)


def format_duration(seconds: float | tuple[float, float]) -> str:
    """'about 4-7 min' (with an en dash between the ends), 'about 5 min', 'about 40 min-2 h', 'under a minute'."""
    low, high = (seconds, seconds) if isinstance(seconds, int | float) else seconds
    if high < 45:
        return "under a minute"
    high_text = _minutes_or_hours(high, with_unit=True)
    low_text = _minutes_or_hours(low, with_unit=True)
    if low_text == high_text:
        return f"about {high_text}"
    if low_text.split()[1] == high_text.split()[1]:  # the same unit: name it once
        return f"about {low_text.split()[0]}{DASH}{high_text}"
    return f"about {low_text}{DASH}{high_text}"
