"""The session's scratch directory made from the client, over NFS, when nfstune cannot log in to the server (a NAS
appliance with SSH off, a login without root). Each step mounts the export on a temporary point of its own, so that
the undo works on its own: after a crash, a reboot of the client, or with the session's mount gone.

A server that squashes root (root_squash, the default) maps the client's root to an anonymous user, which may not
write in the share's top folder. The directory is then made as the owner of that folder (AUTH_SYS: the uid the
client claims is the uid the server uses), open to everyone like the server-made one (mount.scratch_steps), so
that the workloads' squashed root writes in it; the undo removes the contents as root and the directory as that
owner."""

from __future__ import annotations

import posixpath
import shlex

from nfstune.changes.steps import Steps, shell
from nfstune.changes.transaction import Transaction, on_share, run_step, undo_nfs_scratch
from nfstune.errors import NfstuneError
from nfstune.nfs.own_mount import SCRATCH_PREFIX
from nfstune.remote import Host

KIND = "nfs-scratch"


def nfs_scratch_steps(server_address: str, share: str, name: str) -> Steps:
    d = shlex.quote(name)
    line = on_share(
        server_address,
        share,
        f'mkdir -m 0777 "$m"/{d} 2>/dev/null || as_owner mkdir -m 0777 "$m"/{d} || {{ '
        f'echo "neither root nor the owner of {share} (uid $(stat -c %u "$m"), mode $(stat -c %a "$m")) may '
        'write in it over NFS" >&2; exit 1; }',
    )
    what = f"make the scratch directory {posixpath.join(share, name)} over NFS, open to the clients"
    return Steps((shell("client", line, what),), (undo_nfs_scratch("client", server_address, share, name),))


def make_nfs_scratch(client: Host, tx: Transaction, server_address: str, share: str, name: str) -> str:
    """A scratch directory of ours in the export, made by the client; journaled first. Returns its path on the
    server."""
    if not name.startswith(SCRATCH_PREFIX) or "/" in name:
        raise NfstuneError(f"{name!r} is not a scratch directory name of nfstune's")
    path = posixpath.join(share, name)
    (step,) = nfs_scratch_steps(server_address, share, name).do
    tx.record(client, KIND, path, detail={"server": server_address, "share": share, "name": name})
    tx.progress(f"{client.label}: making the scratch directory {path} on {server_address} over NFS")
    run_step(client, step, timeout=300, action=f"making the scratch directory {path} on {server_address} over NFS")
    return path
