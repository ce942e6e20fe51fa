"""Undoing an Apply: the files nfstune applied are put back as Apply found them, after the admin has seen the diff
and the steps (apply_steps.file_steps, run here as they are shown), and verified as Apply verifies: the same
export.verify_exports on the server (`exportfs -ra` takes the restored file, `exportfs -s` lists each export it
changes back with its original options, nothing else moved, and every export resolves to itself in nfsd's
caches), nfs-utils' own reader for nfs.conf, `findmnt --verify` on the client.

Apply journals each file's old bytes and a sha256 of what it wrote, and commits them; the last Apply on a pair of
hosts is found there. A file changed since Apply wrote it is refused (putting the old bytes back would lose that
later edit; the dated backup beside it is named for a restore by hand). The undo is itself journaled before each
write and rolled back on any failure, like Apply; once verified, it is committed and the Apply's entries are marked
restored, so that the same Apply is not offered twice."""

from __future__ import annotations

import posixpath
import time
from collections.abc import Sequence
from dataclasses import dataclass

from nfstune.changes.apply import (
    NFSCONF_GET,
    ApplyRefused,
    Log,
    nfs_conf_check,
    roll_back,
    threads_value,
)
from nfstune.changes.apply_steps import (
    drop_backup_step,
    file_steps,
    reload_step,
    remove_made_dir_step,
    steps_text,
    systemd_reload_step,
)
from nfstune.changes.export import CheckFailed, Expected, exportfs_table, reload_exports, rows_changed, verify_exports
from nfstune.changes.fstab_check import findmnt_verify
from nfstune.changes.steps import Steps
from nfstune.changes.transaction import Transaction, host_key, run_step
from nfstune.errors import ConfigError
from nfstune.nfs.file_edit import sha256, unified_diff
from nfstune.nfs.fstab_rewrite import FSTAB
from nfstune.remote import Host, RemoteError
from nfstune.store.journal import Journal, JournalEntry


@dataclass(frozen=True)
class AppliedApply:
    """The last Apply on a pair of hosts, as the journal holds it."""

    apply_id: str
    at: float  # when it was made (seconds since the epoch)
    files: tuple[JournalEntry, ...]  # the files it wrote (old bytes, backup path, sha256 of what it wrote)
    dirs: tuple[JournalEntry, ...]  # the directories it made for the mount point, outermost first

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.at))


@dataclass(frozen=True)
class FileUndo:
    host: str  # the host's label
    host_key: str
    path: str
    now: bytes | None  # the file as it is now (what Apply wrote)
    back: bytes | None  # what Apply found, written back; None: the file did not exist and is removed
    backup_path: str | None  # the dated copy Apply kept beside it
    diff: str
    nfs_conf: bool = False  # the server's nfs.conf (its thread count), checked with nfs-utils' own reader

    @property
    def noop(self) -> bool:
        return self.now == self.back

    def steps(self, *, exportfs: bool) -> Steps:
        """Putting the file back: Apply's bytes journaled, then the old bytes written (or the file removed, when
        Apply made it); a failure puts Apply's bytes back."""
        existed, written = self.now is not None, self.back is not None
        return file_steps(self.role, self.path, existed=existed, written=written, backup=None, exportfs=exportfs)

    @property
    def role(self) -> str:
        return "client" if self.path == FSTAB else "server"


@dataclass(frozen=True)
class UndoPlan:
    applied: AppliedApply
    files: tuple[FileUndo, ...]  # the server's first
    server_host: str
    client_host: str

    @property
    def diff(self) -> str:
        return "\n".join(
            f"# {f.host}: {f.path}: put back as it was before the Apply of {self.applied.when}\n{f.diff}"
            for f in self.files
        )

    @property
    def steps(self) -> Steps:
        """What undo_apply() runs, in order: each file put back (an exports file verified after it), then, once
        all are, the mount point Apply made and its dated copies removed, and systemd told of the fstab."""
        steps = Steps()
        for f in self.files:
            if not f.noop:
                exportfs = reloads_exports(f, self.server_host)
                steps = steps.then(f.steps(exportfs=exportfs))
                steps = steps.then(Steps((reload_step(),) if exportfs else ()))
        after = [remove_made_dir_step(role_of(d.host, self.server_host), d.target) for d in reversed(self.applied.dirs)]
        after += [
            drop_backup_step(f.role, f.backup_path, f.path) for f in self.files if f.backup_path and f.back is not None
        ]
        if any(f.path == FSTAB and f.host_key == self.client_host for f in self.files):
            after.append(systemd_reload_step())
        return steps.then(Steps(tuple(after)))

    @property
    def review(self) -> str:
        """What the admin confirms: the diff back to the files Apply found, then the steps that make it."""
        return f"{self.diff}\n{steps_text(self.steps)}\n"


