"""The changes nfstune makes on hosts, as transactions: each is journaled (a SQLite row, committed, and the
original bytes copied on the host) before it is made, and undone on success, cancel and failure, or by
recover() at the next connect after a crash. See the safety model in shared/DESIGN.md."""

from __future__ import annotations

import posixpath
import shlex
import time
from collections.abc import Callable, Mapping

from nfstune.errors import NfstuneError
from nfstune.nfs.kernel_view import (
    NfsClient,
    check_exports_resolve_to_themselves,
    connected_clients,
    parse_exportfs_s,
)
from nfstune.nfs.mounts import mount_source
from nfstune.remote import Host, RemoteError
from nfstune.remote.probe import async_setting_hint
from nfstune.store.journal import Journal, JournalEntry

Progress = Callable[[str], None]

HOST_JOURNAL_DIR = "/var/lib/nfstune/journal"  # the copies of original files, on the host itself
MOUNT_ROOT = "/mnt/nfstune"
SCRATCH_PREFIX = ".nfstune-"


class ChangeFailed(NfstuneError):
    """A change could not be made or did not do what it should; it has been undone."""


class ApplianceRefused(NfstuneError):
    pass


def read_export_files(server: Host) -> dict[str, str]:
    """Every exports file of the server as exportfs reads them (/etc/exports, then /etc/exports.d/*.exports in
    name order), by path; a file that does not exist is left out. Names with spaces survive (NUL-separated)."""
    listing = server.run(
        "find -L /etc/exports.d -mindepth 1 -maxdepth 1 -type f -name '*.exports' -print0 2>/dev/null; true",
        sudo=True,
    ).stdout
    files = {}
    for path in ["/etc/exports", *sorted(p for p in listing.split("\0") if p)]:
        data = server.read_file(path, sudo=True)
        if data is not None:
            files[path] = data.decode("utf-8", "surrogateescape")
    return files


def host_key(host: Host) -> str:
    t = host.target
    return f"{t.user}@{t.hostname}:{t.port}"


def _q(path: str) -> str:
    return shlex.quote(path)


# --- undo, the one place that knows how to reverse each kind of change ------------------------------------------


def undo_entry(host: Host, entry: JournalEntry) -> None:
    q = _q(entry.target)
    if entry.kind == "file":
        if entry.original is None:
            host.run(f"rm -f {q}", sudo=True)
        else:
            host.write_file(entry.target, entry.original, sudo=True)
        if entry.detail.get("exportfs"):
            # -r: resync the kernel with the restored files; -f: drop cached file-handle mappings, so that
            # nothing resolved while the change was in force outlives it
            host.run("exportfs -ra && exportfs -f", sudo=True)
        if entry.backup_path:
            parent = posixpath.dirname(HOST_JOURNAL_DIR)
            host.run(f"rm -f {_q(entry.backup_path)}; rmdir {HOST_JOURNAL_DIR} {parent} 2>/dev/null; true", sudo=True)
    elif entry.kind == "dir":
        host.run(f"rmdir {q} 2>/dev/null; true", sudo=True)
    elif entry.kind == "mount":
        host.run(f"if mountpoint -q {q}; then umount {q} || umount -l {q}; fi; rmdir {q} 2>/dev/null; true", sudo=True)
    elif entry.kind == "sysfs":
        # a per-mount setting (e.g. the NFS mount's read_ahead_kb): gone with the mount if that is gone
        value = (entry.original or b"").decode().strip()
        host.run(f"if [ -e {q} ]; then echo {_q(value)} > {q}; fi", sudo=True)
    elif entry.kind == "tempfile":
        if not entry.target.startswith("/var/tmp/nfstune-"):
            raise NfstuneError(f"refusing to remove {entry.target}: not a temporary file of nfstune's")
        host.run(f"rm -f {q}", sudo=True)
    elif entry.kind == "scratch":
        if not posixpath.basename(entry.target).startswith(SCRATCH_PREFIX):
            raise NfstuneError(f"refusing to remove {entry.target}: not a scratch directory of nfstune's")
        host.run(f"rm -rf --one-file-system {q}", sudo=True, timeout=600)
    else:
        raise NfstuneError(f"journal entry {entry.id} has an unknown kind {entry.kind!r}")


