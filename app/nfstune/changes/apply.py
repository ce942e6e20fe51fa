"""Applying a recommendation for good, on the hosts: prepare() reads the files and makes the exact diff and the
steps the admin is shown (apply_steps.py); apply() takes that plan, refuses if a file changed since, and runs
those steps: keeps a dated copy of each file beside it, writes, verifies (export.verify_exports: `exportfs -ra`,
`exportfs -s` and the kernel's own view on the server; `findmnt --verify` on the client), and on any failure the
transaction puts both files back byte for byte. Each change is journaled before it is made, so a crash half-way
is undone at the next connect; a finished apply is committed in the journal, so that it is never undone. Nothing
is mounted."""

from __future__ import annotations

import dataclasses
import os
import posixpath
import time
import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from nfstune.changes.apply_steps import (
    backup_name,
    file_steps,
    mount_point_steps,
    reload_step,
    steps_text,
    systemd_reload_step,
)
from nfstune.changes.export import (
    ApplianceRefused,
    CheckFailed,
    Expected,
    exportfs_table,
    read_export_files,
    reload_exports,
    rows_changed,
    verify_exports,
)
from nfstune.changes.fstab_check import findmnt_verify, verify_fstab
from nfstune.changes.nfsd_threads import read_nfs_conf_files
from nfstune.changes.steps import Role, Steps
from nfstune.changes.transaction import ChangeFailed, Transaction, host_key, run_step
from nfstune.errors import ConfigError, NfstuneError
from nfstune.nfs.exports_rewrite import exports_edit, exports_findings, other_entries_notes
from nfstune.nfs.file_edit import FileEdit, file_edit, sha256, text_bytes
from nfstune.nfs.fstab_rewrite import FSTAB, fstab_edit, parse_fstab_line
from nfstune.nfs.mounts import split_source
from nfstune.nfs.nfs_conf import parse as parse_nfs_conf
from nfstune.nfs.nfs_conf import threads_text, winner
from nfstune.remote import Host, RemoteError
from nfstune.remote.lookup import addresses_of
from nfstune.shell_text import sh_line
from nfstune.store.journal import Journal

Log = Callable[[str], None]

NFSCONF_GET = "nfsconf --get nfsd threads"


class ApplyRefused(NfstuneError):
    """The plan no longer matches the hosts: nothing was written."""


class ApplyFailed(ChangeFailed):
    """A step or a check failed; both files were put back (or the message says what could not be)."""

    def __init__(self, host: str, command: str, output: str, message: str) -> None:
        self.host, self.command, self.output = host, command, output
        super().__init__(message)


@dataclass(frozen=True)
class ApplyPlan:
    """What the admin saw: the two edits with the sha256 of the bytes they were made from."""

    server_edit: FileEdit
    client_edit: FileEdit
    mount_point: str
    share: str
    exports_line: str
    server_host: str  # user@hostname:port the plan was made on
    client_host: str
    findings: tuple[str, ...] = ()  # what the admin should know about the server's exports files
    threads_edit: FileEdit | None = None  # the server's nfs.conf with [nfsd] threads= (a many-clients session)
    # kept with the Apply in the journal, so that `nfstune check` knows what to find in force, and for which session
    session_id: int | None = None
    fstab_line: str = ""
    nfsd_threads: int | None = None

    @property
    def edits(self) -> tuple[FileEdit, ...]:
        return (self.server_edit, self.client_edit, *((self.threads_edit,) if self.threads_edit else ()))

    @property
    def diff(self) -> str:
        """Every diff, each under the name of its host, as the admin reviews them."""
        return "\n".join(f"# {edit.summary}\n{edit.diff}" for edit in self.edits)

    @property
    def noop(self) -> bool:
        return all(edit.noop for edit in self.edits)

    @property
    def steps(self) -> Steps:
        """What apply() runs, in order, and how a failure undoes it: the plan the admin reads with the diff."""
        steps = Steps()
        if not self.server_edit.noop:
            steps = steps.then(edit_steps("server", self.server_edit, exportfs=True))
            steps = steps.then(Steps((reload_step(),)))
        if self.threads_edit is not None and not self.threads_edit.noop:
            steps = steps.then(edit_steps("server", self.threads_edit, exportfs=False))
        steps = steps.then(mount_point_steps("client", self.mount_point))
        if not self.client_edit.noop:
            steps = steps.then(edit_steps("client", self.client_edit, exportfs=False))
            steps = steps.then(Steps((systemd_reload_step(),)))
        return steps

    @property
    def review(self) -> str:
        """What the admin confirms: the diff, then the steps that make it."""
        return f"{self.diff}\n{steps_text(self.steps)}\n"