def role_of(host: str, server_host: str) -> str:
    return "server" if host == server_host else "client"


def reloads_exports(f: FileUndo, server_host: str) -> bool:
    """Whether putting `f` back reloads the exports: the server's exports file, not its nfs.conf."""
    return f.host_key == server_host and f.path != FSTAB and not f.nfs_conf


@dataclass(frozen=True)
class UndoResult:
    restored: tuple[str, ...]  # "nas: /etc/exports"
    removed_dirs: tuple[str, ...]
    warnings: tuple[str, ...]


def last_apply(journal: Journal, hosts: Sequence[str]) -> AppliedApply | None:
    """The newest Apply still in force on these hosts (user@hostname:port), or None."""
    groups: dict[str, list[JournalEntry]] = {}
    for entry in journal.committed(hosts):
        if entry.detail.get("apply"):
            # an Apply from before apply ids were kept: its entries share the process that made them
            groups.setdefault(str(entry.detail.get("apply_id") or f"pid-{entry.pid}"), []).append(entry)
    if not groups:
        return None
    apply_id, entries = max(groups.items(), key=lambda item: max(e.id for e in item[1]))
    entries.sort(key=lambda e: e.id)
    files = tuple(e for e in entries if e.kind == "file")
    dirs = tuple(e for e in entries if e.kind == "dir")
    return AppliedApply(apply_id, max(e.created_at for e in entries), files, dirs)


def prepare_undo(server: Host, client: Host, journal: Journal) -> UndoPlan:
    """Read the files the last Apply wrote and plan putting them back. Raises ConfigError when there is nothing to
    undo, ApplyRefused when a file was changed after Apply wrote it."""
    hosts = {host_key(server): server, host_key(client): client}
    applied = last_apply(journal, list(hosts))
    if applied is None:
        raise ConfigError(f"nothing to undo: nfstune has applied nothing on {server.label} and {client.label}")
    files = []
    for entry in sorted(applied.files, key=lambda e: e.host != host_key(server)):
        host = hosts[entry.host]
        now = host.read_file(entry.target, sudo=True)
        written = entry.detail.get("written_sha256")
        if written is not None and sha256(now) != written:
            kept = f" The file as it was before is kept as {entry.backup_path}." if entry.backup_path else ""
            raise ApplyRefused(
                f"{host.label}: {entry.target} has changed since nfstune applied it on {applied.when}: putting "
                f"the old one back would lose that change, so nothing was written.{kept}"
            )
        diff = unified_diff(entry.target, now, entry.original or b"") if entry.original is not None else ""
        if entry.original is None:
            diff = f"(remove {entry.target}: it did not exist before the Apply)"
        conf = bool(entry.detail.get("nfs_conf"))
        files.append(FileUndo(host.label, entry.host, entry.target, now, entry.original, entry.backup_path, diff, conf))
    return UndoPlan(applied, tuple(files), host_key(server), host_key(client))


