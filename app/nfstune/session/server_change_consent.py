"""The checks on the server before a session changes anything: an appliance's exports are refused, and a change
of the export while other NFS clients use the server is put to the admin (server_change.py says what they are told).
nfstune's own client host, holding only the lease of its last unmount, is no other client."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from nfstune.changes.export import ApplianceRefused, list_connected_clients
from nfstune.errors import NfstuneError
from nfstune.facts.appliance import async_setting_hint
from nfstune.nfs.kernel_view import NfsClient
from nfstune.nfs.mounts import parse_proc_mounts
from nfstune.nfs.own_mount import MOUNT_ROOT
from nfstune.recipes.plan import Plan
from nfstune.session.admin import Admin, Declined
from nfstune.session.inputs import SessionHosts
from nfstune.session.load_clients import LoadHost
from nfstune.session.server_change import AsyncStep, ServerChange


def guard_server(
    plan: Plan, hosts: SessionHosts, own: Sequence[LoadHost], admin: Admin, *, appliance: str | None
) -> None:
    """Before anything is changed: refuse an appliance's exports, and have the admin confirm a change of the
    export while other clients use the server. `own`: the session's clients."""
    server_side = [(item, c) for item in plan.recipes for c in item.configs if c.export]
    if not server_side:
        return
    server = hosts.server
    if server is None:  # the plan skips every configuration that changes the server when there is no login
        raise NfstuneError(f"the plan changes the export, but nfstune cannot log in to {hosts.server_address}")
    if appliance is not None:
        names = ", ".join(f"{item.recipe.id} {c.label}" for item, c in server_side)
        raise ApplianceRefused(
            f"{server.label} is a {appliance} appliance, which owns its NFS configuration: nfstune "
            f"does not write its exports ({names} would). Nothing was changed. To switch asynchronous writes "
            f"there: {async_setting_hint(appliance)}"
        )
    clients = list_connected_clients(server)
    if not clients:
        admin.log(f"{server.label}: no other NFS client is connected")
        return
    if only_own_leftovers(clients, own):
        admin.log(
            f"{server.label}: the only NFS client state is {hosts.client.label}'s, which mounts nothing over "
            "NFS but nfstune's own: the lease an earlier unmount left (NFSv4 keeps it a minute or two)"
        )
        return
    steps = tuple(
        AsyncStep(
            f"{item.recipe.id} {c.label}",
            len(c.workloads or item.recipe.workloads),
            sum(1 for v in item.visits if v.label == c.label),
        )
        for item, c in server_side
        if "async" in c.export.set
    )
    change = ServerChange(
        server.label,
        hosts.share,
        tuple(clients),
        hosts.client_address,
        hosts.client.label,
        len(server_side),
        steps,
    )
    admin.log(change.message())
    if admin.confirm is None or not admin.confirm(change):
        raise Declined(
            f"not confirmed: {hosts.share} on {server.label} was not changed while "
            f"{len(clients)} client connection(s) use that server. Nothing was changed."
        )


def only_own_leftovers(clients: Sequence[NfsClient], own: Sequence[LoadHost]) -> bool:
    """Whether every connected client is nfstune's own client host, which has no NFS mount (of any server, by
    any name) but under nfstune's mount root: a session right after another (nfs-versions' vers=4.0, then
    quick-check) otherwise met its own expiring lease and stopped to ask about "another client"."""
    by_address = {load.address: load.host for load in own if load.address}
    if any(c.host not in by_address for c in clients):
        return False
    for address in {c.host for c in clients}:  # the further clients of a many-clients session are ours too
        proc_mounts = by_address[address].run(["cat", "/proc/mounts"], action="reading /proc/mounts").stdout
        mounts = parse_proc_mounts(proc_mounts)
        if any(posixpath.dirname(m.mount_point) != MOUNT_ROOT for m in mounts if m.is_nfs):
            return False
    return True