def edit_steps(role: Role, edit: FileEdit, *, exportfs: bool, backup: str | None = None) -> Steps:
    """The steps of one planned edit; `backup`: the dated copy's name as the run chose it (the plan's placeholder
    when not given)."""
    if edit.old is not None and backup is None:
        backup = backup_name(edit.path)
    return file_steps(role, edit.path, existed=edit.old is not None, written=True, backup=backup, exportfs=exportfs)


@dataclass(frozen=True)
class ApplyResult:
    server_backup: str | None  # the dated copy of the old file, kept on the host
    client_backup: str | None
    created_dirs: tuple[str, ...]  # the mount point (and parents) made on the client
    exportfs_s: str  # what `exportfs -s` showed after the change ("" when the exports were already right)
    findmnt: str  # what `findmnt --verify` reported ("" when fstab was already right)
    warnings: tuple[str, ...] = field(default=())
    threads_backup: str | None = None  # the dated copy of the server's nfs.conf, when it was written

    @property
    def backups(self) -> list[str]:
        return [b for b in (self.server_backup, self.client_backup, self.threads_backup) if b]


def prepare(
    server: Host,
    client: Host,
    share: str,
    exports_line: str,
    fstab_line: str,
    *,
    appliance: str | None = None,
    nfsd_threads: int | None = None,
    session_id: int | None = None,
) -> ApplyPlan:
    """Read the exports files on the server and fstab on the client (as root) and plan both edits, and with
    `nfsd_threads` the edit of the server's nfs.conf that sets it (made on the file as it is now). Raises
    ConfigError for text that does not fit the share or would weaken the export or the mount, or a file exportfs
    does not read to its end; ApplianceRefused for a NAS appliance."""
    if appliance:
        raise ApplianceRefused(
            f"{server.label} is a {appliance} appliance, which owns its NFS configuration: nfstune does not write "
            f"its exports. Set the share's options in its web interface instead: {exports_line.strip()}"
        )
    files = read_export_files(server)
    fstab = client.read_file(FSTAB, sudo=True)
    named = split_source(parse_fstab_line(fstab_line).device)
    aliases = addresses_of(client, named[0]) if named is not None else ()
    text = None if fstab is None else fstab.decode("utf-8", "surrogateescape")
    threads_edit = None
    if nfsd_threads is not None:
        path, before, after = threads_text(read_nfs_conf_files(server), nfsd_threads)
        old = None if before is None else text_bytes(before)
        threads_edit = file_edit(server.label, path, old, text_bytes(after), f"[nfsd] threads={nfsd_threads}")
    plan = plan_apply(
        files,
        text,
        share,
        exports_line,
        fstab_line,
        server=(server.label, host_key(server)),
        client=(client.label, host_key(client)),
        threads_edit=threads_edit,
        server_aliases=aliases,
    )
    return dataclasses.replace(plan, session_id=session_id, fstab_line=fstab_line.strip(), nfsd_threads=nfsd_threads)


