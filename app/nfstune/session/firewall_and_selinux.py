"""What on the server stands between nfsd and the client beyond NFS itself: a firewall that does not let NFS in,
and SELinux that will not let rpc.mountd export a scratch filesystem nfstune makes. Pure: read from HostFacts.

nfstune never changes either: each finding says what the admin would run. Only firewalld and ufw are read; rules of
one's own in nftables or iptables are not (a run then fails at its first mount, saying the server did not answer).
"""

from __future__ import annotations

from typing import Literal

from nfstune.facts.firewall import MOUNTD_PORT, NFS_PORT, RPCBIND_PORT, FirewallFacts
from nfstune.facts.model import HostFacts
from nfstune.shell_text import sh_line

# (severity, title, detail), as preflight.Problem takes them for the server
Finding = tuple[Literal["error", "warning", "info"], str, str]


# the zone's name and the client's address come from the hosts: quoted, as the admin pastes these commands
def _firewalld_commands(zone: str, services: tuple[str, ...]) -> str:
    adds = [f"--add-service={s}" for s in services]
    return sh_line(
        "`sudo firewall-cmd --permanent {zone} {adds} && sudo firewall-cmd --reload`", zone=f"--zone={zone}", adds=adds
    )


def _ufw_command(client: str | None, ports: tuple[str, ...]) -> str:
    source = sh_line("from {client} ", client=client) if client else ""
    return " and ".join(
        "`sudo ufw allow " + source + sh_line("to any port {port} proto tcp`", port=p.split("/")[0]) for p in ports
    )


def firewall_findings(server: HostFacts, label: str, client_address: str | None) -> list[Finding]:
    """The server's firewall against NFS (2049/tcp), and mountd (20048) with rpcbind (111) that NFSv3 mounts need.
    `client_address`: the client's address as the server sees it, for the commands."""
    fw: FirewallFacts | None = server.firewall
    if fw is None or fw.accepts_all:
        return []
    zone = fw.zone or "public"
    where = f"{fw.name} on {label}" + (f" (zone {zone})" if fw.name == "firewalld" else "")
    if fw.open_ports is None:
        look = (
            sh_line("`sudo firewall-cmd {zone} --list-all`", zone=f"--zone={zone}")
            + " should list nfs (and mountd, rpc-bind for NFSv3)"
            if fw.name == "firewalld"
            else "`sudo ufw status` should allow 2049 (and 20048, 111 for NFSv3)"
        )
        what = (
            f"This login may not read its rules, so nfstune cannot tell whether NFS gets through. {look}. "
            "If it does not, the client's mount waits and fails."
        )
        return [("warning", f"{where} filters what reaches the NFS server", what)]
    found: list[Finding] = []
    if not fw.lets_in(NFS_PORT):
        command = (
            _firewalld_commands(zone, ("nfs",)) if fw.name == "firewalld" else _ufw_command(client_address, (NFS_PORT,))
        )
        unread = "a rich rule or a zone bound to the client's address" if fw.name == "firewalld" else "an iptables rule"
        what = (
            f"Its rules do not let NFS (port 2049/tcp) in, so the client cannot mount {label}'s share (unless "
            f"{unread}, which nfstune does not read, lets it). To allow it: {command}. nfstune never changes the "
            "firewall itself."
        )
        found.append(("warning", f"{where} does not let NFS in", what))
    v3 = [p for p in (MOUNTD_PORT, RPCBIND_PORT) if not fw.lets_in(p)]
    if v3 and (server.nfsd_versions_enabled is None or "3" in server.nfsd_versions_enabled):
        names = {MOUNTD_PORT: "mountd (20048)", RPCBIND_PORT: "rpcbind (111)"}
        services = {MOUNTD_PORT: "mountd", RPCBIND_PORT: "rpc-bind"}
        command = (
            _firewalld_commands(zone, tuple(services[p] for p in v3))
            if fw.name == "firewalld"
            else _ufw_command(client_address, tuple(v3))
        )
        # rpc.mountd binds the port /etc/services names for it (20048 on Fedora and RHEL), else one rpcbind picks
        mountd = (
            ""
            if fw.name == "firewalld"
            else " (mountd listens on 20048 only where nfs.conf's [mountd] port= or /etc/services says so: "
            "`rpcinfo -p` on the server shows its port)"
        )
        what = (
            f"It does not let {' and '.join(names[p] for p in v3)} in: NFSv4 mounts work, but the configurations "
            f"that mount with vers=3 fail. To allow them: {command}{mountd}."
        )
        found.append(("warning", f"{where} blocks what NFSv3 mounts need", what))
    return found


def selinux_findings(server: HostFacts, label: str) -> list[Finding]:
    """SELinux enforcing with an export boolean off: a scratch filesystem nfstune exports (the filesystems recipe)
    carries no label rpc.mountd may read. Nothing when both are on (the default) or SELinux does not enforce."""
    se = server.selinux
    if se is None or se.mode != "enforcing":
        return []
    values = (("nfs_export_all_ro", se.export_all_ro), ("nfs_export_all_rw", se.export_all_rw))
    off = [name for name, value in values if value is False]
    if off:
        what = (
            f"SELinux is enforcing and {' and '.join(off)} is off, so a scratch filesystem nfstune exports (the "
            "filesystems recipe) has no label NFS may serve, and its mount is refused. For the run: "
            f"`sudo setsebool {' '.join(f'{n}=1' for n in off)}` (without -P it lasts until the next boot). "
            f"{label}'s own share is measured as it is."
        )
        return [("warning", f"SELinux on {label} will not let NFS export a scratch filesystem", what)]
    if any(value is None for _, value in values):
        what = (
            "SELinux is enforcing and getsebool did not answer, so nfstune cannot tell whether nfs_export_all_ro and "
            "nfs_export_all_rw are on (they are by default). If a scratch filesystem's mount is refused (the "
            "filesystems recipe), `getsebool nfs_export_all_rw` on the server tells."
        )
        return [("info", f"SELinux on {label}: the NFS export booleans are unknown", what)]
    return []
