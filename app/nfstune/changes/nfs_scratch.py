"""The session's scratch directory made from the client, over NFS, when nfstune cannot log in to the server (a NAS
appliance with SSH off, a login without root). Each step mounts the export on a temporary point of its own, so that
the undo works on its own: after a crash, a reboot of the client, or with the session's mount gone.

The workloads write in a folder of it, WORK, made by the client's root, mode 0700: it belongs to whomever the share
maps that root to (nobody or the anonuid behind root_squash, root without it), the user the workloads write as, and
is private to the run as the server-made directory is (mount.scratch_steps). The directory itself is made by the
client's root too, mode 0700, where that user may write in the share's top folder. Where it may not (root squashed,
the folder someone else's), the directory is made as the owner of that folder (AUTH_SYS: the uid the client claims
is the uid the server uses), open to others' writes (1733, not listed) only until the client's root has made WORK
in it, then 0711: others pass through it to nothing they may list or write. The step says so (BY_OWNER). The undo
removes the contents as root and what is left as that owner.

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
from nfstune.nfs.own_mount import PLAN_OWNER, SCRATCH_PREFIX, SCRATCH_WORK, new_owner_token, owner_mark
from nfstune.remote import Host
from nfstune.shell_text import sh_line

KIND = "nfs-scratch"
WORK = SCRATCH_WORK  # the folder of the scratch directory the workloads write in, without a login on the server
BY_OWNER = "NFSTUNE_BY_OWNER"  # said by the step that made the directory as the share's top folder's owner


def scratch_work(server_login: bool) -> str:
    """Where.work of a session: the folder the workloads write in, in the scratch directory ("": itself)."""
    return "" if server_login else WORK


def nfs_scratch_steps(server_address: str, share: str, name: str, owner: str = PLAN_OWNER) -> Steps:
    """An exclusive mkdir (a name taken already is left alone: NOT_MADE), as root or else as the share's owner, then
    the mark with `owner` inside, by which the undo knows the directory for its own, and WORK, the client's root's;
    what was made is removed again when one of these fails."""
    path = posixpath.join(share, name)
    body = sh_line(
        'd="$m"/{name}; '
        'if mkdir -m 0700 "$d" 2>/dev/null; then by_owner=; '
        'elif as_owner mkdir -m 1733 "$d"; then by_owner=1; '
        'elif [ -e "$d" ] || [ -L "$d" ]; then '
        "printf '%s exists already: nfstune leaves it as it is\\n' {path} >&2; exit {not_made}; "
        "else printf 'neither root nor the owner of %s (uid %s, mode %s) may write in it over NFS\\n' "
        '{share} "$(stat -c %u "$m")" "$(stat -c %a "$m")" >&2; exit {not_made}; fi; '
        # the mark: a name nobody could take first (its token is drawn now); then the workloads' folder, and the
        # directory closed to others' writes
        'if mkdir "$d"/{mark} && mkdir -m 0700 "$d"/{work} && {{ [ -z "$by_owner" ] || as_owner chmod 0711 "$d"; }}; '
        'then [ -z "$by_owner" ] || echo {said}; stat -c {shown} "$d"/{work} && exit 0; fi; '
        'for x in "$d"/{work} "$d"/{mark} "$d"; do '
        '[ ! -e "$x" ] || rmdir "$x" 2>/dev/null || as_owner rmdir "$x"; done; '
        '[ ! -e "$d" ] && exit {not_made}; exit 1',
        name=name,
        path=path,
        share=share,
        mark=owner_mark(owner),
        work=WORK,
        said=BY_OWNER,
        shown=OWNER_SHOWN,
        not_made=NOT_MADE,
    )
    what = (
        f"make the scratch directory {path} over NFS as root, mode 0700, with nfstune's mark and the folder {WORK} "
        "the workloads write in (0700: private to the user the share maps root to); where only the owner of the "
        "share's top folder may write there, the directory as that owner, 0711 once that folder is made"
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
    work = posixpath.join(path, WORK)
    if BY_OWNER in said:
        tx.progress(
            f"{client.label}: the owner of {share} made the scratch directory {path} ({server_address} squashes the "
            f"client's root to a user who may not write there): others may pass through it, not list or write in "
            f"it (0711)"
        )
    tx.progress(f"{client.label}: the workloads' folder {work} is private to the run: {private_to(shown)}")
    return path


@dataclass(frozen=True)
class ScratchOverNfs:
    """The session's scratch directory, made by the client over NFS (no login on the server)."""

    def steps(self, where: Where) -> Steps:
        return nfs_scratch_steps(where.server_address, where.share, where.scratch_name)

    def apply(self, on: OnHosts) -> None:
        w = on.where
        on.scratch = make_nfs_scratch(on.host("client"), on.tx, w.server_address, w.share, w.scratch_name)
