"""Isolated mode: instead of changing the user's export, export a loop-mounted scratch filesystem of our own.

Measured in the lab (docs/lab-poc/README.md): it cannot leak into the user's export (its own filesystem, its
own uuid), but every flush goes through two filesystems, so a sync write costs ~2.5x what it costs on the real
filesystem. Offer it as the safe choice, labelled as less faithful for sync-vs-async figures.

The `filesystems` recipe compares such scratch filesystems (ext4, xfs, btrfs) with one another: each of its
configurations runs on one, made, exported, unexported and removed by the visit.
"""

from __future__ import annotations

import posixpath
import secrets
from dataclasses import dataclass

from nfstune.changes.export import ApplianceRefused, ExportChange, export_steps, exportfs_table
from nfstune.changes.host_change import OnHosts, Where
from nfstune.changes.mount import make_scratch, scratch_steps
from nfstune.changes.steps import Steps, command, shell
from nfstune.changes.transaction import NOT_MADE, Transaction, run_make, run_step, undo_mount, undo_scratch
from nfstune.errors import NfstuneError
from nfstune.nfs.own_mount import SCRATCH_PREFIX
from nfstune.remote import Host
from nfstune.shell_text import sh_line

# mkfs of each filesystem, quiet and forced (the file is ours and new); xfs needs at least 300 MiB
MKFS = {
    "ext4": ("mkfs.ext4", "-q", "-F", "-L", "nfstune"),
    "xfs": ("mkfs.xfs", "-q", "-f", "-L", "nfstune"),
    "btrfs": ("mkfs.btrfs", "-q", "-f", "-L", "nfstune"),
}
SMALLEST_MIB = {"ext4": 16, "xfs": 300, "btrfs": 128}
MIB = 1024 * 1024
EXPORTS_FILE = "/etc/exports.d/nfstune-isolated.exports"


def isolated_paths(share_path: str, stamp: str) -> tuple[str, str]:
    """The scratch filesystem's file, on the share's own disk, and where it is mounted on the server. `stamp` is
    random (new_stamp): a name another run, tool or user could take first would have its file truncated and
    formatted, and removed by the undo."""
    return posixpath.join(share_path, f"{SCRATCH_PREFIX}isolated-{stamp}.img"), f"/srv/nfstune-isolated-{stamp}"


def isolated_steps(image: str, path: str, filesystem: str, size_mib: int, options: str) -> Steps:
    """A scratch filesystem in a sparse file on the share's disk, loop-mounted on the server at `path` and exported
    alone in EXPORTS_FILE (/etc/exports.d made when it is missing)."""
    # noclobber makes the redirection an exclusive create (O_EXCL): a file of that name already there is left as
    # it is (NOT_MADE), never truncated, formatted or removed
    create = sh_line(
        "(set -C; : > {image}) || exit {not_made}; truncate -s {size} {image}",
        image=image,
        size=f"{size_mib}M",
        not_made=NOT_MADE,
    )
    made = Steps(
        (
            shell("server", create, f"a new sparse {size_mib} MiB file on the share's disk"),
            command("server", (*MKFS[filesystem], image), f"make a {filesystem} filesystem in it"),
        ),
        (undo_scratch("server", image),),
    )
    mounted = Steps(
        (
            shell(
                "server",
                sh_line("mkdir -p {parent} && mkdir {path}", parent=posixpath.dirname(path), path=path),
                f"make {path}",
            ),
            command("server", ("mount", "-o", "loop", image, path), "loop-mount the filesystem there"),
            # the clients only pass through its top folder, to the scratch directory given to them (mount.py)
            command("server", ("chmod", "0755", path), "let the clients through it to the scratch directory"),
        ),
        (undo_mount("server", path),),
    )
    exported = export_steps(
        EXPORTS_FILE, backup=None, make_parent=True, what=f"export {path} alone to this client ({options})"
    )
    return made.then(mounted).then(exported)


