"""The changes nfstune makes on hosts, as transactions: each is journaled (a SQLite row, committed, and the
original bytes copied on the host) before it is made, and undone on success, cancel and failure, or by
recover() at the next connect after a crash. See the safety model in docs/DESIGN.md. This module is the one
place that knows how to undo each kind of change; the changes themselves are in export.py, mount.py, apply.py,
isolated.py, nfsd_threads.py and nfsd_listener.py."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping

from nfstune.changes.steps import Role, Step, command, shell, write
from nfstune.errors import NfstuneError
from nfstune.nfs.own_mount import SCRATCH_PREFIX, SCRATCH_WORK, mount_argv, owner_mark
from nfstune.remote import CommandFailed, CommandResult, Host, RemoteError
from nfstune.shell_text import sh_line
from nfstune.store.journal import Journal, JournalEntry

Progress = Callable[[str], None]

HOST_JOURNAL_DIR = "/var/lib/nfstune/journal"  # the copies of original files, on the host itself
PROCESS_PID_PREFIX = "/var/tmp/nfstune-fio-server-"  # the pid files of servers nfstune starts (changes/fio_server.py)
PORTLIST = "/proc/fs/nfsd/portlist"  # nfsd's listeners (changes/nfsd_listener.py)
THREADS = "/proc/fs/nfsd/threads"  # nfsd's running thread count (changes/nfsd_threads.py)
# the exit status of a step that makes something exclusively (a scratch directory) when it made nothing: the name
# was taken, or the folder not writable. Its journal entry is closed then, so that no undo touches what is there.
NOT_MADE = 3
KEPT = "NFSTUNE_KEPT"  # said by a scratch directory's undo that found one of that name without the change's mark


class ChangeFailed(NfstuneError):
    """A change could not be made or did not do what it should; it has been undone."""


def host_key(host: Host) -> str:
    t = host.target
    return f"{t.user}@{t.hostname}:{t.port}"


# --- undo, the one place that knows how to reverse each kind of change ------------------------------------------
# Each kind's undo as steps (steps.py): what undo_entry runs, and what a plan shows as a change's undo.


def undo_file(role: Role, target: str, *, original: bool, exportfs: bool, backup: str | None) -> tuple[Step, ...]:
    steps = [
        write(role, target, "put the journaled original bytes back")
        if original
        else command(role, ("rm", "-f", target), f"remove {target} (nfstune made it)")
    ]
    if exportfs:
        # -r: resync the kernel with the restored files; -f: drop cached file-handle mappings, so that
        # nothing resolved while the change was in force outlives it
        steps.append(shell(role, "exportfs -ra && exportfs -f", "reload the exports and drop the kernel's cached ones"))
    if backup:
        parent = posixpath.dirname(HOST_JOURNAL_DIR)
        line = sh_line("rm -f {backup}; rmdir {dirs} 2>/dev/null; true", backup=backup, dirs=(HOST_JOURNAL_DIR, parent))
        steps.append(shell(role, line, "remove the copy"))
    return tuple(steps)


def undo_dir(role: Role, target: str) -> Step:
    return shell(role, sh_line("rmdir {target} 2>/dev/null; true", target=target), f"remove {target} if empty")


def undo_mount(role: Role, target: str) -> Step:
    line = sh_line("if mountpoint -q {t}; then umount {t} || umount -l {t}; fi; rmdir {t} 2>/dev/null; true", t=target)
    return shell(role, line, f"unmount {target} and remove it")


def undo_sysfs(role: Role, target: str, value: str, what: str = "") -> Step:
    """A setting under /proc or /sys written back; a per-mount one (the NFS mount's read_ahead_kb) is gone with
    the mount if that is gone."""
    line = sh_line("if [ -e {target} ]; then echo {value} > {target}; fi", target=target, value=value)
    return shell(role, line, what or f"put {target} back")


def undo_tempfile(role: Role, target: str) -> Step:
    return command(role, ("rm", "-f", target), f"remove {target}")


def undo_scratch(role: Role, target: str) -> Step:
    """A scratch file (isolated mode's filesystem image), or a scratch directory journaled before directories
    carried a mark."""
    return command(role, ("rm", "-rf", "--one-file-system", target), f"remove {target}")


def undo_scratch_dir(role: Role, path: str, owner: str) -> Step:
    """A scratch directory nfstune made (mount.scratch_steps), removed only while it holds the mark with `owner`,
    the token its change journaled: what else is there under that name (there before, or put there since) is not
    nfstune's, and is left, said by KEPT. A link is never followed."""
    line = sh_line(
        "if [ -d {mark} ] && [ ! -L {path} ]; then rm -rf --one-file-system {path}; "
        "elif [ -e {path} ] || [ -L {path} ]; then echo {kept}; fi",
        path=path,
        mark=posixpath.join(path, owner_mark(owner)),
        kept=KEPT,
    )
    return shell(role, line, f"remove {path} if nfstune's mark is in it")


def on_share(server_address: str, share: str, body: str) -> str:
    """A shell line that runs `body` (shell text of ours) with the export mounted at "$m" (a temporary mount point,
    unmounted and removed when the line ends), and `as_owner CMD` running CMD as the owner of the share's top
    folder."""
    return (
        sh_line(
            "m=$(mktemp -d /tmp/nfstune-share.XXXXXX) || exit 1; "
            """trap 'umount "$m" 2>/dev/null || umount -l "$m"; rmdir "$m"' EXIT; """
            '{mount} "$m" || exit 1; '
            'as_owner() {{ setpriv --reuid="$(stat -c %u "$m")" --regid="$(stat -c %g "$m")" --clear-groups "$@"; }}; ',
            mount=mount_argv(server_address, share, "", "")[:-1],
        )
        + body
    )


def undo_nfs_scratch(role: Role, server_address: str, share: str, name: str, owner: str | None) -> Step:
    """The scratch directory made over NFS (nfs_scratch.py), while it holds the mark with `owner` (None: an entry
    journaled before directories carried one): its contents as root (squashed or not: they are its files), then
    what is left as the owner of the share's top folder (who made it when root was squashed). What else is there
    under that name is left, said by KEPT."""
    mine = (
        ""
        if owner is None
        else sh_line(
            'if [ -L "$d" ] || [ ! -d "$d"/{mark} ]; then echo {kept}; exit 0; fi; ', mark=owner_mark(owner), kept=KEPT
        )
    )
    # the workloads' folder by its path: where the share's owner made the directory, root may pass through it but
    # not list it (0711), and the owner may not list the folder (0700, root's)
    body = (
        sh_line('d="$m"/{name}; [ -e "$d" ] || [ -L "$d" ] || exit 0; ', name=name)
        + mine
        + sh_line('rm -rf --one-file-system "$d"/{work} "$d" 2>/dev/null; ', work=SCRATCH_WORK)
        + '[ ! -e "$d" ] || as_owner rm -rf --one-file-system "$d"; [ ! -e "$d" ]'
    )
    what = f"remove {posixpath.join(share, name)} over NFS" + ("" if owner is None else " if nfstune's mark is in it")
    return shell(role, on_share(server_address, share, body), what)


def undo_process(role: Role, pid_file: str) -> Step:
    """A server nfstune started (fio's), by the pid in the pid file it wrote, and only while that pid still runs
    the program journaled (a pid reused after a reboot belongs to someone else). The whole process group: the
    server was started as its leader (setsid), and fio runs each job in a child it forks. TERM first; KILL
    after 5 s."""
    line = sh_line(
        "if [ -f {pid} ]; then p=$(cat {pid}); "
        'if [ -n "$p" ] && tr "\\0" " " < /proc/"$p"/cmdline 2>/dev/null | grep -q "^fio --server="; then '
        'kill -TERM -"$p"; i=0; while kill -0 -"$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; '
        'kill -KILL -"$p" 2>/dev/null; fi; fi; '
        "rm -f {pid} {log}",
        pid=pid_file,
        log=process_log_file(pid_file),
    )
    return shell(role, line, f"stop the server of {pid_file} and remove its files")


def undo_listener(role: Role, listener: str, threads: int | str, systemd: bool) -> Step:
    """A listener nfstune added to nfsd (nfsd_listener.py): the kernel cannot remove one while nfsd runs, so the
    NFS server restarts (systemd's unit where it ran under systemd, else rpc.nfsd) and gets back the thread count
    it had. Nothing is done when the listener is gone already (a reboot, or a restart since)."""
    # no count known: rpc.nfsd with none starts its default
    restart = (
        "systemctl restart nfs-server" if systemd else "rpc.nfsd 0 && rpc.nfsd" + (" {threads}" if threads else "")
    )
    line = sh_line(
        "if grep -qx {listener} {portlist} 2>/dev/null; then " + restart + " || exit 1; "
        'if [ {threads} -gt 0 ] && [ "$(cat {counts})" != {threads} ]; then '
        "echo {threads} > {counts}; fi; fi",
        listener=listener,
        portlist=PORTLIST,
        threads=threads,
        counts=THREADS,
    )
    return shell(role, line, f"restart the NFS server (the only way to drop its {listener} listener)")


def undo_steps(role: Role, entry: JournalEntry) -> tuple[Step, ...]:
    target = entry.target
    if entry.kind == "file":
        exportfs = bool(entry.detail.get("exportfs"))
        return undo_file(role, target, original=entry.original is not None, exportfs=exportfs, backup=entry.backup_path)
    if entry.kind == "dir":
        return (undo_dir(role, target),)
    if entry.kind == "mount":
        return (undo_mount(role, target),)
    if entry.kind == "sysfs":
        return (undo_sysfs(role, target, (entry.original or b"").decode().strip()),)
    if entry.kind == "tempfile":
        if not target.startswith("/var/tmp/nfstune-"):
            raise NfstuneError(f"refusing to remove {target}: not a temporary file of nfstune's")
        return (undo_tempfile(role, target),)
    if entry.kind == "process":
        if not target.startswith(PROCESS_PID_PREFIX) or not target.endswith(".pid"):
            raise NfstuneError(f"refusing to stop the process of {target}: not a pid file of nfstune's")
        return (undo_process(role, target),)
    if entry.kind == "listener":
        netid, _, port = target.partition(" ")
        if not (netid.isalnum() and port.isdigit()):
            raise NfstuneError(f"journal entry {entry.id}: {target!r} is not a listener")
        threads = int(str(entry.detail.get("threads", 0)))
        return (undo_listener(role, target, threads, bool(entry.detail.get("systemd"))),)
    if entry.kind == "scratch":
        if not posixpath.basename(target).startswith(SCRATCH_PREFIX):
            raise NfstuneError(f"refusing to remove {target}: not a scratch directory of nfstune's")
        owner = _owner(entry)
        return (undo_scratch(role, target) if owner is None else undo_scratch_dir(role, target, owner),)
    if entry.kind == "nfs-scratch":
        name, share, server = (str(entry.detail.get(k, "")) for k in ("name", "share", "server"))
        if not name.startswith(SCRATCH_PREFIX) or "/" in name or not share.startswith("/") or not server:
            raise NfstuneError(f"refusing to remove {target}: not a scratch directory of nfstune's")
        return (undo_nfs_scratch(role, server, share, name, _owner(entry)),)
    raise NfstuneError(f"journal entry {entry.id} has an unknown kind {entry.kind!r}")


def _owner(entry: JournalEntry) -> str | None:
    """The token of a scratch directory's mark, as its change journaled it (None: journaled before marks)."""
    owner = entry.detail.get("owner")
    if owner is None:
        return None
    if not (isinstance(owner, str) and owner.isalnum() and owner.isascii()):
        raise NfstuneError(f"journal entry {entry.id}: {owner!r} is not the token of a scratch directory's mark")
    return owner


def undo_entry(host: Host, entry: JournalEntry) -> str | None:
    """Undo one change: the undo steps of its journal entry's kind (undo_steps), run as that kind's runner runs
    them. Returns what the admin must be told that was not done: a scratch directory left in place because it is
    not nfstune's (None when all was done)."""
    steps = undo_steps("server", entry)  # the role is the plan's word only: here the host is known
    runner = UNDO_RUNNERS.get(entry.kind)
    if runner is None:  # undo_steps has refused it already; this is for a kind given steps but no runner
        raise NfstuneError(f"journal entry {entry.id} has an unknown kind {entry.kind!r}")
    return runner(host, entry, steps)


UndoRunner = Callable[[Host, JournalEntry, tuple[Step, ...]], "str | None"]


def _undo_file(host: Host, entry: JournalEntry, steps: tuple[Step, ...]) -> None:
    """The original bytes written back (or the file nfstune made removed), the exports reloaded when the entry
    says it was an exports file, and the host's copy removed."""
    for step in steps:
        run_step(host, step, data=entry.original or b"", action=f"putting {entry.target} back")


def _undo_quietly(doing: str, timeout: float = 60.0) -> UndoRunner:
    def run(host: Host, entry: JournalEntry, steps: tuple[Step, ...]) -> None:
        for step in steps:
            run_step(host, step, timeout=timeout, action=f"{doing} {entry.target}")

    return run


def _undo_scratch(host: Host, entry: JournalEntry, steps: tuple[Step, ...]) -> str | None:
    """A scratch directory, removed only while nfstune's mark is in it: its step says KEPT when it left it."""
    note = None
    for step in steps:
        result = run_step(host, step, timeout=600, action=f"removing {entry.target}")
        if result is not None and KEPT in result.stdout.split():
            note = (
                f"kept {entry.target}: the mark nfstune leaves in the scratch directory it makes is not in it, so it "
                "may not be nfstune's (there before, or put in its place); nothing in it was removed"
            )
    return note


def _undo_listener(host: Host, entry: JournalEntry, steps: tuple[Step, ...]) -> None:
    for step in steps:
        _drop_listener(host, entry, step)


# how each kind's undo steps run: the journal entry's kind decides, never the text of a step
UNDO_RUNNERS: dict[str, UndoRunner] = {
    "file": _undo_file,
    "dir": _undo_quietly("removing"),
    "mount": _undo_quietly("unmounting"),
    "sysfs": _undo_quietly("putting back"),
    "tempfile": _undo_quietly("removing"),
    "process": _undo_quietly("stopping the process of"),
    "listener": _undo_listener,
    "scratch": _undo_scratch,
    "nfs-scratch": _undo_scratch,
}


def run_step(host: Host, step: Step, *, data: bytes = b"", **kw: object) -> CommandResult | None:
    """Run one step of a change on its host: a file step writes `data`."""
    if step.writes is not None:
        host.write_file(step.writes, data, sudo=step.sudo)
        return None
    return host.run(step.line, sudo=step.sudo, **kw)  # type: ignore[arg-type]


def run_make(
    tx: Transaction, host: Host, entry_id: int, step: Step, *, action: str, timeout: float = 60.0
) -> CommandResult | None:
    """Run a step that makes something exclusively (journaled first as `entry_id`): when it says NOT_MADE, nothing
    was made, and the entry is closed before the failure is raised, so that no undo touches what is there."""
    try:
        return run_step(host, step, action=action, timeout=timeout)
    except CommandFailed as exc:
        if exc.exit_status == NOT_MADE:
            tx.not_made(entry_id)
        raise


def process_log_file(pid_path: str) -> str:
    return pid_path.removesuffix(".pid") + ".log"


def _drop_listener(host: Host, entry: JournalEntry, step: Step) -> None:
    netid, _, port = entry.target.partition(" ")
    host.run(
        step.line,
        sudo=True,
        timeout=180,
        action=f"restarting the NFS server to remove its {netid} listener on port {port}",
    )
    left = host.run(["cat", PORTLIST], sudo=True, check=False).stdout.splitlines()
    if entry.target in (" ".join(line.split()) for line in left):
        raise NfstuneError(
            f"{host.label}: nfsd still listens on {entry.target} after the restart: its own configuration asks for "
            "it (nfs.conf [nfsd] rdma=, or rpc.nfsd --rdma)"
        )


def describe(entry: JournalEntry) -> str:
    """An undone change in words, as the admin reads it while a cancel puts things back."""
    reload = " and the exports reloaded" if entry.detail.get("exportfs") else ""
    return {
        "file": f"{entry.target} put back as it was{reload}"
        if entry.original is not None
        else f"{entry.target} removed (nfstune had made it){reload}",
        "dir": f"the directory {entry.target} removed",
        "mount": f"{entry.target} unmounted",
        "sysfs": f"{entry.target} set back to {(entry.original or b'').decode(errors='replace').strip()}",
        "tempfile": f"{entry.target} removed",
        "scratch": f"the scratch directory {entry.target} removed",
        "nfs-scratch": f"the scratch directory {entry.target} removed (over NFS)",
        "process": f"{entry.detail.get('program', 'the process')} stopped (pid file {entry.target})",
        "listener": f"nfsd's {entry.target} listener removed (the NFS server restarted)",
    }.get(entry.kind, f"{entry.kind} {entry.target}")


def may_wait(entry: JournalEntry) -> str | None:
    """What an undo step that can take a while is doing, said before it starts: an unmount waits while the server
    does not answer (a client that lost its connection sat a minute in umount on the lab), and a large scratch
    directory takes time to remove. None for the quick steps."""
    if entry.kind == "mount":
        return f"unmounting {entry.target} (this waits while the server does not answer)"
    if entry.kind in ("scratch", "nfs-scratch"):
        return f"removing the scratch directory {entry.target}"
    if entry.kind == "listener":
        return f"restarting the NFS server to remove its {entry.target} listener (clients pause meanwhile)"
    return None


def recover(hosts: Mapping[str, Host], journal: Journal, progress: Progress) -> list[JournalEntry]:
    """Undo every change still pending on these hosts (newest first). Returns what was undone; entries of
    hosts not given stay pending for later."""
    undone = []
    for entry in journal.pending():
        host = hosts.get(entry.host)
        if host is None:
            continue
        progress(f"{host.label}: undoing an earlier change left by nfstune (pid {entry.pid}): {entry.target}")
        note = undo_entry(host, entry)
        journal.mark_restored(entry.id)
        if note is not None:
            progress(f"{host.label}: {note}")
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

    def not_made(self, entry_id: int) -> None:
        """A change journaled but not made (its exclusive create failed): closed, never to be undone."""
        self.journal.mark_restored(entry_id)
        self._entries = [(h, e) for h, e in self._entries if e != entry_id]

    def undo(self, *, announce: bool = False) -> None:
        """Undo everything; every step is tried, and the first failure is raised at the end. A Ctrl-C or SIGTERM
        that lands during the undo does not cut it short: the step it interrupted is tried once more, the rest
        go on, and the interrupt is raised when all are done (what still fails stays pending for the next
        connect). `announce`: say each step as it is done (on cancel and on failure, where the admin watches
        what is put back; the undo after every configuration of a run stays quiet)."""
        first_error: BaseException | None = None
        interrupted: KeyboardInterrupt | None = None
        pending = {e.id: e for e in self.journal.pending()}
        while self._entries:
            host, entry_id = self._entries.pop()
            entry = pending.get(entry_id)
            if entry is None:
                continue
            # a restart of the NFS server pauses every client of it: always said, also after a run that went well
            say = announce or entry.kind == "listener"
            for attempt in (1, 2):
                try:
                    if say and attempt == 1 and (doing := may_wait(entry)) is not None:
                        self.progress(f"{host.label}: {doing}…")
                    note = undo_entry(host, entry)
                    self.journal.mark_restored(entry_id)
                    if note is not None:  # said always: the admin finds a directory left that nfstune named
                        self.progress(f"{host.label}: {note}")
                    elif say:
                        self.progress(f"{host.label}: undone: {describe(entry)}")
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
