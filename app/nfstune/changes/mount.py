"""nfstune's own mount of the export on the client, its scratch directory and the mount's read-ahead, each
journaled in the transaction before it is made; as the changes a plan lists (Mount, ClientDirectory, ReadAhead,
ScratchDirectory: host_change.py), their steps and how each is made."""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from dataclasses import dataclass

from nfstune.changes.host_change import OnHosts, Where
from nfstune.changes.steps import Role, Steps, command, shell
from nfstune.changes.transaction import (
    NOT_MADE,
    ChangeFailed,
    Transaction,
    on_share,
    run_make,
    run_step,
    undo_dir,
    undo_mount,
    undo_scratch_dir,
    undo_sysfs,
)
from nfstune.errors import NfstuneError
from nfstune.nfs.mounts import ProcMount, mounts_of_server, parse_proc_mounts
from nfstune.nfs.own_mount import (
    MOUNT_ROOT,
    PLAN_OWNER,
    mount_argv,
    mount_point_for,
    new_owner_token,
    new_scratch_name,
    owner_mark,
)
from nfstune.remote import Host
from nfstune.shell_text import sh_line

SCRATCH_SEEN = "NFSTUNE_SCRATCH_SEEN"
PROBE_PREFIX = ".nfstune-probe-"  # the folder the client's root writes its probe file in (a random name follows)
PROBE_FILE = "owner"
OWNER_SHOWN = "%u %U %a"  # the scratch directory's uid, user name and mode, as the hand-over step prints them


def mount_steps(
    server_address: str,
    export_path: str,
    options: str,
    mount_point: str,
    *,
    root_made: bool = True,
    role: Role = "client",
) -> Steps:
    """The mount point, made, and the export mounted on it; `root_made`: the folder of nfstune's mount points is
    made with it (and removed when empty at the undo), as it is unless another mount of nfstune's is there."""
    argv = mount_argv(server_address, export_path, options, mount_point)
    return Steps(
        (
            command(role, ("mkdir", "-p", mount_point), f"make the mount point {mount_point}"),
            command(role, argv, f"mount {export_path} with {options or 'the defaults'} (nosharecache)"),
        ),
        (
            undo_mount(role, mount_point),
            *(
                Steps((), (undo_dir(role, MOUNT_ROOT),)).only(f"when the mount made {MOUNT_ROOT}").undo
                if root_made
                else ()
            ),
        ),
    )


def client_directory_steps(role: Role, directory: str) -> Steps:
    """A client's own directory in the session's scratch directory, for a load from several clients at once; it
    goes with the scratch directory."""
    return Steps((command(role, ("mkdir", "-p", directory), f"make {role}'s own directory in the scratch directory"),))


def scratch_steps(
    server_address: str, export_path: str, name: str, owner: str = PLAN_OWNER, probe: str = PLAN_OWNER
) -> Steps:
    """The scratch directory, private to the run: an exclusive mkdir, mode 0700 (a name taken already is left alone:
    NOT_MADE), then the mark with `owner` inside, by which the undo knows the directory for its own (without it, the
    directory goes at once). Then it is given to the user the share maps the client's root to, which only a write
    over NFS shows (root_squash, all_squash, anonuid= and an appliance's own mapping alike): the client writes one
    file into a probe folder of a random name (`probe`) and the server reads its owner. Behind root_squash that is
    nobody (or the export's anonuid): no other user of the share may list, delete or replace what the run measures
    with, and being the owner of the directory and of its files, neither does fs.protected_regular refuse the
    client a reopen of them (it applies only in sticky directories). During the probe the directory is 0711: others
    may pass through it but not list it, so the probe folder (0777) is reached only by its random name. Not sticky:
    over NFS the client's kernel refuses root's exclusive create there under fs.protected_regular=2 (the file the
    server makes is nobody's, the folder root's: seen on the lab's 6.1 client), so the probe would fail. A link in
    the probe file's place is refused, never read for the owner of what it points to."""
    path = posixpath.join(export_path, name)
    folder = posixpath.join(path, probe_name(probe))
    make = sh_line(
        "mkdir -m 0700 {path} || exit {not_made}; mkdir {mark} || {{ rmdir {path} && exit {not_made}; exit 1; }}; "
        "mkdir -m 0777 {folder} && chmod 0711 {path}",
        path=path,
        mark=posixpath.join(path, owner_mark(owner)),
        folder=folder,
        not_made=NOT_MADE,
    )
    write = on_share(
        server_address,
        export_path,
        sh_line('(set -C; : > "$m"/{file})', file=posixpath.join(name, probe_name(probe), PROBE_FILE)),
    )
    # a link put there is refused, never followed to a file someone else owns
    hand_over = sh_line(
        "[ -f {file} ] && [ ! -L {file} ] && o=$(stat -c %u:%g {file}) && rm -rf --one-file-system {folder} "
        '&& chown "$o" {path} && chmod 0700 {path} '
        "&& stat -c {shown} {path}",
        file=posixpath.join(folder, PROBE_FILE),
        folder=folder,
        path=path,
        shown=OWNER_SHOWN,
    )
    return Steps(
        (
            shell(
                "server", make, f"make the scratch directory {path}, mode 0700, with nfstune's mark and a probe folder"
            ),
            shell(
                "client",
                write,
                "write a file in the probe folder over NFS as root: its owner is whom the share maps the client's "
                "root to",
            ),
            shell(
                "server",
                hand_over,
                "give the scratch directory to that user (nobody or the anonuid behind root_squash, root without it), "
                "mode 0700: private to the run; remove the probe folder",
            ),
        ),
        (undo_scratch_dir("server", path, owner),),
    )