class IsolatedExport:
    """A file-backed filesystem (ext4 unless told otherwise) on the share's own disk, loop-mounted on the server and
    exported alone."""

    def __init__(
        self,
        server: Host,
        tx: Transaction,
        *,
        share_path: str,
        client_spec: str,
        options: str,
        size_mib: int = 256,
        filesystem: str = "ext4",
        appliance: str | None = None,
    ) -> None:
        if filesystem not in MKFS:
            raise ValueError(f"no scratch filesystem of type {filesystem!r}: {', '.join(MKFS)}")
        if size_mib < SMALLEST_MIB[filesystem]:
            raise ValueError(f"a scratch {filesystem} needs at least {SMALLEST_MIB[filesystem]} MiB")
        if any(c.isspace() or not c.isprintable() for c in client_spec + options):
            # one exports line: a blank or a newline here would export to another client, or add a line of its own
            raise NfstuneError(f"not one client and its options for an exports line: {client_spec!r} ({options!r})")
        if appliance:  # before anything is made: an appliance owns its exports, and its disks
            raise ApplianceRefused(
                f"{server.label} is a {appliance} appliance, which owns its NFS configuration: nfstune does not "
                "make or export filesystems of its own there"
            )
        self.filesystem, self.appliance = filesystem, appliance
        self.server, self.tx = server, tx
        self.image, self.path = isolated_paths(share_path, new_stamp())
        self.client_spec, self.options, self.size_mib = client_spec, options, size_mib
        self.change: ExportChange | None = None

    @property
    def write_mode(self) -> str:
        return "async" if "async" in self.options.split(",") else "sync"

    def apply(self) -> None:
        s, tx = self.server, self.tx
        truncate, mkfs, mkdir, mount, chmod, *_export = isolated_steps(
            self.image, self.path, self.filesystem, self.size_mib, self.options
        ).do
        tx.progress(f"{s.label}: creating a {self.size_mib} MiB scratch {self.filesystem} filesystem in {self.image}")
        made = tx.record(s, "scratch", self.image)
        run_make(tx, s, made, truncate, action=f"creating {self.image}")
        run_step(s, mkfs, timeout=300, action=f"making a {self.filesystem}")
        tx.record(s, "mount", self.path)
        for step in (mkdir, mount, chmod):
            run_step(s, step)
        line = f"{self.path} {self.client_spec}({self.options})\n"
        self.change = ExportChange(
            s,
            tx,
            file=EXPORTS_FILE,
            new_text=line.encode(),
            expect={self.path: self.write_mode},
            appliance=self.appliance,
        )
        self.change.apply()


def new_stamp() -> str:
    return secrets.token_hex(8)


def scratch_size_mib(files_bytes: int, filesystem: str) -> int:
    """Room for a configuration's files (`files_bytes`, at the largest sizes growth may reach) twice over: a
    filesystem's own metadata, and no run ever near full. The file is sparse: only what is written takes space."""
    return max(SMALLEST_MIB[filesystem], -(-2 * files_bytes // MIB) + 64)


def export_options(edit_set: tuple[str, ...]) -> str:
    """A scratch filesystem's export options: read-write for the one client, sync unless the configuration sets
    async, and the configuration's own options; root is squashed (the scratch directory is given to the user it is
    squashed to)."""
    mode = () if {"sync", "async"} & set(edit_set) else ("sync",)
    return ",".join(("rw", "no_subtree_check", *mode, *edit_set))


@dataclass(frozen=True)
class ScratchFilesystem:
    """A visit's own scratch filesystem of type `filesystem` (`size_mib`, exported with `options`), with the
    session's scratch directory in it: the visit's mounts mount it instead of the share, and it goes at the undo."""

    filesystem: str
    options: str
    size_mib: int

    def steps(self, where: Where) -> Steps:
        image, where.export_path = isolated_paths(where.share, "<stamp>")
        made = isolated_steps(image, where.export_path, self.filesystem, self.size_mib, self.options)
        return made.then(scratch_steps(where.server_address, where.export_path, where.scratch_name))

    def apply(self, on: OnHosts) -> None:
        """Exported alone to this client, or to the share's own clients when its address is not known: never to
        more than the share is."""
        server, share = on.host("server"), on.where.share
        spec = on.client_address or next((client for path, client in exportfs_table(server) if path == share), None)
        if not spec:
            raise NfstuneError(
                f"{server.label}: the share {share} is not exported, so nfstune cannot tell which client "
                "a scratch filesystem may be exported to"
            )
        scratch = IsolatedExport(
            server,
            on.tx,
            share_path=share,
            client_spec=spec,
            options=self.options,
            size_mib=self.size_mib,
            filesystem=self.filesystem,
            appliance=on.appliance,
        )
        scratch.apply()
        # the session's scratch directory, on this filesystem too (it goes with the filesystem at the undo)
        make_scratch(server, on.host("client"), on.tx, on.where.server_address, scratch.path, on.where.scratch_name)
        on.where.export_path, on.new_filesystem = scratch.path, True
