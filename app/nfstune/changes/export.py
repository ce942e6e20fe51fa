"""The server's exports as nfstune changes them for a measurement: read every exports file, replace one with new
text, `exportfs -ra`, and verify what the kernel then runs (the table and the export caches), undone with the
transaction."""

from __future__ import annotations

import dataclasses
import posixpath
import time
from collections.abc import Callable
from dataclasses import dataclass

from nfstune.changes.config_files import read_config_files
from nfstune.changes.steps import Steps, command, write
from nfstune.changes.transaction import HOST_JOURNAL_DIR, ChangeFailed, Transaction, run_step, undo_dir, undo_file
from nfstune.errors import NfstuneError
from nfstune.facts.appliance import async_setting_hint
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
        reloaded = reload_exports(s)
        complaint = reloaded.refused or "; ".join(w for w in reloaded.warnings if "error" in w.lower())
        if complaint:
            self._fail(f"`exportfs -ra` rejected the new {self.file}: {complaint}")
        self._verify_table(reloaded.table)

    def _verify_table(self, after: ExportTable) -> None:
        for change in changed_elsewhere(self.table_before, after, lambda path, _client: path in self.expect):
            self._fail(f"exportfs -s: {change}")
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
        problem, _caches = kernel_resolution(self.server, user_exports)
        if problem:
            self._fail(problem)

    def _fail(self, message: str) -> None:
        self.tx.progress(f"{self.server.label}: {message}; undoing the change")
        self.tx.undo()
        raise ChangeFailed(f"{self.server.label}: {message}. The change was undone.")
