"""What was in force when a trend's figure was measured, and what changed from one session to the next: the marks
on History's trend and in the report's Trend section.

A trend's figure is a baseline's median (results/trend.py): the configuration a recipe compares the others with,
mostly the admin's export and mount as they are. What it measured under is read from what the session stored, never
from the recipe's intent:
- the NFS settings of that baseline run: the export's options as `exportfs -s` showed them, the mount's options
  the client and server agreed (vers, rsize, wsize, nconnect and a transport other than TCP, from /proc/mounts: the
  rest of that list holds addresses and ports that change at every mount), a read-ahead or a load the
  configuration set;
- the hosts as probed at the session's start: the NAS's system, kernel, nfs-utils, nfsd threads and the filesystem
  and disks under the share, the client's kernel and its link to the NAS;
- for small-files and tree-delete, whose figure is the time of a whole tree, the tree's size (the plan's sizes): a
  larger tree is a different figure, not a slower NAS. The other figures are rates or times per operation, which a
  size does not change in meaning (session/growth.py).
A value not known in one of two sessions (a session without a login to the NAS has no export options and no NAS
facts) is not called a change: nothing says it changed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nfstune.facts.model import HostFacts
from nfstune.nfs.export_options import split_options
from nfstune.results.load_summary import load_of
from nfstune.results.run_options import RunOptions, negotiated_essentials

# (name, value) in this order; None: not known for that session
Settings = tuple[tuple[str, str | None], ...]

# settings whose value is an option list: a change names the options that came and went, not two long lists
OPTION_LISTS = ("export", "mount")
TREE_WORKLOADS = ("small-files", "tree-delete")
ARROW = "\u2192"
MINUS = "\u2212"


def settings_in_force(session: Mapping[str, Any], run: Mapping[str, Any]) -> Settings:
    """What `run` (a baseline's run of `session`, as Results.pair_sessions or Results.session give them) measured
    under."""
    opts = RunOptions.of(run)
    config = run.get("config") or {}
    ahead = config.get("read_ahead_kb") if isinstance(config, Mapping) else None
    clients, threads = load_of(run)
    server, client = _facts(session.get("server_facts")), _facts(session.get("client_facts"))
    if threads is None and server is not None:
        threads = server.nfsd_threads  # the configuration left them as the NAS had them
    found: list[tuple[str, str | None]] = [
        ("export", ",".join(opts.export) or None),
        ("mount", negotiated_essentials(opts.negotiated) or None),
        ("read_ahead_kb", None if ahead is None else str(ahead)),
        ("clients at once", None if clients is None else str(clients)),
        ("nfsd threads", None if threads is None else str(threads)),
        ("NAS system", server.os_pretty_name if server else None),
        ("NAS kernel", server.kernel if server else None),
        ("NAS nfs-utils", server.nfs_utils_version if server else None),
        ("NAS filesystem", _filesystem(server)),
        ("client kernel", client.kernel if client else None),
        ("link", _link(client)),
    ]
    if run.get("workload") in TREE_WORKLOADS:
        found.append(("small-files tree", _tree(session)))
    return tuple(found)


@dataclass(frozen=True)
class SettingChange:
    name: str  # the setting, as settings_in_force names it
    text: str  # 'NAS kernel 6.1.0-26-amd64 → 6.12.48-amd64'; 'export +async', a minus sign before what went


def changes(before: Settings, after: Settings) -> tuple[SettingChange, ...]:
    """What differs from `before` to `after`, in settings_in_force's order; () when nothing known differs."""
    old = dict(before)
    found = []
    for name, value in after:
        was = old.get(name)
        if value is None or was is None or value == was:
            continue
        how = _option_change(was, value) if name in OPTION_LISTS else f"{was} {ARROW} {value}"
        found.append(SettingChange(name, f"{name} {how}"))
    return tuple(found)


def _option_change(before: str, after: str) -> str:
    """'+async' for an option that came (a minus sign before one that went); 'rsize 131072 → 1048576' for one
    whose value changed."""
    old, new = _by_name(before), _by_name(after)
    parts = []
    for name, option in new.items():
        if name not in old:
            parts.append(f"+{option}")
        elif old[name] != option:
            parts.append(f"{name} {old[name].partition('=')[2]} {ARROW} {option.partition('=')[2]}")
    parts += [f"{MINUS}{option}" for name, option in old.items() if name not in new]
    return " ".join(parts)


def _by_name(options: str) -> dict[str, str]:
    # exportfs -s can repeat an option (rw, no_root_squash): the last says what is in force
    return {option.partition("=")[0]: option for option in split_options(options)}


def _facts(text: object) -> HostFacts | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return HostFacts.from_json(text)
    except (ValueError, TypeError, KeyError):  # stored by another nfstune: its facts are not known here
        return None


def _filesystem(facts: HostFacts | None) -> str | None:
    """'ext4 on vdb (spinning)': what a disk swap or a new filesystem under the share changes."""
    fs = facts.filesystem if facts else None
    if fs is None or fs.fstype is None:
        return None
    disks = [d.model or d.name for d in fs.disks]
    kind = {True: " (spinning)", False: " (solid state)", None: ""}[fs.rotational]
    return f"{fs.fstype} on {', '.join(disks)}{kind}" if disks else fs.fstype


def _link(facts: HostFacts | None) -> str | None:
    """The client's NIC towards the NAS: '1000 Mbit/s, MTU 1500'; a virtual NIC has no speed."""
    route = facts.route if facts else None
    if route is None or (route.speed_mbps is None and route.mtu is None):
        return None
    parts = ([f"{route.speed_mbps} Mbit/s"] if route.speed_mbps is not None else []) + (
        [f"MTU {route.mtu}"] if route.mtu is not None else []
    )
    return ", ".join(parts)


def _tree(session: Mapping[str, Any]) -> str | None:
    try:
        sizes = (json.loads(session.get("plan") or "{}") or {}).get("sizes") or {}
        return f"{int(sizes['small_file_count'])} files of {int(sizes['small_file_bytes'])} B"
    except (ValueError, TypeError, KeyError, AttributeError):  # no plan, or one this version cannot read
        return None
