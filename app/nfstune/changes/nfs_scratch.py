"""The session's scratch directory made from the client, over NFS, when nfstune cannot log in to the server (a NAS
appliance with SSH off, a login without root). Each step mounts the export on a temporary point of its own, so that
the undo works on its own: after a crash, a reboot of the client, or with the session's mount gone.

Made by the client's root, mode 0700, it belongs to whomever the share maps that root to (nobody or the anonuid
behind root_squash, root without it: the user the workloads write as) and is private to the run, as the server-made
one is (mount.scratch_steps). A server that squashes root may not let that user write in the share's top folder:
the directory is then made as the owner of that folder (AUTH_SYS: the uid the client claims is the uid the server
uses), and has to be open to all (0777) for the squashed root to write in it: sticky, fs.protected_regular on the
client would refuse fio the reopen of its own files (they are nobody's, the directory is not). The step says so
(OPEN_TO_ALL), and the admin is told. The undo removes the contents as root and the directory as that owner.

As on the server, the directory is made by an exclusive mkdir, and holds a mark with a token of its change's (a
folder named by own_mount.owner_mark): the undo removes only a directory that has it (issue 37)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from nfstune.changes.host_change import OnHosts, Where
from nfstune.changes.mount import OWNER_SHOWN, private_to
from nfstune.changes.steps import Steps, shell
from nfstune.changes.transaction import NOT_MADE, Transaction, on_share, run_make, undo_nfs_scratch
from nfstune.errors import NfstuneError
from nfstune.nfs.own_mount import PLAN_OWNER, SCRATCH_PREFIX, new_owner_token, owner_mark
from nfstune.remote import Host
from nfstune.shell_text import sh_line

KIND = "nfs-scratch"
OPEN_TO_ALL = "NFSTUNE_OPEN_TO_ALL"  # said by the step that had to make the directory as the top folder's owner


def nfs_scratch_steps(server_address: str, share: str, name: str, owner: str = PLAN_OWNER) -> Steps:
    """An exclusive mkdir (a name taken already is left alone: NOT_MADE), as root or else as the share's owner, then
    the mark with `owner` inside, by which the undo knows the directory for its own."""
    path = posixpath.join(share, name)
    body = sh_line(
        'if mkdir -m 0700 "$m"/{name} 2>/dev/null; then :; '
        'elif as_owner mkdir -m 0777 "$m"/{name}; then echo {open}; '
        'elif [ -e "$m"/{name} ] || [ -L "$m"/{name} ]; then '
        "printf '%s exists already: nfstune leaves it as it is\\n' {path} >&2; exit {not_made}; "
        "else printf 'neither root nor the owner of %s (uid %s, mode %s) may write in it over NFS\\n' "
        '{share} "$(stat -c %u "$m")" "$(stat -c %a "$m")" >&2; exit {not_made}; fi; '
        # the mark: a name nobody could take first (its token is drawn now); if it cannot be made, the directory goes
        'mkdir "$m"/{name}/{mark} && stat -c {shown} "$m"/{name} && exit 0; '
        '{{ rmdir "$m"/{name} 2>/dev/null || as_owner rmdir "$m"/{name}; }} && exit {not_made}; exit 1',
        name=name,
        path=path,
        share=share,
        mark=owner_mark(owner),
        open=OPEN_TO_ALL,
        shown=OWNER_SHOWN,
        not_made=NOT_MADE,
    )
    what = (
        f"make the scratch directory {path} over NFS as root, mode 0700 (private to the user the share maps root "
        "to), with nfstune's mark in it; where only the owner of the share's top folder may write there, as that "
        "owner, open to all (0777)"
    )
    return Steps(
        (shell("client", on_share(server_address, share, body), what),),
        (undo_nfs_scratch("client", server_address, share, name, owner),),
    )


def make_nfs_scratch(client: Host, tx: Transaction, server_address: str, share: str, name: str) -> str:
    """A scratch directory of ours in the export, made by the client; journaled first, with its mark's token.
    Returns its path on the server."""
    if not name.startswith(SCRATCH_PREFIX) or "/" in name:
        raise NfstuneError(f"{name!r} is not a scratch directory name of nfstune's")
    path = posixpath.join(share, name)
    owner = new_owner_token()
    (step,) = nfs_scratch_steps(server_address, share, name, owner).do
    entry = tx.record(
        client, KIND, path, detail={"server": server_address, "share": share, "name": name, "owner": owner}
    )
    tx.progress(f"{client.label}: making the scratch directory {path} on {server_address} over NFS")
    action = f"making the scratch directory {path} on {server_address} over NFS"
    made = run_make(tx, client, entry, step, timeout=300, action=action)
    said = made.stdout.split("\n") if made is not None else []
    shown = said[-2] if len(said) >= 2 else ""
    if OPEN_TO_ALL in said:
        tx.progress(
            f"{client.label}: warning: the scratch directory {path} is open to every user of the share for the run "
            f"(mode 0777, {private_to(shown)}): {server_address} squashes the client's root to a user who may not "
            f"write in {share}, so the folder's owner made it. Let root write in {share}, or let nfstune log in to "
            "the server, and the directory is private to the run."
        )
    else:
        tx.progress(f"{client.label}: the scratch directory {path} is private to the run: {private_to(shown)}")
    return path


@dataclass(frozen=True)
class ScratchOverNfs:
    """The session's scratch directory, made by the client over NFS (no login on the server)."""

    def steps(self, where: Where) -> Steps:
        return nfs_scratch_steps(where.server_address, where.share, where.scratch_name)

    def apply(self, on: OnHosts) -> None:
        w = on.where
        on.scratch = make_nfs_scratch(on.host("client"), on.tx, w.server_address, w.share, w.scratch_name)
