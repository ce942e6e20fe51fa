"""The recommendation page: the /etc/exports and /etc/fstab lines with a reason for every option, copy, save and
apply; async only ever inside a warning box, hidden until the admin asks to see it (docs/nfs-knowledge.md 4)."""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from nfstune.advice.recommend import Reason, Recommendation
from nfstune.nfs.fstab_rewrite import parse_fstab_line
from nfstune.ui.icons import icon
from nfstune.ui.theme import text_colour
from nfstune.ui.widgets.labels import wrapped_label
from nfstune.ui.widgets.scrolled import scrolled

SaveDialog = Callable[[QWidget, str, str, str], tuple[str, str]]
LINE_STYLE = "background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 3px; padding: 6px; color: #202020;"
ASYNC_BOX_STYLE = (
    "QFrame#asyncWarning { background: #fff4e5; border: 2px solid #c92a2a; border-radius: 4px; }"
    "QFrame#asyncWarning QLabel { color: #202020; }"
)
NO_ASYNC = {
    True: "async was measured and did not help here: no async alternative is offered.",
    False: "async was not measured in this session (the sync-vs-async recipe measures it).",
    None: "async was not measured to help here, or was not measured: no async alternative is offered.",
}
APPLY_TIP = "Show the exact changes to /etc/exports and /etc/fstab before applying them"


def _line_label() -> QLabel:
    """A configuration line: monospace, selectable by mouse and keyboard, wrapped rather than cut."""
    label = QLabel()
    label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
    )
    label.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # reachable with Tab, to select and copy from the keyboard
    label.setWordWrap(True)
    label.setStyleSheet(LINE_STYLE)
    return label


def exports_state(rec: Recommendation) -> str:
    """What the exports text is: the admin's own entry (with only sync changed) or a new line."""
    if not rec.exports_line:
        return "nfstune could not log in to the server: its exports were not read, and nothing is recommended there."
    if rec.exports_before is None:
        return f"The share is not exported yet: this line would be added to {rec.exports_file}."
    if rec.exports_before == rec.exports_line:
        return f"Your entry in {rec.exports_file} already reads as recommended: nothing to change."
    kept = "with only sync changed; every other client and option is kept"
    return f"Your entry in {rec.exports_file} {kept}. Now:\n{rec.exports_before}"


def fstab_state(rec: Recommendation) -> str:
    if rec.fstab_before is None:
        return "The client has no entry for this share: a new line (choose your own mount point)."
    if rec.fstab_before == rec.fstab_line:
        return "Your entry already reads as recommended: its mount point and options are kept."
    kept = "with only the NFS version changed; its mount point and other options are kept"
    return f"Your entry {kept}. Now:\n{rec.fstab_before}"


def reasons_html(reasons: Sequence[Reason]) -> str:
    e = html.escape
    return "<ul style='margin: 0'>" + "".join(f"<li><b>{e(r.option)}</b>: {e(r.why)}</li>" for r in reasons) + "</ul>"


def copy_text(rec: Recommendation, server_label: str, client_label: str) -> str:
    """Both lines, each under a comment naming the file and host it belongs in."""
    exports = f"# {rec.exports_file} on {server_label}\n{rec.exports_line}\n" if rec.exports_line else ""
    return f"{exports}# /etc/fstab on {client_label}\n{rec.fstab_line}\n"


def fstab_mount_point(line: str) -> str:
    """The mount point of an fstab line, its \\040 escapes decoded."""
    return parse_fstab_line(line).mount_point


def mount_point_problem(path: str) -> str:
    """Why `path` cannot be a mount point ("" when it can)."""
    if not path.startswith("/") or path == "/":
        return f"{path!r} is not an absolute path below /"
    if any(ch in path for ch in "\n\t\0"):
        return "a mount point is one line"
    return ""


def save_text(rec: Recommendation, server_label: str, client_label: str) -> str:
    """The lines with every option's reason and the notes, as comments, so the file explains itself later."""
    parts = ["# nfstune recommendation"]
    if rec.exports_line:  # "" without a login on the server
        parts.append(f"# {rec.exports_file} on {server_label}:")
        parts += [f"#   {r.option}: {r.why}" for r in rec.exports_reasons]
        parts += [rec.exports_line, ""]
    parts.append(f"# /etc/fstab on {client_label}:")
    parts += [f"#   {r.option}: {r.why}" for r in rec.fstab_reasons]
    parts.append(rec.fstab_line)
    threads = rec.threads
    if threads is not None and threads.line is not None:
        parts += ["", f"# {threads.file} on {server_label}, [nfsd] section:", f"#   {threads.note}", threads.line]
    if rec.notes:
        parts += ["", "# Notes:", *(f"#   {note}" for note in rec.notes)]
    return "\n".join(parts) + "\n"


