"""Each host as resolved, said before anything else (`nfstune run --dry-run`, the desktop's plan): its role, the
name given, user@address:port, the jump hosts on the way, and the block of the SSH config that named it. An alias
from an Included file that resolves somewhere unexpected is seen here, before nfstune connects anywhere."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nfstune.remote.target import SshTarget
from nfstune.words import plural

TITLE = "Hosts, as nfstune reaches them"
NOT_LOGGED_IN = "not logged in to: only the NFS server the client mounts, {address}:{share}"


def client_role(number: int, clients: int) -> str:
    """'client' when there is one; 'client 1', 'client 2', ... when there are several (`number` from 0)."""
    return "client" if clients == 1 else f"client {number + 1}"


@dataclass(frozen=True)
class Resolved:
    role: str  # "server", "client", "client 2"
    given: str  # the name as the admin gave it
    target: SshTarget | None  # None: not logged in to (the server of a --no-server-login run)
    note: str = ""  # what stands instead of the target when there is none


def host_lines(host: Resolved) -> list[str]:
    """'server    mynas: admin@127.0.0.1:2222' and its indented lines: via, from, and what of the SSH config is not
    honoured (no ssh client: an Include not read)."""
    head = f"{host.role:9} {host.given}"
    indent = " " * 10
    t = host.target
    if t is None:
        return [f"{head}: {host.note}"]
    at = t.destination.split(" via ", 1)[0]
    once = f"{host.role:9} {at}"  # the name given is in it: said once
    lines = [once if host.given in (at, t.hostname) else f"{head}: {at}"]
    hops = t.jumps
    if hops:
        said = ", then ".join(h.named() for h in hops)
        lines.append(f"{indent}via the {plural(len(hops), 'jump host')} {said}")
    elif t.proxy_command:
        lines.append(f"{indent}via its ProxyCommand: {t.proxy_command}")
    lines.append(
        f"{indent}from {t.config_source}" if t.config_source else f"{indent}no ssh config entry: ssh's defaults"
    )
    lines += [f"{indent}note: {warning}" for warning in t.warnings]  # what of the SSH config nfstune cannot honour
    return lines


def hosts_text(hosts: Sequence[Resolved]) -> str:
    return "\n".join([f"{TITLE}:", *(f"  {line}" for host in hosts for line in host_lines(host))])