def recover(hosts: Mapping[str, Host], journal: Journal, progress: Progress) -> list[JournalEntry]:
    """Undo every change still pending on these hosts (newest first). Returns what was undone; entries of
    hosts not given stay pending for later."""
    undone = []
    for entry in journal.pending():
        host = hosts.get(entry.host)
        if host is None:
            continue
        progress(f"{host.label}: undoing an earlier change left by nfstune (pid {entry.pid}): {entry.target}")
        undo_entry(host, entry)
        journal.mark_restored(entry.id)
        undone.append(entry)
    return undone


def recover_on_connect(hosts: list[Host], journal: Journal, progress: Progress) -> list[JournalEntry]:
    """Called whenever nfstune connects to hosts: whatever an earlier run (killed, crashed, powered off) left
    changed on them is undone first."""
    return recover({host_key(h): h for h in hosts}, journal, progress)


class Transaction:
    """Changes on one or more hosts, undone together, newest first."""

    def __init__(self, journal: Journal, progress: Progress) -> None:
        self.journal, self.progress = journal, progress
        self._entries: list[tuple[Host, int]] = []

    def record(self, host: Host, kind: str, target: str, **kw: object) -> int:
        entry_id = self.journal.record(host_key(host), kind, target, **kw)  # type: ignore[arg-type]
        self._entries.append((host, entry_id))
        return entry_id

    def undo(self) -> None:
        """Undo everything; every step is tried, and the first failure is raised at the end. A Ctrl-C or SIGTERM
        that lands during the undo does not cut it short: the step it interrupted is tried once more, the rest
        go on, and the interrupt is raised when all are done (what still fails stays pending for the next
        connect)."""
        first_error: BaseException | None = None
        interrupted: KeyboardInterrupt | None = None
        pending = {e.id: e for e in self.journal.pending()}
        while self._entries:
            host, entry_id = self._entries.pop()
            entry = pending.get(entry_id)
            if entry is None:
                continue
            for attempt in (1, 2):
                try:
                    undo_entry(host, entry)
                    self.journal.mark_restored(entry_id)
                except KeyboardInterrupt as exc:
                    interrupted = interrupted or exc
                    if attempt == 1:
                        self.progress(f"{host.label}: interrupted while undoing {entry.target}; finishing the undo")
                        continue
                except (RemoteError, NfstuneError) as exc:
                    self.progress(f"{host.label}: could not undo {entry.kind} {entry.target}: {exc}")
                    first_error = first_error or exc
                break
        if interrupted is not None:
            raise interrupted
        if first_error is not None:
            raise first_error


# --- the server's exports --------------------------------------------------------------------------------------


def list_connected_clients(server: Host) -> list[NfsClient]:
    """Who else uses this server now (shown before a server-side change: they share its exports)."""
    out = server.run(
        'for d in /proc/fs/nfsd/clients/*/; do [ -r "$d/info" ] && { echo "== $d"; cat "$d/info"; }; done; '
        # without ss (no iproute2) the v3 clients stay unseen, but the v4 ones are still listed
        "echo '== ss'; ss -tn state established '( sport = :2049 )' 2>/dev/null || true",
        sudo=True,
    ).stdout
    v4_info, _, ss_output = out.rpartition("== ss\n")
    return connected_clients(v4_info, ss_output)