class RecommendationPage(QWidget):
    apply_requested = Signal()  # the admin wants these lines applied for good (the diff/apply flow takes over)
    undo_requested = Signal()  # the admin wants the last Apply on these hosts undone (the same flow, backwards)
    mount_point_changed = Signal(str)  # the admin chose where a new fstab line mounts the share

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # an attribute, not a call to QFileDialog, so that tests (and a caller that remembers folders) replace it
        self.ask_save_path: SaveDialog = QFileDialog.getSaveFileName
        self._rec: Recommendation | None = None
        self._labels = ("the server", "the client")

        self.exports_box = QGroupBox("/etc/exports")
        self.exports_line = _line_label()
        self.exports_state = wrapped_label()
        self.exports_reasons = wrapped_label(rich=True)
        self.fstab_box = QGroupBox("/etc/fstab")
        self.fstab_line = _line_label()
        self.fstab_state = wrapped_label()
        self.fstab_reasons = wrapped_label(rich=True)
        # where a new fstab line mounts the share: the admin's choice (an existing entry keeps its own)
        self.mount_point_edit = QLineEdit()
        self.mount_point_edit.setToolTip("An absolute path on the client; Apply makes it if it does not exist")
        self.mount_point_row = QWidget()
        row = QHBoxLayout(self.mount_point_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("&Mount point on the client:", buddy=self.mount_point_edit))
        row.addWidget(self.mount_point_edit, 1)
        self.mount_point_row.hide()
        for box, state, line, reasons in (
            (self.exports_box, self.exports_state, self.exports_line, self.exports_reasons),
            (self.fstab_box, self.fstab_state, self.fstab_line, self.fstab_reasons),
        ):
            box.setStyleSheet("QGroupBox { font-weight: bold; }")  # the title only: children keep their own fonts
            box_layout = QVBoxLayout(box)
            box_layout.addWidget(state)
            box_layout.addWidget(line)
            if box is self.fstab_box:
                box_layout.addWidget(self.mount_point_row)
            box_layout.addWidget(reasons)
        self.notes_label = wrapped_label(rich=True)

        self.show_async_check = QCheckBox("&Show the async alternative and its risks")
        self.no_async_label = wrapped_label()
        self.async_box = QFrame()
        self.async_box.setObjectName("asyncWarning")
        self.async_box.setStyleSheet(ASYNC_BOX_STYLE)
        warning_icon = QLabel()
        warning_icon.setPixmap(icon("warning").pixmap(32, 32))
        warning_icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.async_title = QLabel("Not recommended by default: async")
        self.async_title.setStyleSheet("font-weight: bold; font-size: 12pt; color: #c92a2a;")
        self.async_line = _line_label()
        self.async_gain = wrapped_label(rich=True)
        self.async_warning = wrapped_label(rich=True)
        self.async_risk = wrapped_label(rich=True)
        self.async_conditions = wrapped_label(rich=True)
        box_text = QVBoxLayout()
        for widget in (
            self.async_title,
            self.async_line,
            self.async_gain,
            self.async_warning,
            self.async_risk,
            self.async_conditions,
        ):
            box_text.addWidget(widget)
        box_layout = QHBoxLayout(self.async_box)
        box_layout.addWidget(warning_icon, 0, Qt.AlignmentFlag.AlignTop)
        box_layout.addLayout(box_text, 1)
        self.async_box.hide()

        self.copy_button = QPushButton(icon("copy"), "&Copy")
        self.copy_button.setToolTip("Copy both lines, with comments naming their files, to the clipboard")
        self.save_button = QPushButton(icon("save"), "Sa&ve…")
        self.apply_button = QPushButton(icon("apply"), "&Apply…")
        self.apply_button.setToolTip(APPLY_TIP)
        self.undo_button = QPushButton(icon("undo"), "&Undo last Apply…")
        self.undo_button.setToolTip("Show how the files the last Apply changed would be put back, then do it")
        self.apply_state = wrapped_label()
        self.status = wrapped_label()
        buttons = QHBoxLayout()
        for button in (self.copy_button, self.save_button, self.apply_button, self.undo_button):
            buttons.addWidget(button)
        buttons.addWidget(self.apply_state, 1)

        content = QWidget()
        content_layout = QVBoxLayout(content)
        for widget in (
            self.exports_box,
            self.fstab_box,
            self.notes_label,
            self.show_async_check,
            self.no_async_label,
            self.async_box,
        ):
            content_layout.addWidget(widget)
        content_layout.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(scrolled(content, wraps=True), 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        chain = [
            self.exports_line,
            self.fstab_line,
            self.mount_point_edit,
            self.show_async_check,
            self.async_line,
            self.copy_button,
            self.save_button,
            self.apply_button,
            self.undo_button,
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

        self.show_async_check.toggled.connect(self._on_show_async_toggled)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        self.save_button.clicked.connect(self._on_save_clicked)
        self.apply_button.clicked.connect(self._on_apply_clicked)
        self.undo_button.clicked.connect(self.undo_requested)
        self.mount_point_edit.editingFinished.connect(self._on_mount_point_edited)
        self._set_enabled(False)
        self.exports_line.setText("No recommendation yet: it appears when a session has results.")

    def show_recommendation(
        self,
        rec: Recommendation,
        *,
        server_label: str,
        client_label: str,
        async_measured: bool | None = None,
        can_apply: bool = True,
    ) -> None:
        """`async_measured` only words the line shown when there is no async alternative: True when sync and
        async were measured (and async did not help), False when they were not, None when the caller cannot say.
        `can_apply` False: nfstune has no login on the server, which Apply writes to (the lines are copied)."""
        e = html.escape
        self._rec = rec
        self._labels = (server_label, client_label)
        self.exports_box.setTitle(f"{rec.exports_file} on {server_label}")
        self.fstab_box.setTitle(f"/etc/fstab on {client_label}")
        self.exports_state.setText(exports_state(rec))
        self.fstab_state.setText(fstab_state(rec))
        self.exports_line.setText(rec.exports_line)
        self.exports_reasons.setText(reasons_html(rec.exports_reasons))
        self.fstab_line.setText(rec.fstab_line)
        self.mount_point_row.setVisible(rec.fstab_before is None)
        if rec.fstab_before is None:
            self.mount_point_edit.setText(fstab_mount_point(rec.fstab_line))
        self.fstab_reasons.setText(reasons_html(rec.fstab_reasons))
        threads = rec.threads
        shown = [*rec.notes]
        if threads is not None:
            # the thread count lives in the server's nfs.conf: Apply writes it with the other two (its own diff)
            shown.append(threads.note if threads.line is None else f"{threads.file}: {threads.line} — {threads.note}")
        notes = "".join(f"<li>{e(note)}</li>" for note in shown)
        self.notes_label.setText(f"<b>Notes</b><ul style='margin: 0'>{notes}</ul>" if notes else "")
        self.notes_label.setVisible(bool(notes))
        alternative = rec.async_alternative
        self.show_async_check.setChecked(False)  # a new recommendation starts with the risky option out of sight
        self.show_async_check.setVisible(alternative is not None)
        self.no_async_label.setVisible(alternative is None)
        self.no_async_label.setText(NO_ASYNC[async_measured])
        self.async_box.hide()
        if alternative is not None:
            self.async_line.setText(alternative.line)
            self.async_gain.setText(f"<b>Measured gain:</b> {e(alternative.gain)}")
            self.async_warning.setText(f"<b>exports(5) says:</b> {e(alternative.warning)}")
            self.async_risk.setText(f"<b>What can go wrong:</b> {e(alternative.risk)}")
            self.async_conditions.setText(f"<b>Only if:</b> {e(alternative.conditions)}")
        self.set_apply_state("", None)
        self.status.clear()
        self._set_enabled(True)
        self.exports_box.setVisible(bool(rec.exports_line))  # "" without a login on the server: a note says why
        self.apply_button.setEnabled(can_apply)
        self.apply_button.setToolTip(
            APPLY_TIP
            if can_apply
            else "Apply writes the server's files too, and nfstune has no login there: copy the fstab line instead"
        )

    def set_apply_state(self, text: str, ok: bool | None) -> None:
        """What the apply flow reports: 'Applied and verified' (ok), 'Rolled back: ...' (not ok), or progress."""
        self.apply_state.setText(text)
        # the window's own text colour while it runs; green or red as it ends, a pair that reads on light and dark
        colour = "palette(window-text)" if ok is None else text_colour("good" if ok else "bad").name()
        self.apply_state.setStyleSheet(f"color: {colour}; font-weight: bold;")

    def _set_enabled(self, enabled: bool) -> None:
        for button in (self.copy_button, self.save_button, self.apply_button):
            button.setEnabled(enabled)

    # --- slots ----------------------------------------------------------------------------------------------

    @Slot(bool)
    def _on_show_async_toggled(self, checked: bool) -> None:
        self.async_box.setVisible(checked and self._rec is not None and self._rec.async_alternative is not None)

    @Slot()
    def _on_mount_point_edited(self) -> None:
        chosen = self.mount_point_edit.text().strip()
        if self._rec is None or chosen == fstab_mount_point(self._rec.fstab_line):
            return
        problem = mount_point_problem(chosen)
        if problem:
            self.status.setText(f"Mount point not changed: {problem}")
            return
        self.mount_point_changed.emit(chosen)

    @Slot()
    def _on_apply_clicked(self) -> None:
        self.apply_requested.emit()

    @Slot()
    def _on_copy_clicked(self) -> None:
        if self._rec is None:
            return
        QGuiApplication.clipboard().setText(copy_text(self._rec, *self._labels))
        self.status.setText("Copied both lines to the clipboard.")

    @Slot()
    def _on_save_clicked(self) -> None:
        if self._rec is None:
            return
        suggested = str(Path.home() / "nfstune-recommendation.txt")
        chosen, _ = self.ask_save_path(self, "Save the recommendation", suggested, "Text (*.txt)")
        if not chosen:
            return  # the admin cancelled the dialog
        path = Path(chosen)
        try:
            path.write_text(save_text(self._rec, *self._labels))
        except OSError as exc:  # a known environment error: say which file and why
            QMessageBox.critical(self, "Save failed", f"Could not write {path}:\n{exc.strerror or exc}")
            self.status.setText(f"Save failed: {path}")
            return
        self.status.setText(f"Wrote {path}")
