"""Apply the recommendation for good: read both files and show the exact diff; only after the admin confirms,
back up, write, verify (`exportfs -s`, `findmnt --verify`) and roll back on any failure (changes.apply does all that,
on a worker thread)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from nfstune.ui.controller import Controller

INTRO = (
    "nfstune will make exactly these changes. A dated backup of each file is kept next to it on its host. After "
    "writing, it checks the server with <tt>exportfs -ra</tt> / <tt>exportfs -s</tt> and the client with "
    "<tt>findmnt --verify</tt>; if anything is wrong, both files are put back as they were. Nothing is mounted."
)


FINDINGS_STYLE = "QLabel { background: #fff4e5; border: 2px solid #c92a2a; border-radius: 4px; padding: 6px; }"


def findings_html(findings: Sequence[str]) -> str:
    items = "".join(f"<li>{html.escape(finding)}</li>" for finding in findings)
    return f"<b>Look at these in the server's exports files first:</b><ul style='margin: 0'>{items}</ul>"


class DiffDialog(QDialog):
    def __init__(self, diff: str, parent: QWidget | None = None, findings: Sequence[str] = ()) -> None:
        super().__init__(parent)
        self.setWindowTitle("Apply the recommendation: review the changes")
        self.resize(900, 520)
        intro = QLabel(INTRO, wordWrap=True)
        # the exports' traps ("host (rw)", no_root_squash to everyone...) that nfstune leaves as they are
        self.findings = QLabel(findings_html(findings), wordWrap=True)
        self.findings.setStyleSheet(FINDINGS_STYLE)
        self.findings.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.findings.setVisible(bool(findings))
        self.diff = QPlainTextEdit(diff, readOnly=True)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.apply_button = self.buttons.addButton("&Apply these changes", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.findings)
        layout.addWidget(self.diff, 1)
        layout.addWidget(self.buttons)


def run_apply_flow(window: QWidget, controller: Controller, page: QWidget) -> None:
    """prepare (job) -> diff dialog -> apply (job) -> the page shows the outcome. `page` is the recommendation page
    (set_apply_state)."""
    from nfstune.changes.apply import apply, prepare

    outcome, probed = controller.outcome, controller.probe
    if outcome is None or outcome.recommendation is None or probed is None:
        return
    rec = outcome.recommendation
    pair = controller.pair()
    page.set_apply_state("Reading /etc/exports and /etc/fstab…", None)

    def prepare_work(_job: object) -> object:
        return prepare(
            pair.server, pair.client, pair.share, rec.exports_line, rec.fstab_line,
            appliance=probed.facts.server.appliance,
        )  # fmt: skip

    def prepared(plan: object) -> None:
        if plan.noop:
            found = f" Still, look at: {'; '.join(plan.findings)}" if plan.findings else ""
            page.set_apply_state(f"Both files already read as recommended: nothing to change.{found}", True)
            return
        dialog = DiffDialog(plan.diff, window, plan.findings)
        window.apply_dialog = dialog  # tests reach it

        def confirmed(result: int) -> None:
            if result != QDialog.DialogCode.Accepted:
                page.set_apply_state("Not applied: nothing was changed.", None)
                return
            page.set_apply_state("Applying and verifying…", None)
            controller.start_job("apply", lambda _job: _apply(plan), applied, failed)

        dialog.finished.connect(confirmed)
        dialog.open()

    def _apply(plan: object) -> object:
        from nfstune.store import Journal, open_store

        conn = open_store(controller.store_path)
        try:
            return apply(plan, pair.server, pair.client, Journal(conn), lambda line: None)
        finally:
            conn.close()

    def applied(result: object) -> None:
        backups = ", ".join(b for b in (result.server_backup, result.client_backup) if b)
        page.set_apply_state(f"Applied and verified. Backups: {backups or 'none needed'}.", True)

    def failed(message: str) -> None:
        page.set_apply_state(message, False)

    controller.start_job("apply-prepare", prepare_work, prepared, failed)
