"""Preflight: what stands in the way of a run, read from the two hosts' facts (pure: no I/O, no Qt).

`check` lists the problems, worst first (the facts the page shows beside them: session/preflight_cards.py).
An error means the run cannot work as things are (the wizard keeps Next disabled); a warning means it can, with
less (no fio, no network ceiling, unknown facts); info is something the admin should know but need not act on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from nfstune.facts.appliance import async_setting_hint
from nfstune.facts.model import HostFacts
from nfstune.nfs.export_options import ASYNC_RISK, FSID_ROOT_RISK, INSECURE_RISK
from nfstune.nfs.exports import parsed_in_order
from nfstune.nfs.exports_findings import findings
from nfstune.nfs.names import share_problem
from nfstune.remote.tools import PACKAGES, install_hint
from nfstune.session.firewall_and_selinux import firewall_findings, selinux_findings
from nfstune.session.preflight_cards import gib

Severity = Literal["error", "warning", "info"]
HostRole = Literal["server", "client", "both"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")  # worst first
LOW_FREE_BYTES = 1024**3

# os-release ID -> how to install a package there, non-interactively (nfstune runs it with sudo, without a tty)
_APT = ("debian", "ubuntu", "raspbian", "linuxmint", "pop", "elementary", "zorin", "kali", "devuan")
_DNF = ("fedora", "rhel", "centos", "rocky", "almalinux", "ol", "amzn")
_ZYPPER = ("opensuse-leap", "opensuse-tumbleweed", "opensuse", "sles", "sled")


@dataclass(frozen=True)
class Problem:
    severity: Severity
    host: HostRole
    title: str
    detail: str
    install_command: str | None = None  # run as root on `host` to fix it (the UI offers it, never runs it itself)
    tool: str | None = None  # the missing command, when the problem is one


def install_command(facts: HostFacts, tool: str) -> str | None:
    """The command that installs `tool` on that host, or None where nfstune does not know the package manager
    (or must not use it: an appliance's OS is managed by its own UI, TrueNAS SCALE even disables apt)."""
    if facts.appliance is not None:
        return None
    debian, rpm = PACKAGES.get(tool, (tool, tool))
    if facts.os_id in _APT:
        return f"apt-get install -y {debian}"
    if facts.os_id in _DNF:
        return f"dnf install -y {rpm}"
    if facts.os_id in _ZYPPER:
        return f"zypper --non-interactive install {rpm}"
    return None


def mtu_mismatch(server: HostFacts, client: HostFacts) -> tuple[int, int] | None:
    """(server MTU, client MTU) when both are known and differ. The server knows its route NIC only when it was
    probed with the client as peer."""
    server_mtu = server.route.mtu if server.route else None
    client_mtu = client.route.mtu if client.route else None
    if server_mtu is None or client_mtu is None or server_mtu == client_mtu:
        return None
    return server_mtu, client_mtu


def _missing(facts: HostFacts, tool: str, version: str | None) -> bool:
    # a cut-off probe may simply not have reached the tools section: that is "unknown", reported on its own
    return version is None and tool not in facts.tools and facts.complete


def _tool_problem(facts: HostFacts, role: HostRole, label: str, tool: str, severity: Severity, why: str) -> Problem:
    command = install_command(facts, tool)
    how = f"Install it with `{command}`." if command else f"To fix it, {install_hint(tool, label)}."
    return Problem(severity, role, f"{tool} is not installed on {label}", f"{why} {how}", command, tool)


WHY = {
    "mount.nfs": "The client cannot mount NFS without it.",
    "fio": "nfstune falls back to dd and tar: the same workloads, but no latency percentiles for sync-4k.",
    "iperf3": "Without it on both hosts there is no network ceiling to compare with.",
}

WHY_FURTHER = {
    "mount.nfs": "This further client cannot mount NFS without it: a load from several clients cannot start.",
    "fio": "Several clients start together only through fio's own client/server mode: the configurations that "
    "load the NAS from this client cannot run.",
}

# what is lost when a root-only file cannot be read (probe_parse.ROOT_ONLY_FILES)
UNREADABLE_MEANS = {
    "/proc/fs/nfsd/threads": "the thread count comes from /proc/net/rpc/nfsd instead",
    "/proc/fs/nfsd/versions": "the enabled NFS versions stay unknown",
}


def _normal(path: str) -> str:
    return path.rstrip("/") or "/"


def check(
    server: HostFacts,
    client: HostFacts,
    *,
    server_label: str,
    client_label: str,
    client_mounts_of_server: Sequence[str] = (),
    share: str | None = None,
    exports: Sequence[str] = (),
    export_files: Mapping[str, str] | None = None,
    more: Sequence[tuple[str, HostFacts]] = (),
    server_login: bool = True,
    refused_exports: Sequence[str] = (),
) -> list[Problem]:
    """Every problem found, errors first (stable within a severity). `export_files`: the server's exports files
    by path (changes.transaction.read_export_files), whose risks are reported with their file and line. `more`:
    the further clients (label, facts), for a load from several clients at once. `server_login` False: the
    server's facts are what the client saw of it (session/nas_view.py). `refused_exports`: what the server lists
    that no share path can be (nfs/names.py), left out of `exports`."""
    found: list[Problem] = []
    add = found.append
    hosts: list[tuple[HostFacts, HostRole, str]] = [(server, "server", server_label), (client, "client", client_label)]
    if not server_login:
        found += _without_login(server, server_label, share)
        hosts = hosts[1:]

    if server.appliance is not None:
        evidence = "; ".join(server.appliance_evidence) or "its marker files"
        what = (
            f"Found: {evidence}. {server.appliance} owns its export configuration (its middleware writes "
            f"/etc/exports from its own settings and would undo an edit), so nfstune will not write {server_label}'s "
            "exports: server-side steps (sync/async, threads) become manual steps in its web UI. "
            f"For async: {async_setting_hint(server.appliance)}."
        )
        add(Problem("warning", "server", f"{server_label} is a {server.appliance} appliance", what))
    if server_login and server.nfs_server_active is False:
        state = server.nfs_server_state or "stopped (nfsd has no threads)"
        start = (
            f"Turn the NFS service on in {server.appliance}'s web UI (its middleware owns the service)"
            if server.appliance is not None
            else "Start it (`systemctl enable --now nfs-server`)"
        )
        what = f"nfs-server is {state}. {start} and probe again."
        add(Problem("error", "server", f"The NFS server is not running on {server_label}", what))
    elif server_login and server.nfs_server_active is None:
        what = "Neither systemd nor /proc/net/rpc/nfsd answered; nfsd may not be loaded."
        add(Problem("warning", "server", f"Could not tell whether the NFS server runs on {server_label}", what))
    if share is not None and not share.startswith("/"):
        what = "A share is the absolute path the server exports, as `exportfs -s` lists it (e.g. /srv/data)."
        add(Problem("error", "server", f"The share {share!r} is not an absolute path", what))
    elif share is not None and _normal(share) not in {_normal(e) for e in exports}:
        what = f"{server_label} exports {', '.join(exports) or 'nothing'}. Pick an exported share, or export it first."
        add(Problem("error", "server", f"{share} is not exported by {server_label}", what))
    elif share is None and not exports:
        what = (
            f"There is no share to test. Export one on {server_label}: a line in /etc/exports, then `exportfs -ra` "
            "(on an appliance, in its web UI). Then read the hosts again."
        )
        add(Problem("error", "server", f"{server_label} exports nothing", what))
    if refused_exports:
        # shown as Python writes them: a control character in one must not reach a terminal as itself
        why = "; ".join(f"{path!r}: {share_problem(path)}" for path in refused_exports)
        what = f"{why}. They are not offered as shares to test."
        add(Problem("warning", "server", f"{server_label} lists exports nfstune leaves out", what))
    if _missing(client, "mount.nfs", None):
        add(_tool_problem(client, "client", client_label, "mount.nfs", "error", WHY["mount.nfs"]))
    mtus = mtu_mismatch(server, client)
    if mtus is not None:
        what = (
            "Every NIC and switch on the path must agree, or large transfers can stall or hang. Set the same MTU "
            f"on both, then check that full frames pass: `ping -M do -s {max(mtus) - 28} {server_label}`."
        )
        add(Problem("warning", "both", f"MTU mismatch: {server_label} {mtus[0]}, {client_label} {mtus[1]}", what))
    if _missing(client, "fio", client.fio_version):
        add(_tool_problem(client, "client", client_label, "fio", "warning", WHY["fio"]))
    for label, facts in more:
        checks: tuple[tuple[str, str | None, Severity], ...] = (
            ("mount.nfs", None, "warning"),
            ("fio", facts.fio_version, "warning"),
        )
        for tool, version, severity in checks:
            if _missing(facts, tool, version):
                problem = _tool_problem(facts, "client", label, tool, severity, WHY_FURTHER[tool])
                # its install button would run on the first client: the command is said, not offered
                add(replace(problem, install_command=None, tool=None))
    for facts, role, label in hosts:
        if _missing(facts, "iperf3", facts.iperf3_version):
            add(_tool_problem(facts, role, label, "iperf3", "warning", WHY["iperf3"]))
    fs = server.filesystem
    if fs is not None and fs.free_bytes is not None and fs.free_bytes < LOW_FREE_BYTES:
        what = (
            f"{gib(fs.free_bytes)} free: test files are sized from free space (at most half), so they will be "
            "small and reads may come from cache."
        )
        add(Problem("warning", "server", f"Little free space under {fs.path} on {server_label}", what))
    for facts, role, label in hosts:
        if not facts.complete:
            add(Problem("warning", role, f"The probe of {label} was cut off", "Some facts are missing; probe again."))
        if facts.unreadable:
            lost = [UNREADABLE_MEANS.get(path, f"{path} stays unknown") for path in facts.unreadable]
            what = f"They are root-only: {'; '.join(lost)}. Log in as root, or allow sudo, to read them."
            add(Problem("warning", role, f"This login on {label} may not read {', '.join(facts.unreadable)}", what))
    for mount_point in client_mounts_of_server:
        what = "nfstune mounts its own with nosharecache, so your mount's options do not pin the ones tested."
        add(Problem("info", "client", f"Your own mount of {server_label} at {mount_point} stays as it is", what))
    virtual = [(r, lb) for f, r, lb in hosts if f.route and f.route.interface and f.route.speed_mbps is None]
    if virtual:
        where: HostRole = "both" if len(virtual) == 2 else virtual[0][0]
        names = " and ".join(label for _, label in virtual)
        what = "A virtual NIC (or a link that is down) reports no speed; the network ceiling comes from iperf3 alone."
        add(Problem("info", where, f"NIC speed unknown on {names}", what))
    with_rdma = [label for f, _, label in hosts if any(d.active for d in f.rdma_devices)]
    if len(with_rdma) == 1:
        without = client_label if with_rdma == [server_label] else server_label
        what = (
            f"NFS over RDMA needs an RDMA device (an InfiniBand or RoCE NIC) on both hosts; {without} has none "
            "active, so the transport recipe compares TCP alone."
        )
        add(Problem("info", "both", f"RDMA on {with_rdma[0]} only", what))
    if fs is not None and fs.rotational:
        spinning = ", ".join(d.model or d.name for d in fs.disks if d.rotational)
        what = f"Sync writes will be slow: each fsync waits for the disk ({spinning})."
        add(Problem("info", "server", f"A spinning disk is under {fs.path} on {server_label}", what))
    toward_client = server.route.peer_address if server.route else None
    for severity, title, what in [
        *firewall_findings(server, server_label, toward_client),
        *selinux_findings(server, server_label),
    ]:
        add(Problem(severity, "server", title, what))
    found += exports_problems(export_files or {})
    return sorted(found, key=lambda p: SEVERITIES.index(p.severity))


def _without_login(server: HostFacts, label: str, share: str | None) -> list[Problem]:
    from nfstune.session.nas_view import NO_LOGIN_NOTES

    found = [
        Problem(
            "info",
            "server",
            f"No login on {label}: the client's side alone",
            " ".join(
                f"{note if note.startswith('nfstune') else note[0].upper() + note[1:]}." for note in NO_LOGIN_NOTES
            ),
        )
    ]
    if server.nfs_server_active is False:
        what = f"Tried from the client: {server.nfs_server_state}. Check the share's NFS permissions for this client."
        found.append(Problem("error", "server", f"The client cannot mount {share} from {label}", what))
    return found


def exports_problems(files: Mapping[str, str]) -> list[Problem]:
    """What the server's exports files do that their author may not expect, each with its file and line: a line
    after which exportfs stops reading, a space before "(" (the options then go to the whole world), a bare path
    (exported to everyone), no_root_squash for any host, clients exportfs skips, relative paths."""
    found = []
    for file, doc in parsed_in_order(files):
        stop = doc.stop
        if stop is not None:
            what = (
                f"{stop.error}. Nothing after line {stop.line} is exported, and nothing nfstune adds after it would "
                "be either. Correct that line first."
            )
            found.append(Problem("warning", "server", f"{file} line {stop.line}: exportfs stops reading here", what))
        for f in findings(doc):
            if f.finding.kind != "risk":
                continue
            # risks an admin sets knowingly, for their own reasons: told, not warned about
            chosen = (ASYNC_RISK, INSECURE_RISK, FSID_ROOT_RISK.format(option=f.finding.option))
            severity: Severity = "info" if f.finding.message in chosen else "warning"
            who = " ".join(part for part in (f.path, f.client) if part)
            found.append(Problem(severity, "server", f"{file} line {f.line}: {who}", f.finding.message))
    return found


def blocking(problems: Sequence[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)
