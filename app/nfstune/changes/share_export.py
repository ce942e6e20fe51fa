"""The share's export options changed for a visit (set async, unset wdelay, ...) where they are defined, as the
change a plan lists (host_change.py): the exports file that defines the share gets its new text (export.py writes
it, reloads and checks the kernel's table), unless it already says so."""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.changes.export import ExportChange, export_steps, read_export_files
from nfstune.changes.host_change import OnHosts, Where
from nfstune.changes.steps import Steps
from nfstune.changes.transaction import HOST_JOURNAL_DIR
from nfstune.nfs.export_edit import ExportOptionEdit, export_edit


@dataclass(frozen=True)
class ExportOptions:
    edit: ExportOptionEdit

    @property
    def edits(self) -> str:
        return ", ".join([*(f"set {o}" for o in self.edit.set), *(f"unset {o}" for o in self.edit.unset)])

    def steps(self, where: Where) -> Steps:
        return export_steps(
            f"<the exports file that defines {where.share}>",
            backup=f"{HOST_JOURNAL_DIR}/<date-time>-<its name>",
            what=f"its new text: {self.edits} for each of the share's clients",
        ).only("unless the file already says so")

    def apply(self, on: OnHosts) -> None:
        """The kernel's own view of the export is checked once a client has used it (`on.after_mount`)."""
        server, share = on.host("server"), on.where.share
        files = read_export_files(server)
        file, new_text, mode = export_edit(files, share, self.edit)
        if new_text == files[file].encode("utf-8", "surrogateescape"):
            on.log(f"{server.label}: {file} already says {self.edits}: not written")
            return
        change = ExportChange(server, on.tx, file=file, new_text=new_text, expect={share: mode}, appliance=on.appliance)
        change.apply()
        on.after_mount.append(lambda: change.verify_kernel(change.expect))
