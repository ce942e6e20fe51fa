"""The server's exports as nfstune changes them for a measurement: read every exports file, replace one with new
text, `exportfs -ra`, and verify what the kernel then runs (the table and the export caches), undone with the
transaction."""

from __future__ import annotations

import dataclasses
import posixpath
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from nfstune.changes.config_files import read_config_files
from nfstune.changes.steps import Steps, command, write
from nfstune.changes.transaction import HOST_JOURNAL_DIR, ChangeFailed, Transaction, run_step, undo_dir, undo_file
from nfstune.errors import NfstuneError
from nfstune.facts.appliance import async_setting_hint
from nfstune.nfs.exportfs_view import expected_exportfs_s
from nfstune.nfs.exports import parse as parse_exports
from nfstune.nfs.kernel_view import (
    NfsClient,
    check_exports_resolve_to_themselves,
    connected_clients,
    parse_exportfs_s,
)
from nfstune.remote import Host
from nfstune.shell_text import join

RELOAD = ("exportfs", "-ra")
KERNEL_CACHES = "cat /proc/net/rpc/nfsd.export/content; echo '== fh'; cat /proc/net/rpc/nfsd.fh/content"
READ_TABLE = "reading the kernel's exports (exportfs -s)"
ExportTable = dict[tuple[str, str], tuple[str, ...]]  # (path, client) -> options, as `exportfs -s` lists them


class ApplianceRefused(NfstuneError):
    """The server is a NAS appliance that owns its NFS configuration: nfstune writes none of its files."""


def read_export_files(server: Host) -> dict[str, str]:
    """Every exports file of the server as exportfs reads them (/etc/exports, then /etc/exports.d/*.exports in
    name order), by path; a file that does not exist is left out."""
    return read_config_files(server, "/etc/exports", "/etc/exports.d", ".exports")


def exportfs_table(server: Host) -> ExportTable:
    """What the kernel exports now."""
    return parse_exportfs_s(server.run("exportfs -s", sudo=True, action=READ_TABLE).stdout)


@dataclass(frozen=True)
class Reloaded:
    refused: str  # exportfs -ra's complaint when it did not take the files; "" when it did
    warnings: tuple[str, ...]  # what it said while taking them
    shown: str  # `exportfs -s` afterwards, for the admin to see
    table: ExportTable


def reload_exports(server: Host) -> Reloaded:
    """`exportfs -ra` after an exports file was written, and the table the kernel runs then: the one reload and
    check both the measurement's change and Apply go through."""
    result = server.run(join(RELOAD), sudo=True, check=False)
    if result.exit_status != 0:
        return Reloaded((result.stderr + result.stdout).strip() or f"exit status {result.exit_status}", (), "", {})
    shown = server.run("exportfs -s", sudo=True, action=READ_TABLE).stdout
    return Reloaded("", tuple(ln for ln in result.stderr.splitlines() if ln.strip()), shown, parse_exportfs_s(shown))


def changed_elsewhere(before: ExportTable, after: ExportTable, changing: Callable[[str, str], bool]) -> list[str]:
    """Exports the change was not meant to touch (`changing(path, client)` False) that the reload changed or
    dropped: the other shares on the same server, which other people use."""
    return [
        f"{path} {client}({','.join(opts)}) became "
        + (f"{client}({','.join(after[(path, client)])})" if (path, client) in after else "unexported")
        for (path, client), opts in before.items()
        if not changing(path, client) and after.get((path, client)) != opts
    ]


def kernel_resolution(server: Host, user_exports: dict[str, str]) -> tuple[str, str]:
    """Whether each user export (path -> "sync"/"async") resolves to itself, with that write mode, in the
    server's export caches (read after a client has used them): the problems found ("" when none) and the
    caches' text, for the admin to see."""
    caches = server.run(KERNEL_CACHES, sudo=True, action="reading nfsd's export caches").stdout
    export_cache, _, fh_cache = caches.partition("== fh\n")
    problems = check_exports_resolve_to_themselves(export_cache, fh_cache, user_exports)
    return "; ".join(p.message for p in problems), caches


