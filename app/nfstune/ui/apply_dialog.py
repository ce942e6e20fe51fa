"""Apply the recommendation for good: read both files and show the exact diff; only after the admin confirms,
back up, write, verify (`exportfs -s`, `findmnt --verify`) and roll back on any failure (changes.apply does all that,
on a worker thread). Undo the last Apply the same way: the diff back to the files Apply found, confirmed, written,
verified as Apply verifies (changes.apply_undo, changes.export.verify_exports)."""

from __future__ import annotations

import html
import logging
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

log = logging.getLogger(__name__)

INTRO = (
    "nfstune will make exactly these changes. A dated backup of each file is kept next to it on its host. After "
    "writing, it checks the server with <tt>exportfs -ra</tt> / <tt>exportfs -s</tt> and the client with "
    "<tt>findmnt --verify</tt>; if anything is wrong, both files are put back as they were. Nothing is mounted."
)

UNDO_INTRO = (
    "nfstune will put back the files its last Apply on these hosts changed, exactly as Apply found them, and check "
    "them as Apply does (<tt>exportfs -ra</tt> / <tt>exportfs -s</tt>: each export back with its original options, "
    "nothing else moved; <tt>findmnt --verify</tt> on the client); if anything is wrong, the applied files are "
    "written again. A mount point Apply made is removed if it is empty and unused. "
    "Nothing is unmounted."
)

# a light box with its own dark text: it reads the same in a dark window
FINDINGS_STYLE = (
    "QLabel { background: #fff4e5; color: #202020; border: 2px solid #c92a2a; border-radius: 4px; padding: 6px; }"
)

NO_LOGIN = "Apply and its undo write the server's files, and nfstune has no login on the server."


def findings_html(findings: Sequence[str]) -> str:
    items = "".join(f"<li>{html.escape(finding)}</li>" for finding in findings)
    return f"<b>Look at these in the server's exports files first:</b><ul style='margin: 0'>{items}</ul>"


class DiffDialog(QDialog):
    def __init__(
        self,
        diff: str,
        parent: QWidget | None = None,
        findings: Sequence[str] = (),
        *,
        undo: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(
            "Undo the last Apply: review the changes" if undo else "Apply the recommendation: review the changes"
        )
        self.resize(900, 520)
        intro = QLabel(UNDO_INTRO if undo else INTRO, wordWrap=True)
        # the exports' traps ("host (rw)", no_root_squash to everyone...) that nfstune leaves as they are
        self.findings = QLabel(findings_html(findings), wordWrap=True)
        self.findings.setStyleSheet(FINDINGS_STYLE)
        self.findings.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.findings.setVisible(bool(findings))
        self.diff = QPlainTextEdit(diff, readOnly=True)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.apply_button = self.buttons.addButton(
            "&Put these files back" if undo else "&Apply these changes", QDialogButtonBox.ButtonRole.AcceptRole
        )
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
    if pair.server is None:  # the page's button is greyed out then; this says why if it is reached anyway
        page.set_apply_state(NO_LOGIN, False)
        return
    page.set_apply_state("Reading /etc/exports and /etc/fstab…", None)

    def prepare_work(_job: object) -> object:
        return prepare(
            pair.server,
            pair.client,
            pair.share,
            rec.exports_line,
            rec.fstab_line,
            appliance=probed.facts.server.appliance,
            nfsd_threads=rec.threads.threads if rec.threads is not None else None,
            session_id=outcome.session_id,
        )

    def prepared(plan: object) -> None:
        if plan.noop:
            found = f" Still, look at: {'; '.join(plan.findings)}" if plan.findings else ""
            page.set_apply_state(f"Both files already read as recommended: nothing to change.{found}", True)
            return
        dialog = DiffDialog(plan.review, window, plan.findings)
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
        backups = ", ".join(result.backups)
        page.set_apply_state(f"Applied and verified. Backups: {backups or 'none needed'}. Undo: Undo last Apply.", True)
        page.check_button.show()  # whether it held, once the mount uses it: Check it held
        log.info("applied the recommendation for good; backups: %s", backups or "none needed")

    def failed(message: str) -> None:
        log.warning("applying the recommendation failed: %s", message)
        page.set_apply_state(message, False)

    controller.start_job("apply-prepare", prepare_work, prepared, failed)


def run_undo_flow(window: QWidget, controller: Controller, page: QWidget) -> None:
    """prepare_undo (job) -> diff dialog -> undo_apply (job) -> the page shows the outcome."""
    from nfstune.changes.apply_undo import prepare_undo, undo_apply
    from nfstune.store import Journal, open_store

    try:
        pair = controller.pair()
    except RuntimeError:
        page.set_apply_state("Connect the server and the client first: the undo reads their files.", False)
        return
    if pair.server is None:  # an Apply needs the login too, so there is none of these hosts' to undo from here
        page.set_apply_state(NO_LOGIN, False)
        return
    page.set_apply_state("Reading what the last Apply changed…", None)

    def prepare_work(_job: object) -> object:
        conn = open_store(controller.store_path)  # this thread's own connection
        try:
            return prepare_undo(pair.server, pair.client, Journal(conn))
        finally:
            conn.close()

    def prepared(plan: object) -> None:
        dialog = DiffDialog(plan.review, window, undo=True)
        window.apply_dialog = dialog  # tests reach it

        def undo_work(_job: object) -> object:
            conn = open_store(controller.store_path)
            try:
                return undo_apply(plan, pair.server, pair.client, Journal(conn), log.info)
            finally:
                conn.close()

        def confirmed(result: int) -> None:
            if result != QDialog.DialogCode.Accepted:
                page.set_apply_state("Not undone: nothing was changed.", None)
                return
            page.set_apply_state("Putting the files back and verifying…", None)
            controller.start_job("apply", undo_work, undone, failed)

        dialog.finished.connect(confirmed)
        dialog.open()

    def undone(result: object) -> None:
        removed = "".join(f" Removed {d}." for d in result.removed_dirs)
        warned = "".join(f" Note: {w}." for w in result.warnings)
        page.set_apply_state(f"Undone and verified: {'; '.join(result.restored)}.{removed}{warned}", True)
        log.info("undid the last Apply: %s", "; ".join(result.restored))

    def failed(message: str) -> None:
        log.warning("undoing the last Apply failed: %s", message)
        page.set_apply_state(message, False)

    controller.start_job("apply-prepare", prepare_work, prepared, failed)
