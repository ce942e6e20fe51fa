"""nfstune's own mount of an export: where it goes (under MOUNT_ROOT), the scratch directory it writes in (named
SCRATCH_PREFIX...) and the mark that says it is nfstune's, and the mount command (pure; nfstune.changes.mount makes
the mount)."""

from __future__ import annotations

import secrets

from nfstune.nfs.mounts import mount_source

MOUNT_ROOT = "/mnt/nfstune"
SCRATCH_PREFIX = ".nfstune-"
OWNER_MARK_PREFIX = ".nfstune-owner-"
SCRATCH_WORK = "files"  # the folder of the scratch directory the workloads write in, when made over NFS
PLAN_OWNER = "<random>"  # the mark's token as a plan shows it: it is drawn when the directory is made


def new_scratch_name() -> str:
    """A scratch directory name nothing else has: random, not a time another run, tool or user could take first
    (a name that is taken anyway makes nfstune's exclusive mkdir fail, and nothing of it is touched)."""
    return f"{SCRATCH_PREFIX}{secrets.token_hex(8)}"


def new_owner_token() -> str:
    """The secret a scratch directory's mark carries (journaled with it): a directory of that name that lacks it was
    not made by that change, and its undo leaves it."""
    return secrets.token_hex(16)


def owner_mark(token: str) -> str:
    """The mark's name inside the scratch directory: an empty folder, made by mkdir (which follows no link and
    overwrites nothing)."""
    return f"{OWNER_MARK_PREFIX}{token}"


def mount_argv(server_address: str, export_path: str, options: str, mount_point: str) -> tuple[str, ...]:
    """The client's mount command for nfstune's own mount: `nosharecache` first, then the configuration's
    options."""
    opts = ",".join(o for o in ("nosharecache", options) if o)
    return ("mount", "-t", "nfs", "-o", opts, mount_source(server_address, export_path), mount_point)


def mount_point_for(scratch_name: str) -> str:
    """The session's mount point (every visit mounts there in turn), named after its scratch directory."""
    return f"{MOUNT_ROOT}/{scratch_name.removeprefix(SCRATCH_PREFIX)}"