class CheckFailed(Exception):
    """A check after a change found it wrong: the host, the command whose output shows it, that output, and what
    is wrong, for the admin; the change is undone before this reaches them."""

    def __init__(self, host: str, command: str, output: str, problem: str) -> None:
        self.host, self.command, self.output, self.problem = host, command, output, problem
        super().__init__(problem)


Rows = dict[str, dict[str, tuple[str, ...]]]  # path -> client -> options, as expected_exportfs_s() gives them


@dataclass(frozen=True)
class Expected:
    """What the kernel must run once an exports file is written: `rows` exactly as exportfs -s lists them (Apply
    and its Undo, which know the whole new line), `modes` the write mode of every client of a path (the
    measurement's change, which knows the mode it made). Every other export stays as `exportfs -s` listed it
    before."""

    rows: Rows = field(default_factory=dict)
    modes: dict[str, str] = field(default_factory=dict)

    def changes(self, path: str, client: str) -> bool:
        """Whether the change may alter this export: its path's mode, a client of its rows, or any client of an
        export it drops."""
        rows = self.rows.get(path)
        return path in self.modes or (rows is not None and (not rows or client in rows))


def rows_changed(old: bytes | None, new: bytes | None) -> Rows:
    """The exports whose rows differ between two versions of an exports file, as exportfs reads `new`: what
    `exportfs -s` must list after `new` is written over `old` (an export `new` drops has no rows: it must be gone
    from the table, which changed_elsewhere() cannot see, so it is listed with none)."""

    def rows(data: bytes | None) -> Rows:
        return expected_exportfs_s(parse_exports(data.decode("utf-8", "surrogateescape"))) if data else {}

    before, after = rows(old), rows(new)
    return {path: after.get(path, {}) for path in {*before, *after} if before.get(path) != after.get(path)}


def verify_exports(
    server: Host, reloaded: Reloaded, before: ExportTable, expected: Expected, *, file: str, kernel: bool
) -> str:
    """The one check of an exports change after `exportfs -ra` (the measurement's change, Apply, and the Undo of
    an Apply): exportfs took `file` without an error, `exportfs -s` lists what `expected` says, nothing else
    changed, and with `kernel` every export resolves to itself in nfsd's caches with its own write mode. Raises
    CheckFailed; returns what `exportfs -s` showed."""
    complaint = reloaded.refused or "; ".join(w for w in reloaded.warnings if "error" in w.lower())
    if complaint:
        raise CheckFailed(server.label, join(RELOAD), complaint, f"exportfs refused {file}")
    after, shown = reloaded.table, reloaded.shown
    for path, rows in expected.rows.items():
        listed = {client: opts for (p, client), opts in after.items() if p == path}
        if not rows and listed:
            raise CheckFailed(server.label, "exportfs -s", shown, f"{path} is still exported after {file} dropped it")
        for client, options in rows.items():
            got = listed.get(client)
            if got != options:
                found = f"shows {client}({','.join(got)})" if got else f"does not list {client}"
                problem = f"{path} is not exported as {file} says: exportfs -s {found}, not ({','.join(options)})"
                raise CheckFailed(server.label, "exportfs -s", shown, problem)
    for path, mode in expected.modes.items():
        listed = {client: opts for (p, client), opts in after.items() if p == path}
        if not listed:
            raise CheckFailed(server.label, "exportfs -s", shown, f"exportfs -s does not list {path} after the change")
        for client, opts in listed.items():
            if mode not in opts:
                problem = f"exportfs -s shows {path} {client}({','.join(opts)}), not {mode}"
                raise CheckFailed(server.label, "exportfs -s", shown, problem)
    for change in changed_elsewhere(before, after, expected.changes):
        problem = f"exportfs -ra also changed an export the change was not meant to touch: {change}"
        raise CheckFailed(server.label, "exportfs -s", shown, problem)
    if kernel:
        problem, caches = kernel_resolution(server, write_modes(after))
        if problem:
            raise CheckFailed(server.label, KERNEL_CACHES, caches, problem)
    return shown


def write_modes(table: ExportTable) -> dict[str, str]:
    """Each export path's write mode ("sync"/"async"), where all its clients share one."""
    modes: dict[str, set[str]] = {}
    for (path, _client), options in table.items():
        modes.setdefault(path, set()).add("async" if "async" in options else "sync")
    return {path: mode.pop() for path, mode in modes.items() if len(mode) == 1}