class ExportChange:
    """Replace one exports file (/etc/exports or a file in /etc/exports.d) with new text, `exportfs -ra`, and
    check that the kernel now runs `expect` (export path -> "sync"/"async") and every other export unchanged."""

    def __init__(
        self,
        server: Host,
        tx: Transaction,
        *,
        file: str,
        new_text: bytes,
        expect: dict[str, str],
        appliance: str | None = None,
    ) -> None:
        if appliance:
            raise ApplianceRefused(
                f"{server.label} is a {appliance} appliance, which owns its NFS configuration: nfstune does not "
                f"write its exports. To switch asynchronous writes there: {async_setting_hint(appliance)}"
            )
        in_dir = posixpath.dirname(file) == "/etc/exports.d" and file.endswith(".exports")
        if posixpath.normpath(file) != file or not (file == "/etc/exports" or in_dir):
            raise NfstuneError(f"{file} is not an exports file (/etc/exports or /etc/exports.d/*.exports)")
        self.server, self.tx, self.file, self.new_text, self.expect = server, tx, file, new_text, expect
        self.table_before: dict[tuple[str, str], tuple[str, ...]] = {}

    def apply(self) -> None:
        s, tx = self.server, self.tx
        self.table_before = parse_exportfs_s(s.run("exportfs -s", sudo=True).stdout)
        original = s.read_file(self.file, sudo=True)
        parent = posixpath.dirname(self.file)
        if s.run(["test", "-d", parent], check=False).exit_status != 0:
            tx.record(s, "dir", parent)
            s.run(["mkdir", "-p", parent], sudo=True)
        backup = None
        if original is not None:
            backup = f"{HOST_JOURNAL_DIR}/{time.strftime('%Y%m%d-%H%M%S')}-{posixpath.basename(self.file)}"
        tx.record(s, "file", self.file, original=original, backup_path=backup, detail={"exportfs": True})
        if original is not None and backup is not None:
            s.run(["mkdir", "-p", "-m", "700", HOST_JOURNAL_DIR], sudo=True)
            s.write_file(backup, original, sudo=True)
        tx.progress(f"{s.label}: writing {self.file} and running exportfs -ra")
        s.write_file(self.file, self.new_text, sudo=True)
        result = s.run("exportfs -ra", sudo=True, check=False)
        if result.exit_status != 0 or "error" in result.stderr.lower():
            self._fail(f"`exportfs -ra` rejected the new {self.file}: {result.stderr.strip()}")
        self._verify_table()

    def _verify_table(self) -> None:
        after = parse_exportfs_s(self.server.run("exportfs -s", sudo=True).stdout)
        for (path, client), opts in self.table_before.items():
            if path in self.expect:
                continue
            if after.get((path, client)) != opts:
                self._fail(f"exportfs -s: {path} {client} changed from {opts} to {after.get((path, client))}")
        for path, mode in self.expect.items():
            found = {client: opts for (p, client), opts in after.items() if p == path}
            if not found:
                self._fail(f"exportfs -s does not list {path} after the change")
            for client, opts in found.items():
                if mode not in opts:
                    self._fail(f"exportfs -s shows {path} {client}({','.join(opts)}), not {mode}")

    def verify_kernel(self, user_exports: dict[str, str]) -> None:
        """After a client has used the exports: every user export must resolve to itself, with the write mode
        given. Otherwise the change is undone at once and ChangeFailed says what the kernel did."""
        caches = self.server.run(
            "cat /proc/net/rpc/nfsd.export/content; echo '== fh'; cat /proc/net/rpc/nfsd.fh/content", sudo=True
        ).stdout
        export_cache, _, fh_cache = caches.partition("== fh\n")
        problems = check_exports_resolve_to_themselves(export_cache, fh_cache, user_exports)
        if problems:
            self._fail("; ".join(p.message for p in problems))

    def _fail(self, message: str) -> None:
        self.tx.progress(f"{self.server.label}: {message}; undoing the change")
        self.tx.undo()
        raise ChangeFailed(f"{self.server.label}: {message}. The change was undone.")


# --- the client's mount ----------------------------------------------------------------------------------------


