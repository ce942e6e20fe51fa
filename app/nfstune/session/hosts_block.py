"""The connected hosts as resolved, said above the desktop's plan as `nfstune run --dry-run` says them."""

from __future__ import annotations

from nfstune.remote import Host
from nfstune.remote.local import is_local
from nfstune.remote.resolved import NOT_LOGGED_IN, Resolved, client_role, hosts_text
from nfstune.session.workflow import Pair

LOCAL = "this computer itself: no SSH login"


def _resolved(role: str, host: Host) -> Resolved:
    if is_local(host):
        return Resolved(role, host.label, None, LOCAL)
    return Resolved(role, host.target.alias, host.target)


def pair_hosts_text(pair: Pair) -> str:
    skipped = NOT_LOGGED_IN.format(address=pair.address, share=pair.share)
    server = (
        Resolved("server", pair.address, None, skipped) if pair.server is None else _resolved("server", pair.server)
    )
    count = len(pair.clients)
    return hosts_text([server, *(_resolved(client_role(n, count), h) for n, h in enumerate(pair.clients))])