def list_connected_clients(server: Host) -> list[NfsClient]:
    """Who else uses this server now (shown before a server-side change: they share its exports)."""
    out = server.run(
        'for d in /proc/fs/nfsd/clients/*/; do [ -r "$d/info" ] && { echo "== $d"; cat "$d/info"; }; done; '
        # without ss (no iproute2) the v3 clients stay unseen, but the v4 ones are still listed
        "echo '== ss'; ss -tn state established '( sport = :2049 )' 2>/dev/null || true",
        sudo=True,
        action="listing the connected NFS clients",
    ).stdout
    v4_info, _, ss_output = out.rpartition("== ss\n")
    return connected_clients(v4_info, ss_output)


def export_steps(file: str, *, backup: str | None, make_parent: bool = False, what: str = "its new text") -> Steps:
    """An exports file replaced and the exports reloaded; `backup`: where the original's copy is kept on the host
    (None when there is no original: the file is new, and the undo removes it); `make_parent`: its folder
    (/etc/exports.d) is made first, and removed at the undo when empty."""
    parent = posixpath.dirname(file)
    missing = f"when {parent} is missing"
    make = dataclasses.replace(command("server", ("mkdir", "-p", parent), f"make {parent}"), when=missing)
    made = (make,) if make_parent else ()
    kept = (
        (
            command("server", ("mkdir", "-p", "-m", "700", HOST_JOURNAL_DIR), "make the folder of the host's copies"),
            write("server", backup, f"copy the original {file} there (it is journaled too)"),
        )
        if backup is not None
        else ()
    )
    return Steps(
        (*made, *kept, write("server", file, what), command("server", RELOAD, "reload the exports")),
        (
            *undo_file("server", file, original=backup is not None, exportfs=True, backup=backup),
            *((dataclasses.replace(undo_dir("server", parent), when=missing),) if make_parent else ()),
        ),
    )


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
        self.table_before = exportfs_table(s)
        original = s.read_file(self.file, sudo=True)
        parent = posixpath.dirname(self.file)
        make_parent = s.run(["test", "-d", parent], check=False).exit_status != 0
        backup = None
        if original is not None:
            backup = f"{HOST_JOURNAL_DIR}/{time.strftime('%Y%m%d-%H%M%S')}-{posixpath.basename(self.file)}"
        *before, write_new, _reload = export_steps(self.file, backup=backup, make_parent=make_parent).do
        if make_parent:
            tx.record(s, "dir", parent)
            run_step(s, before.pop(0))
        tx.record(s, "file", self.file, original=original, backup_path=backup, detail={"exportfs": True})
        for step in before:  # the copy of the original, kept on the host
            run_step(s, step, data=original or b"")
        tx.progress(f"{s.label}: writing {self.file} and running exportfs -ra")
        run_step(s, write_new, data=self.new_text)
        expected = Expected(modes=dict(self.expect))
        was = self.table_before
        self._checked(lambda: verify_exports(s, reload_exports(s), was, expected, file=self.file, kernel=False))

    def verify_kernel(self, user_exports: dict[str, str]) -> None:
        """After a client has used the exports: every user export must resolve to itself, with the write mode
        given. Otherwise the change is undone at once and ChangeFailed says what the kernel did."""

        def check() -> None:
            problem, caches = kernel_resolution(self.server, user_exports)
            if problem:
                raise CheckFailed(self.server.label, KERNEL_CACHES, caches, problem)

        self._checked(check)

    def _checked(self, check: Callable[[], object]) -> None:
        """Run a check; when it fails, the transaction is undone (by its journal entries, as every undo is) and
        ChangeFailed says what was wrong."""
        try:
            check()
        except CheckFailed as failed:
            # what exportfs -ra said is short and is the reason; a table or the caches are not
            said = f": {failed.output.strip()}" if failed.command == join(RELOAD) else ""
            message = f"{failed.problem}{said}"
            self.tx.progress(f"{self.server.label}: {message}; undoing the change")
            self.tx.undo()
            raise ChangeFailed(f"{self.server.label}: {message}. The change was undone.") from None