def plan_apply(
    files: Mapping[str, str],
    fstab: str | None,
    share: str,
    exports_line: str,
    fstab_line: str,
    *,
    server: tuple[str, str],
    client: tuple[str, str],
    threads_edit: FileEdit | None = None,
    server_aliases: Collection[str] = (),
) -> ApplyPlan:
    """The pure part of prepare(): `server` and `client` are each (label, user@host:port); `server_aliases` the
    fstab line's server and the addresses the client resolves it to (an entry naming it by address is its
    entry)."""
    if not share.startswith("/"):
        raise ConfigError(f"the share {share!r} is not an absolute path")
    entry = parse_fstab_line(fstab_line)
    source = split_source(entry.device)
    if source is None or posixpath.normpath(source[1]) != posixpath.normpath(share):
        raise ConfigError(f"the fstab line mounts {entry.device}, not the share {share}: {fstab_line.strip()!r}")
    server_edit = exports_edit(files, share, exports_line, host=server[0])
    client_edit = fstab_edit(fstab, fstab_line, host=client[0], server_aliases=server_aliases)
    after = {**files, server_edit.path: server_edit.new.decode("utf-8", "surrogateescape")}
    return ApplyPlan(
        server_edit,
        client_edit,
        entry.mount_point,
        share,
        exports_line,
        server[1],
        client[1],
        # what stays wrong once the edit is made, and the share's other entries, which it leaves as they are
        (*exports_findings(after), *other_entries_notes(after, share)),
        threads_edit,
    )


def apply(plan: ApplyPlan, server: Host, client: Host, journal: Journal, log: Log) -> ApplyResult:
    """Make the planned edits, verify them, and commit them; on any failure undo them all and raise ApplyFailed.
    Raises ApplyRefused, with nothing written, when a host is not the one planned for or a file has changed
    since the plan (the admin must see a new diff)."""
    for host, planned in ((server, plan.server_host), (client, plan.client_host)):
        if host_key(host) != planned:
            raise ApplyRefused(f"the plan was made for {planned}, not {host_key(host)}: nothing was written")
    planned_edits = [(server, plan.server_edit), (client, plan.client_edit)]
    if plan.threads_edit is not None:
        planned_edits.append((server, plan.threads_edit))
    for host, edit in planned_edits:
        if sha256(host.read_file(edit.path, sudo=True)) != edit.old_sha256:
            raise ApplyRefused(
                f"{host.label}: {edit.path} has changed since the diff was made: nothing was written. "
                "Prepare the change again and review the new diff."
            )
    tx = Transaction(journal, log)
    ids: list[int] = []
    warnings: list[str] = []
    # what an undo finds its steps by (apply_undo.last_apply)
    applied: dict[str, object] = {"apply": True, "apply_id": new_apply_id(), **applied_settings(plan)}
    try:
        server_backup, exportfs_s = _apply_server(plan, server, tx, ids, warnings, applied)
        threads_backup = _apply_threads(plan, server, tx, ids, applied)
        client_backup, created, findmnt = _apply_client(plan, client, tx, ids, warnings, applied)
    except BaseException as exc:
        roll_back(tx, exc, log)
        raise  # roll_back raises; this is for a KeyboardInterrupt or a bug after the undo
    journal.mark_committed(ids)
    log(f"applied for good: {'; '.join(edit.summary for edit in plan.edits)}")
    if not plan.client_edit.noop:  # systemd makes its mount units from fstab: let it read the new one
        try:
            reload = run_step(client, systemd_reload_step(), check=False)
            failed = reload.stderr.strip() if reload is not None and reload.exit_status else ""
        except RemoteError as exc:  # the change is made and committed: this is only a warning
            failed = str(exc)
        if failed:
            warnings.append(f"{client.label}: `systemctl daemon-reload` failed: {failed}")
        else:
            warnings = [w for w in warnings if "systemd still uses the old version" not in w]
    return ApplyResult(
        server_backup, client_backup, created, exportfs_s, findmnt, tuple(warnings), threads_backup=threads_backup
    )


