"""nfstune's own mount of an export: where it goes (under MOUNT_ROOT), the scratch directory it writes in (named
SCRATCH_PREFIX...), and the mount command (pure; nfstune.changes.mount makes the mount)."""

from __future__ import annotations

from nfstune.nfs.mounts import mount_source

MOUNT_ROOT = "/mnt/nfstune"
SCRATCH_PREFIX = ".nfstune-"


def mount_argv(server_address: str, export_path: str, options: str, mount_point: str) -> tuple[str, ...]:
    """The client's mount command for nfstune's own mount: `nosharecache` first, then the configuration's
    options."""
    opts = ",".join(o for o in ("nosharecache", options) if o)
    return ("mount", "-t", "nfs", "-o", opts, mount_source(server_address, export_path), mount_point)


def mount_point_for(scratch_name: str) -> str:
    """The session's mount point (every visit mounts there in turn), named after its scratch directory."""
    return f"{MOUNT_ROOT}/{scratch_name.removeprefix(SCRATCH_PREFIX)}"
