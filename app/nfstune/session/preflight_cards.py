"""What the Preflight page's host cards say: the facts that matter to a run, grouped as an admin reads a host
(link, disk and filesystem, NFS, tools), each fact only when it is known (pure: no I/O, no Qt).

A fact the probe could not read is left out rather than shown as a dash: a card of dashes says nothing, and the
problems above the cards (session/preflight.check) already say what is missing and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from nfstune.facts.model import HostFacts
from nfstune.nfs.kernel_view import offered_versions
from nfstune.session.nas_view import no_login_label
from nfstune.words import count

CardRole = Literal["server", "client"]
Fact = tuple[str, str]  # (label, value)
Group = tuple[str, list[Fact]]  # (title, its known facts, in reading order)

GROUPS = ("Link", "Disk & filesystem", "NFS", "Tools")
GIB = 1024**3
NO_LOGIN_NOTE = "No login: nfstune sees only what the NFS server offers to this client."
CUT_OFF_NOTE = "The probe was cut off: some facts are missing."
NOTHING_NOTE = "The probe was cut off before it read anything."
# the tools each role's run uses: fio and iperf3 measure on both; mount.nfs is what the client mounts with
TOOLS: dict[CardRole, tuple[str, ...]] = {"server": ("fio", "iperf3"), "client": ("mount.nfs", "fio", "iperf3")}


@dataclass(frozen=True)
class HostCard:
    title: str  # "Server · nas", "Client · this computer"
    summary: tuple[str, ...]  # the host in one line (name, OS, kernel, CPUs, RAM): its known parts
    groups: list[Group]  # only the groups with a known fact, in GROUPS order
    note: str | None  # one line on why facts are missing (no login, a cut-off probe, nothing read)


def gib(n: int) -> str:
    return f"{n / GIB:.1f} GiB"


def speed(mbps: int) -> str:
    return f"{mbps / 1000:g} Gb/s" if mbps >= 1000 and mbps % 100 == 0 else f"{mbps} Mb/s"


def host_card(facts: HostFacts, role: CardRole, label: str, *, login: bool = True) -> HostCard:
    """`label`: the host as the session names it. `login` False: the server as the client saw it (nas_view.py);
    what only a login reads (tools, disks) is unknown then, even where its field looks like an answer."""
    name, hostname = _name(label, facts.hostname, login=login)
    parts = [hostname] if hostname else []
    if login:
        parts += _system(facts)
    groups = card_groups(facts, role, login=login)
    note = None
    if not login:
        note = NO_LOGIN_NOTE
    elif not facts.complete:
        # a complete probe always knows something (its tools, found or not): only a cut-off one can know nothing
        note = CUT_OFF_NOTE if groups or parts else NOTHING_NOTE
    return HostCard(f"{role.capitalize()} \u00b7 {name}", tuple(parts), groups, note)


def card_groups(facts: HostFacts, role: CardRole, *, login: bool = True) -> list[Group]:
    """The known facts of one host, by group, in GROUPS order; a group with no known fact is left out."""
    if not login:
        groups = [("NFS", _nfs_seen(facts))]
    else:
        groups = [("Link", _link(facts)), ("Disk & filesystem", _disk(facts)), ("NFS", _nfs(facts, role))]
        groups.append(("Tools", _tools(facts, role)))
    return [(title, rows) for title, rows in groups if rows]


def _name(label: str, hostname: str | None, *, login: bool) -> tuple[str, str | None]:
    """(the name for the title, the hostname when the title does not already say it). A label may carry the
    hostname in parentheses ("this computer (vm)", remote/local.py) or say there is no login ("nas (no login)"):
    the title takes the words alone, so that parentheses never nest in "Client (this computer (vm))"."""
    suffix = no_login_label("")
    if not login and label.endswith(suffix):
        label = label.removesuffix(suffix)
    if hostname and label.endswith(f" ({hostname})"):
        label = label.removesuffix(f" ({hostname})")
    return label, hostname if hostname and hostname != label else None


def _system(f: HostFacts) -> list[str]:
    parts = [f.os_pretty_name or f.os_id, f"kernel {f.kernel}" if f.kernel else None]
    if f.cpu_count is not None:
        parts.append(count(f.cpu_count, "CPU"))
    if f.mem_total_bytes is not None:
        parts.append(f"{gib(f.mem_total_bytes)} RAM")
    return [p for p in parts if p]


def _link(f: HostFacts) -> list[Fact]:
    route = f.route
    rows: list[Fact] = []
    if route is not None and route.interface is not None:
        rows.append(("NIC", f"{route.interface} ({route.driver})" if route.driver else route.interface))
    if route is not None and route.speed_mbps:
        rows.append(("Speed", speed(route.speed_mbps)))
    if route is not None and route.mtu:
        rows.append(("MTU", str(route.mtu)))
    if route is not None and route.gateway:
        rows.append(("Route", f"via {route.gateway}"))  # a router between the hosts: its hop costs every call
    if f.rdma_devices:
        kinds = {True: "emulated over Ethernet", False: "hardware"}
        devices = [f"{d.name} ({kinds[d.software]}, {(d.state or 'state unknown').lower()})" for d in f.rdma_devices]
        rows.append(("RDMA", ", ".join(devices)))
    return rows


def _disk(f: HostFacts) -> list[Fact]:
    fs = f.filesystem
    rows: list[Fact] = []
    if fs is None:
        return rows
    if fs.fstype:
        rows.append(("Filesystem", f"{fs.fstype} on {fs.source}" if fs.source else fs.fstype))
    if fs.free_bytes is not None:
        of = f" of {gib(fs.size_bytes)}" if fs.size_bytes is not None else ""
        rows.append(("Free", f"{gib(fs.free_bytes)}{of}"))
    kinds = {True: "spinning", False: "SSD", None: None}
    disks = [", ".join(p for p in (d.model or d.name, kinds[d.rotational]) if p) for d in fs.disks]
    if disks:
        rows.append(("Disk" if len(disks) == 1 else "Disks", "; ".join(disks)))
    return rows


def _nfs(f: HostFacts, role: CardRole) -> list[Fact]:
    rows = [("nfs-utils", f.nfs_utils_version)] if f.nfs_utils_version else []
    if role == "client":
        return rows  # the client's own nfsd, if any, serves nothing nfstune tests
    if f.nfs_server_state is not None or f.nfs_server_active is not None:
        rows.append(("nfs-server", f.nfs_server_state or ("running" if f.nfs_server_active else "not running")))
    versions = _versions(f)
    if versions:
        rows.append(("Versions offered", versions))
    if f.nfsd_threads is not None:
        rows.append(("nfsd threads", str(f.nfsd_threads)))
    if f.nfsd_max_block_size:
        rows.append(("Max block size", f"{f.nfsd_max_block_size / 1024:g} KiB"))
    if f.nfsd_listeners:
        rows.append(("Listeners", ", ".join(sorted(f.nfsd_listeners))))
    return rows


def _nfs_seen(f: HostFacts) -> list[Fact]:
    """What a client sees of a server it cannot log in to: whether a share mounted, and with which versions."""
    rows = [("nfs-server", "answers this client" if f.nfs_server_active else "does not answer this client")]
    versions = _versions(f)
    if versions:
        rows.append(("Versions offered", versions))
    return rows


def _versions(f: HostFacts) -> str | None:
    """The versions a client can mount: "+4" alone is no version, and 4.0 is on unless "-4.0" says it is off."""
    if f.nfsd_versions_enabled is None:
        return None
    disabled = f.nfsd_versions_disabled or frozenset()
    # and a minor version newer than nfstune knows is still the server's to show
    offered = offered_versions(f.nfsd_versions_enabled, disabled) | {
        v for v in f.nfsd_versions_enabled if v.startswith("4.")
    }
    if any(v.startswith("4.") for v in offered):
        offered -= {"4"}
    ordered = sorted(offered, key=lambda v: tuple(int(p) for p in v.split(".")))
    text = ", ".join(ordered) or "none"
    off = sorted(v for v in disabled if v.startswith("4.") and v not in offered)
    return text + (f" ({', '.join(off)} switched off)" if off and "4" in f.nfsd_versions_enabled else "")


def _tools(f: HostFacts, role: CardRole) -> list[Fact]:
    rows: list[Fact] = []
    versions = {"fio": f.fio_version, "iperf3": f.iperf3_version}
    for tool in TOOLS[role]:
        if versions.get(tool) is not None:
            rows.append((tool, str(versions[tool])))
        elif tool in f.tools:
            rows.append((tool, "installed"))
        elif f.complete:  # a cut-off probe may not have reached the tools: unknown, not missing
            rows.append((tool, "not installed"))
    return rows