def applied_settings(plan: ApplyPlan) -> dict[str, object]:
    """What an Apply sets, kept with its journal entries: the session it came from and the lines it wrote, which
    `nfstune check` verifies are in force."""
    return {
        "session": plan.session_id,
        "share": plan.share,
        "exports_line": plan.exports_line,
        "fstab_line": plan.fstab_line,
        "mount_point": plan.mount_point,
        "nfsd_threads": plan.nfsd_threads,
    }


def new_apply_id() -> str:
    """What an undo finds an Apply's journal entries by: unique even for two Applies within one second of one
    process (the desktop's Apply twice in a row), which the time and the process id alone were not."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{uuid.uuid4().hex[:12]}"


def write_edit(
    host: Host, role: Role, edit: FileEdit, tx: Transaction, ids: list[int], detail: dict[str, object]
) -> str | None:
    """Journal the file's old bytes, then run its steps (edit_steps): a dated copy of the old bytes beside it (same
    owner and mode), and the new bytes. Returns the copy's name."""
    backup = None
    if edit.old is not None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        taken = set(host.run(["ls", "-1a", posixpath.dirname(edit.path)], sudo=True).stdout.splitlines())
        names = (backup_name(edit.path, stamp + suffix) for suffix in ("", *(f"-{n}" for n in range(1, 100))))
        backup = next(name for name in names if posixpath.basename(name) not in taken)
    ids.append(tx.record(host, "file", edit.path, original=edit.old, backup_path=backup, detail=detail))
    data = {edit.path: edit.new, **({backup: edit.old} if backup is not None and edit.old is not None else {})}
    for step in edit_steps(role, edit, exportfs=bool(detail.get("exportfs")), backup=backup).do:
        run_step(host, step, data=data.get(step.writes or "", b""), action=step.what)
    return backup


def missing_dirs_line(dirs: Collection[str]) -> str:
    """Each of `dirs` that is not a directory, one a line."""
    return sh_line('for d in {dirs}; do [ -d "$d" ] || echo "$d"; done', dirs=list(dirs))


def _apply_server(
    plan: ApplyPlan, server: Host, tx: Transaction, ids: list[int], warnings: list[str], applied: dict[str, object]
) -> tuple[str | None, str]:
    edit = plan.server_edit
    if edit.noop:
        tx.progress(f"{server.label}: {edit.path} already exports {plan.share} as recommended")
        return None, ""
    before = exportfs_table(server)
    detail = {**applied, "exportfs": True, "written_sha256": sha256(edit.new)}
    tx.progress(f"{server.label}: writing {edit.path} (the old one is kept beside it) and running exportfs -ra")
    backup = write_edit(server, "server", edit, tx, ids, detail)
    reloaded = reload_exports(server)
    warnings += [f"{server.label}: exportfs: {ln}" for ln in reloaded.warnings]
    expected = Expected(rows=rows_changed(edit.old, edit.new))
    shown = verify_exports(server, reloaded, before, expected, file=edit.path, kernel=True)
    tx.progress(f"{server.label}: exportfs -s shows {plan.share} as the new line says")
    return backup, shown


def _apply_threads(
    plan: ApplyPlan, server: Host, tx: Transaction, ids: list[int], applied: dict[str, object]
) -> str | None:
    """The server's nfs.conf with the thread count, read back by nfs-utils' own reader. The running count is
    not changed: rpc.nfsd reads the file when the NFS server starts (said with the recommendation)."""
    edit = plan.threads_edit
    if edit is None or edit.noop:
        return None
    tx.progress(f"{server.label}: writing {edit.path} (the old one is kept beside it)")
    detail = {**applied, "written_sha256": sha256(edit.new), "nfs_conf": True}
    backup = write_edit(server, "server", edit, tx, ids, detail)
    expected = threads_value(edit.new)
    problem, shown = nfs_conf_check(server, expected)
    if problem:
        raise CheckFailed(server.label, NFSCONF_GET, shown, problem)
    tx.progress(f"{server.label}: nfs-utils reads threads={expected} from {edit.path}")
    return backup