def probe_name(token: str) -> str:
    return f"{PROBE_PREFIX}{token}"


def private_to(shown: str) -> str:
    """The owner and mode the hand-over step printed (OWNER_SHOWN), in words: "uid 65534 (nobody), mode 0700"."""
    uid, user, mode = [*shown.split(), "", "", ""][:3]
    return f"uid {uid} ({user}), mode {mode.zfill(4)}" if uid.isdigit() else "its owner unknown"


def readahead_steps(path: str, kib: int, before: str = "<the value before>") -> Steps:
    """`path`: the mount's read_ahead_kb under /sys/class/bdi (its device is known once it is mounted)."""
    return Steps(
        (
            shell(
                "client",
                sh_line("echo {kib} > {path}", kib=int(kib), path=path),
                f"read_ahead_kb {kib} for that mount (the value before is journaled)",
            ),
        ),
        (undo_sysfs("client", path, before, "put read_ahead_kb back (gone with the mount anyway)"),),
    )


def mounts_and_scratch_line(scratch: str) -> str:
    """/proc/mounts, then SCRATCH_SEEN when `scratch` is a directory: one command for both (each costs ~0.4 s in the
    lab VMs)."""
    return sh_line("cat /proc/mounts && {{ [ ! -d {scratch} ] || echo {seen}; }}", scratch=scratch, seen=SCRATCH_SEEN)


def readahead_path(device: str) -> str:
    return f"/sys/class/bdi/{device}/read_ahead_kb"


class ClientMount:
    """The chosen export mounted on a mount point of our own, `nosharecache` (so the user's own mounts of that
    server neither pin nor share its options), with a scratch directory of ours inside it."""

    def __init__(
        self,
        client: Host,
        server: Host | None,
        tx: Transaction,
        *,
        server_address: str,
        export_path: str,
        options: str,
        scratch_name: str | None = None,
        mount_point: str | None = None,
    ) -> None:
        """`scratch_name`: a scratch directory the caller already made (and journaled) in the export, to use
        instead of making one for this mount. `mount_point`: the one a plan named (under MOUNT_ROOT)."""
        self.client, self.server, self.tx = client, server, tx
        self.server_address, self.export_path, self.options = server_address, export_path, options
        if mount_point is not None and posixpath.dirname(mount_point) != MOUNT_ROOT:
            raise NfstuneError(f"{mount_point} is not a mount point of nfstune's (under {MOUNT_ROOT})")
        self.own_scratch = scratch_name is None
        self.scratch_name = scratch_name or new_scratch_name()
        # named after the scratch directory (random), not the time: another mount's point is never taken for ours
        self.mount_point = mount_point or mount_point_for(self.scratch_name)
        self.negotiated = ""

    @property
    def scratch(self) -> str:
        """The scratch directory as the client sees it."""
        return f"{self.mount_point}/{self.scratch_name}"

    def mount(self) -> str:
        c, tx = self.client, self.tx
        root_made = c.run(["test", "-d", MOUNT_ROOT], check=False).exit_status != 0
        make_point, mount = mount_steps(
            self.server_address, self.export_path, self.options, self.mount_point, root_made=root_made
        ).do
        if root_made:
            tx.record(c, "dir", MOUNT_ROOT)
        tx.record(c, "mount", self.mount_point)
        run_step(c, make_point)
        tx.progress(f"{c.label}: {' '.join(mount.argv)}")
        run_step(c, mount, timeout=120, action=f"mounting {self.export_path} on {self.mount_point}")
        # the scratch directory lives on the server's disk: journal and remove it there, which works even if
        # the client has rebooted in between
        if self.own_scratch:
            if self.server is None:
                raise NfstuneError("a mount of its own scratch directory needs a login on the server")
            make_scratch(self.server, c, tx, self.server_address, self.export_path, self.scratch_name)
        # the mount's options and the scratch directory
        seen = c.run(mounts_and_scratch_line(self.scratch))
        mounts, marker, _ = seen.stdout.partition(f"{SCRATCH_SEEN}\n")
        scratch_seen = bool(marker)
        ours = [m for m in parse_proc_mounts(mounts) if m.mount_point == self.mount_point]
        self.negotiated = ours[-1].options.render() if ours else ""  # the last one listed is the one in force
        if not scratch_seen:
            raise ChangeFailed(f"{c.label}: {self.scratch} is not visible through the mount")
        return self.negotiated