def undo_apply(plan: UndoPlan, server: Host, client: Host, journal: Journal, log: Log) -> UndoResult:
    """Put the files back, verify, commit; on any failure put back what Apply had written and raise ApplyFailed.
    Raises ApplyRefused, with nothing written, when a host or a file is not as the plan saw it."""
    hosts = {host_key(server): server, host_key(client): client}
    if (host_key(server), host_key(client)) != (plan.server_host, plan.client_host):
        raise ApplyRefused(f"the undo was planned for {plan.server_host} and {plan.client_host}: nothing was written")
    for f in plan.files:
        if sha256(hosts[f.host_key].read_file(f.path, sudo=True)) != sha256(f.now):
            raise ApplyRefused(f"{f.host}: {f.path} has changed since the diff was made: nothing was written")
    tx = Transaction(journal, log)
    ids: list[int] = []
    warnings: list[str] = []
    try:
        for f in plan.files:
            exportfs = reloads_exports(f, plan.server_host)
            _restore(f, hosts[f.host_key], tx, ids, plan.applied.apply_id, warnings, exportfs=exportfs)
    except BaseException as exc:
        roll_back(tx, exc, log)
        raise
    journal.mark_committed(ids)
    for entry in plan.applied.files:
        journal.mark_restored(entry.id)
    removed = _remove_dirs(plan.applied.dirs, hosts, journal, warnings)
    for f in plan.files:
        _drop_backup(f, hosts[f.host_key], warnings)
    if any(f.path == FSTAB and f.host_key == plan.client_host for f in plan.files):
        reload = run_step(client, systemd_reload_step(), check=False)
        if reload is not None and reload.exit_status:
            warnings.append(f"{client.label}: `systemctl daemon-reload` failed: {reload.stderr.strip()}")
    log(f"the Apply of {plan.applied.when} is undone")
    return UndoResult(tuple(f"{f.host}: {f.path}" for f in plan.files), removed, tuple(warnings))


def _restore(
    f: FileUndo, host: Host, tx: Transaction, ids: list[int], apply_id: str, warnings: list[str], *, exportfs: bool
) -> None:
    if f.noop:
        return
    before = findmnt_verify(host) if not exportfs and not f.nfs_conf and f.now is not None else (0, 0, "")
    table = exportfs_table(host) if exportfs else {}
    ids.append(tx.record(host, "file", f.path, original=f.now, detail={"undo_apply": apply_id, "exportfs": exportfs}))
    tx.progress(f"{host.label}: putting {f.path} back as it was before the Apply")
    for step in f.steps(exportfs=exportfs).do:
        run_step(host, step, data=f.back or b"", action=step.what)
    if f.nfs_conf:
        problem, shown = nfs_conf_check(host, threads_value(f.back))
        if problem:
            raise CheckFailed(host.label, NFSCONF_GET, shown, problem)
        tx.progress(f"{host.label}: nfs-utils reads the thread count of the restored {f.path}")
    elif exportfs:
        reloaded = reload_exports(host)
        warnings += [f"{host.label}: exportfs: {ln}" for ln in reloaded.warnings]
        # the exports Apply changed must come back with their original options, as Apply checked the new ones
        expected = Expected(rows=rows_changed(f.now, f.back))
        verify_exports(host, reloaded, table, expected, file=f"the restored {f.path}", kernel=True)
        tx.progress(
            f"{host.label}: exportfs -ra accepts the restored {f.path}, and exportfs -s and nfsd's caches show its "
            "exports as it says"
        )
    elif f.back is not None:
        parse_errors, errors, report = findmnt_verify(host)
        if parse_errors > before[0] or errors > before[1]:
            problem = f"findmnt finds more errors in the restored {f.path} than in the applied one"
            raise CheckFailed(host.label, f"findmnt --verify --tab-file {FSTAB}", report, problem)
        tx.progress(f"{host.label}: findmnt --verify accepts the restored {f.path}")


def _remove_dirs(
    dirs: Sequence[JournalEntry], hosts: dict[str, Host], journal: Journal, warnings: list[str]
) -> tuple[str, ...]:
    """The mount point directories Apply made, innermost first, each only while empty and not mounted on."""
    removed = []
    for entry in reversed(dirs):
        host = hosts[entry.host]
        try:
            result = run_step(host, remove_made_dir_step("client", entry.target), check=False)
            gone = result is not None and result.exit_status == 0
        except RemoteError as exc:
            gone = False
            warnings.append(f"{host.label}: {entry.target}: {exc}")
        if gone:
            removed.append(f"{host.label}: {entry.target}")
        else:
            warnings.append(f"{host.label}: {entry.target} was left as it is (mounted on, or not empty)")
        journal.mark_restored(entry.id)
    return tuple(removed)


def _drop_backup(f: FileUndo, host: Host, warnings: list[str]) -> None:
    """The dated copy Apply kept goes once the file holds the same bytes again; any other copy stays."""
    if f.backup_path is None or f.back is None:
        return
    result = run_step(host, drop_backup_step(f.role, f.backup_path, f.path), check=False)
    if result is None or result.exit_status:
        warnings.append(
            f"{host.label}: the backup {posixpath.basename(f.backup_path)} differs from the restored file and was kept"
        )