def threads_value(data: bytes | None) -> str | None:
    """The [nfsd] threads value an nfs.conf file sets (the last of several), or None."""
    if data is None:
        return None
    setting = winner(parse_nfs_conf(data.decode("utf-8", "surrogateescape")).find("nfsd", "threads"))
    return None if setting is None else setting.value


def nfs_conf_check(server: Host, expected: str | None) -> tuple[str, str]:
    """(what is wrong, what `nfsconf --get nfsd threads` printed): "" when nfs-utils reads `expected` (None: no
    value). Where nfsconf is missing (nfs-utils before 2.3), there is nothing of nfs-utils' own to ask: ""."""
    result = server.run(NFSCONF_GET, sudo=True, check=False)
    shown = (result.stdout + result.stderr).strip()
    if result.exit_status == 127:
        return "", shown
    got = result.stdout.strip() if result.exit_status == 0 else None
    if got != expected:
        return f"nfs-utils reads threads={got or '(unset)'} from the server's nfs.conf, not {expected}", shown
    return "", shown


def _apply_client(
    plan: ApplyPlan, client: Host, tx: Transaction, ids: list[int], warnings: list[str], applied: dict[str, object]
) -> tuple[str | None, tuple[str, ...], str]:
    edit, mount_point = plan.client_edit, plan.mount_point
    parts = mount_point.strip("/").split("/")
    ancestors = ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]
    probe = client.run(
        missing_dirs_line(ancestors),
        sudo=True,
        action=f"looking for the directories above {mount_point}",
    )
    missing = tuple(ln for ln in probe.stdout.split("\n") if ln)
    if edit.noop and not missing:
        tx.progress(f"{client.label}: {edit.path} already mounts {plan.share} as recommended")
        return None, (), ""
    baseline = findmnt_verify(client) if edit.old is not None else (0, 0, "")
    for directory in missing:  # journaled outermost first, so that an undo removes the innermost first
        ids.append(tx.record(client, "dir", directory, detail=dict(applied)))
    if missing:
        tx.progress(f"{client.label}: making the mount point {mount_point}")
        for step in mount_point_steps("client", mount_point, missing).do:
            run_step(client, step, action=step.what)
    backup = None
    if not edit.noop:
        tx.progress(f"{client.label}: writing {edit.path} (the old one is kept beside it)")
        backup = write_edit(client, "client", edit, tx, ids, {**applied, "written_sha256": sha256(edit.new)})
    report, found = verify_fstab(client, mount_point, baseline)
    warnings += found
    tx.progress(f"{client.label}: findmnt --verify accepts {mount_point}")
    return backup, missing, report


def roll_back(tx: Transaction, exc: BaseException, log: Log) -> None:
    """Undo everything done so far, then raise ApplyFailed naming the host, the command and what it printed
    (other exceptions, a cancel or a bug, are re-raised by the caller after the undo)."""
    log(f"apply failed ({exc}); putting both files back")
    try:
        tx.undo()
        outcome = "Both files were put back as they were."
    except (RemoteError, NfstuneError) as undo_error:
        outcome = (
            f"Putting them back failed too ({undo_error}): nfstune will undo the rest when it next connects to "
            "the host."
        )
    if isinstance(exc, CheckFailed):
        output = exc.output.strip()
        message = f"{exc.host}: {exc.problem}. `{exc.command}` printed:\n{output or '(nothing)'}\n{outcome}"
        raise ApplyFailed(exc.host, exc.command, exc.output, message) from None
    if isinstance(exc, RemoteError):
        command = getattr(exc, "command", "")
        raise ApplyFailed(exc.host, command, getattr(exc, "stderr", ""), f"{exc}\n{outcome}") from exc
    if isinstance(exc, NfstuneError):
        raise ApplyFailed("", "", "", f"{exc}\n{outcome}") from exc