class ClientMount:
    """The chosen export mounted on a mount point of our own, `nosharecache` (so the user's own mounts of that
    server neither pin nor share its options), with a scratch directory of ours inside it."""

    def __init__(
        self,
        client: Host,
        server: Host,
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
        stamp = f"{int(time.time() * 1000) % 10**10}"
        if mount_point is not None and posixpath.dirname(mount_point) != MOUNT_ROOT:
            raise NfstuneError(f"{mount_point} is not a mount point of nfstune's (under {MOUNT_ROOT})")
        self.mount_point = mount_point or f"{MOUNT_ROOT}/{stamp}"
        self.own_scratch = scratch_name is None
        self.scratch_name = scratch_name or f"{SCRATCH_PREFIX}{stamp}"
        self.negotiated = ""

    @property
    def scratch(self) -> str:
        """The scratch directory as the client sees it."""
        return f"{self.mount_point}/{self.scratch_name}"

    def mount(self) -> str:
        c, tx = self.client, self.tx
        if c.run(["test", "-d", MOUNT_ROOT], check=False).exit_status != 0:
            tx.record(c, "dir", MOUNT_ROOT)
        tx.record(c, "mount", self.mount_point)
        c.run(["mkdir", "-p", self.mount_point], sudo=True)
        argv = mount_argv(self.server_address, self.export_path, self.options, self.mount_point)
        tx.progress(f"{c.label}: {' '.join(argv)}")
        c.run(list(argv), sudo=True, timeout=120)
        mounts = c.run(["cat", "/proc/mounts"]).stdout.splitlines()
        line = next((ln for ln in mounts if ln.split()[1:2] == [self.mount_point]), "")
        self.negotiated = line.split()[3] if line else ""
        # the scratch directory lives on the server's disk: journal and remove it there, which works even if
        # the client has rebooted in between
        if self.own_scratch:
            make_scratch(self.server, tx, self.export_path, self.scratch_name)
        if c.run(["test", "-d", self.scratch], check=False).exit_status != 0:
            raise ChangeFailed(f"{c.label}: {self.scratch} is not visible through the mount")
        return self.negotiated


def mount_argv(server_address: str, export_path: str, options: str, mount_point: str) -> tuple[str, ...]:
    """The client's mount command for nfstune's own mount: `nosharecache` first, then the configuration's
    options."""
    opts = ",".join(o for o in ("nosharecache", options) if o)
    return ("mount", "-t", "nfs", "-o", opts, mount_source(server_address, export_path), mount_point)


def mount_point_for(scratch_name: str) -> str:
    """The session's mount point (every visit mounts there in turn), named after its scratch directory."""
    return f"{MOUNT_ROOT}/{scratch_name.removeprefix(SCRATCH_PREFIX)}"


def make_scratch(server: Host, tx: Transaction, export_path: str, name: str) -> str:
    """A scratch directory of ours in the export, journaled first; returns its path on the server. Made on the
    server, so that a root_squash export does not stop the client's root from writing in it."""
    path = posixpath.join(export_path, name)
    tx.record(server, "scratch", path)
    server.run(["mkdir", "-m", "1777", path], sudo=True)
    return path


def set_readahead(client: Host, tx: Transaction, mount_point: str, kib: int) -> int:
    """Set the client's read_ahead_kb for one NFS mount (its own bdi); returns the value it had."""
    if not 0 <= kib <= 1 << 20:
        raise NfstuneError(f"read_ahead_kb {kib} is out of range (0 to 1048576)")
    dev = client.run(["mountpoint", "-d", mount_point]).stdout.strip()
    path = f"/sys/class/bdi/{dev}/read_ahead_kb"
    before = client.run(["cat", path]).stdout.strip()
    tx.record(client, "sysfs", path, original=before.encode())
    tx.progress(f"{client.label}: read_ahead_kb {before} -> {kib} for {mount_point}")
    client.run(f"echo {int(kib)} > {_q(path)}", sudo=True)
    return int(before)