def mounts_of(client: Host, servers: Collection[str | None]) -> list[ProcMount]:
    """The client's NFS mounts of a server (its names and addresses), as /proc/mounts lists them now."""
    return mounts_of_server(client.run(["cat", "/proc/mounts"], action="reading /proc/mounts").stdout, servers)


def make_scratch(server: Host, client: Host, tx: Transaction, server_address: str, export_path: str, name: str) -> str:
    """A scratch directory of ours in the export, journaled first with its mark's token, private to the user the
    share maps `client`'s root to; returns its path on the server. Made on the server, so that a root_squash export
    does not stop the client's root from writing in it."""
    path = posixpath.join(export_path, name)
    owner = new_owner_token()
    make, write, hand_over = scratch_steps(server_address, export_path, name, owner, new_owner_token()).do
    entry = tx.record(server, "scratch", path, detail={"owner": owner})
    run_make(tx, server, entry, make, action=f"making the scratch directory {path}")
    run_step(client, write, timeout=120, action=f"writing a probe file in {path} over NFS")
    done = run_step(server, hand_over, action=f"giving the scratch directory {path} to the client's root")
    shown = done.stdout.strip() if done is not None else ""
    tx.progress(f"{server.label}: the scratch directory {path} is private to the run: {private_to(shown)}")
    return path


def set_readahead(client: Host, tx: Transaction, mount_point: str, kib: int) -> int:
    """Set the client's read_ahead_kb for one NFS mount (its own bdi); returns the value it had."""
    if not 0 <= kib <= 1 << 20:
        raise NfstuneError(f"read_ahead_kb {kib} is out of range (0 to 1048576)")
    path = readahead_path(client.run(["mountpoint", "-d", mount_point]).stdout.strip())
    before = client.run(["cat", path]).stdout.strip()
    (step,) = readahead_steps(path, kib, before).do
    tx.record(client, "sysfs", path, original=before.encode())
    tx.progress(f"{client.label}: read_ahead_kb {before} -> {kib} for {mount_point}")
    run_step(client, step, action=f"setting read_ahead_kb of {mount_point}")
    return int(before)


@dataclass(frozen=True)
class ScratchDirectory:
    """The session's scratch directory in the export, made on the server and given to the user the share maps the
    client's root to, mode 0700 (scratch_steps)."""

    def steps(self, where: Where) -> Steps:
        return scratch_steps(where.server_address, where.share, where.scratch_name)

    def apply(self, on: OnHosts) -> None:
        w = on.where
        on.scratch = make_scratch(
            on.host("server"), on.host("client"), on.tx, w.server_address, w.share, w.scratch_name
        )


@dataclass(frozen=True)
class Mount:
    """The visit's export mounted with `options` on `role`'s host, at the session's mount point."""

    options: str
    role: Role = "client"

    def steps(self, where: Where) -> Steps:
        return mount_steps(where.server_address, where.export_path, self.options, where.mount_point, role=self.role)

    def apply(self, on: OnHosts) -> None:
        mount = ClientMount(
            on.host(self.role),
            on.server,
            on.tx,
            server_address=on.where.server_address,
            export_path=on.where.export_path,
            options=self.options,
            scratch_name=on.where.scratch_name,
            mount_point=on.where.mount_point,
        )
        on.negotiated[self.role] = mount.mount()


@dataclass(frozen=True)
class ClientDirectory:
    """`role`'s own directory in the scratch directory, for a load from several clients at once."""

    role: Role

    def steps(self, where: Where) -> Steps:
        return client_directory_steps(self.role, f"{where.scratch}/{self.role}")

    def apply(self, on: OnHosts) -> None:
        (make,) = self.steps(on.where).do
        run_step(on.host(self.role), make, action=f"making {on.where.scratch}/{self.role}")


@dataclass(frozen=True)
class ReadAhead:
    """The client's read_ahead_kb for nfstune's mount (its device is known once it is mounted)."""

    kib: int

    def steps(self, where: Where) -> Steps:
        return readahead_steps(readahead_path(f"<the device of {where.mount_point}>"), self.kib)

    def apply(self, on: OnHosts) -> None:
        set_readahead(on.host("client"), on.tx, on.where.mount_point, self.kib)
