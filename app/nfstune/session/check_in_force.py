"""The first step of a check: that what the last Apply wrote is what the hosts run (results/in_force.py compares).
The client's mount of the applied fstab line as /proc/mounts shows it; when that mount is not mounted, nfstune
mounts the share itself with the line's options, as its sessions do (journaled, undone before this returns), and
reads the negotiated options there. The server's export as `exportfs -s` shows it, and nfsd's running thread count
when the Apply set one."""

from __future__ import annotations

from collections.abc import Callable

from nfstune.changes.export import exportfs_table
from nfstune.changes.mount import ClientMount
from nfstune.changes.transaction import Transaction
from nfstune.nfs.exports import parse as parse_exports
from nfstune.nfs.fstab_rewrite import parse_fstab_line
from nfstune.nfs.mount_options import MountOptions
from nfstune.nfs.mounts import parse_proc_mounts
from nfstune.remote import Host
from nfstune.results.in_force import InForce, compare_export, compare_mount, compare_threads, kernel_options
from nfstune.store import Journal

Log = Callable[[str], None]


def mounted_options(client: Host, mount_point: str) -> MountOptions | None:
    """The NFS mount at `mount_point` as the kernel runs it; None when nothing of NFS is mounted there."""
    text = client.run(["cat", "/proc/mounts"], action="reading /proc/mounts").stdout
    found = [m for m in parse_proc_mounts(text) if m.mount_point == mount_point and m.is_nfs]
    return found[-1].options if found else None  # the last one mounted there is the one in use


def own_mount_options(
    server: Host | None, client: Host, share: str, address: str, options: MountOptions, journal: Journal, log: Log
) -> MountOptions:
    """The share mounted by nfstune with `options` at a mount point of its own (with a scratch directory of its own
    in it, which the mount is checked by), the negotiated options read, and both undone."""
    tx = Transaction(journal, log)
    try:
        mount = ClientMount(client, server, tx, server_address=address, export_path=share, options=options.render())
        return MountOptions.parse(mount.mount())
    finally:
        tx.undo()


def verify_in_force(
    server: Host | None,
    client: Host,
    applied: dict[str, object],
    *,
    address: str,
    journal: Journal,
    log: Log,
) -> InForce:
    """`applied`: the Apply's settings as its journal keeps them (changes/apply.applied_settings)."""
    found = InForce()
    fstab_line = str(applied.get("fstab_line") or "")
    share = str(applied.get("share") or "")
    if fstab_line:
        entry = parse_fstab_line(fstab_line)
        wanted = kernel_options(entry.options)
        log(f"{client.label}: reading the mount at {entry.mount_point} (/proc/mounts)")
        running = mounted_options(client, entry.mount_point)
        where = entry.mount_point
        if running is None:
            where = "nfstune's own mount with the applied fstab options"
            log(f"{client.label}: {entry.mount_point} is not mounted: mounting the share with its options")
            running = own_mount_options(server, client, share, address, wanted, journal, log)
            found += InForce(notes=(f"{client.label}: {entry.mount_point} was not mounted: checked on {where}",))
        found += compare_mount(client.label, wanted, running, where)
    exports_line = str(applied.get("exports_line") or "")
    if server is not None and exports_line and share:
        log(f"{server.label}: reading the export of {share} (exportfs -s)")
        entry_of = parse_exports(exports_line + "\n").find(share)
        clients = (
            {c.name: tuple(c.explicit.split(",")) if c.explicit else () for c in entry_of.clients} if entry_of else {}
        )
        found += compare_export(server.label, share, clients, exportfs_table(server))
    threads = applied.get("nfsd_threads")
    if server is not None and isinstance(threads, int):
        log(f"{server.label}: reading nfsd's thread count (/proc/fs/nfsd/threads)")
        out = server.run(["cat", "/proc/fs/nfsd/threads"], sudo=True, check=False).stdout.strip()
        found += compare_threads(server.label, threads, int(out) if out.isdigit() else None)
    return found
