"""The recommendation page, a decision first (as GNOME Disks and KDiskMark put one): a headline in large type that
says what to do on which host and one line of why (advice/decision.py), then the /etc/exports and /etc/fstab lines
as two cards (recommendation_card.py), each option's reason in a few words and every sentence behind Details; then
the notes, one line each. Copy, Save and Apply at the bottom right, Apply the suggested action; async only ever
inside a warning box, hidden until the admin asks to see it (docs/nfs-knowledge.md 4)."""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from nfstune.advice.decision import NOTHING, decision, line_changes, short_note, short_reasons
from nfstune.advice.recommend import Recommendation
from nfstune.advice.recommendation_text import (
    copy_text,
    exports_state,
    fstab_mount_point,
    fstab_state,
    mount_point_problem,
    reasons_html,
    save_text,
)
from nfstune.ui.icons import icon
from nfstune.ui.pages.recommendation_card import FileCard, line_label
from nfstune.ui.theme import primary_button_style
from nfstune.ui.tint import tint
from nfstune.ui.widgets.disclosure import Disclosure
from nfstune.ui.widgets.labels import wrapped_label
from nfstune.ui.widgets.scrolled import scrolled

SaveDialog = Callable[[QWidget, str, str, str], tuple[str, str]]
NO_RECOMMENDATION = "No recommendation yet: it appears when a session has results."
# the async box keeps its own deliberate light style in either scheme: a warning that reads the same everywhere
ASYNC_LINE_STYLE = "background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 3px; padding: 6px; color: #202020;"
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
NO_LOGIN_APPLY = "Apply writes the server's files too, and nfstune has no login there: copy the fstab line instead"


class RecommendationPage(QWidget):
    apply_requested = Signal()  # the admin wants these lines applied for good (the diff/apply flow takes over)
    undo_requested = Signal()  # the admin wants the last Apply on these hosts undone (the same flow, backwards)
    check_requested = Signal()  # the admin wants to know whether the applied recommendation held (check_dialog.py)
    mount_point_changed = Signal(str)  # the admin chose where a new fstab line mounts the share

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # an attribute, not a call to QFileDialog, so that tests (and a caller that remembers folders) replace it
        self.ask_save_path: SaveDialog = QFileDialog.getSaveFileName
        self._rec: Recommendation | None = None
        self._labels = ("the server", "the client")
        self._changes = False  # what is shown changes a file (Apply is drawn as the page's suggested action)

        # the decision first, in large type, and one line of why under it (advice/decision.py)
        self.headline = wrapped_label(NO_RECOMMENDATION)
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.headline.setFont(font)
        self.why = wrapped_label()
        font = self.why.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.why.setFont(font)
        self.why.hide()

        # where a new fstab line mounts the share: the admin's choice (an existing entry keeps its own)
        self.mount_point_edit = QLineEdit()
        self.mount_point_edit.setToolTip("An absolute path on the client; Apply makes it if it does not exist")
        self.mount_point_row = QWidget()
        row = QHBoxLayout(self.mount_point_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("&Mount point on the client:", buddy=self.mount_point_edit))
        row.addWidget(self.mount_point_edit, 1)
        self.mount_point_row.hide()
        self.exports_box = FileCard()
        self.fstab_box = FileCard(self.mount_point_row)
        # the cards' parts, where the page's callers and tests have always found them
        self.exports_line, self.exports_state, self.exports_reasons = (
            self.exports_box.line,
            self.exports_box.state,
            self.exports_box.reasons,
        )
        self.fstab_line, self.fstab_state, self.fstab_reasons = (
            self.fstab_box.line,
            self.fstab_box.state,
            self.fstab_box.reasons,
        )
        for card in (self.exports_box, self.fstab_box):
            card.hide()  # until there is a recommendation: the headline says so

        self.notes_heading = QLabel("<b>Notes</b>")
        self.notes_rows = QVBoxLayout()
        self.notes_rows.setSpacing(2)
        self.notes_label = wrapped_label(rich=True)  # every note in full, behind Details
        self.notes_details = Disclosure("Details: every note in full")
        self.notes_details.add(self.notes_label)
        self.notes_box = QWidget()
        notes = QVBoxLayout(self.notes_box)
        notes.setContentsMargins(0, 0, 0, 0)
        notes.addWidget(self.notes_heading)
        notes.addLayout(self.notes_rows)
        notes.addWidget(self.notes_details)
        self.notes_box.hide()

        self.show_async_check = QCheckBox("&Show the async alternative and its risks")
        self.show_async_check.hide()
        self.no_async_label = wrapped_label()
        self.no_async_label.hide()
        self.async_box = QFrame()
        self.async_box.setObjectName("asyncWarning")
        self.async_box.setStyleSheet(ASYNC_BOX_STYLE)
        warning_icon = QLabel()
        warning_icon.setPixmap(icon("warning").pixmap(32, 32))
        warning_icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.async_title = QLabel("Not recommended by default: async")
        self.async_title.setStyleSheet("font-weight: bold; font-size: 12pt; color: #c92a2a;")
        self.async_line = line_label(framed=False)
        self.async_line.setStyleSheet(ASYNC_LINE_STYLE)
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
        self.save_button.setToolTip("Save both lines with every reason and note, as comments, in a text file")
        self.apply_button = QPushButton(icon("apply"), "&Apply…")
        self.apply_button.setToolTip(APPLY_TIP)
        self.undo_button = QPushButton(icon("undo"), "&Undo last Apply…")
        self.undo_button.setToolTip("Show how the files the last Apply changed would be put back, then do it")
        self.check_button = QPushButton("Chec&k it held…")
        self.check_button.setToolTip(
            "Verify the applied settings are in force, measure the workloads behind them again, and compare"
        )
        self.check_button.hide()  # once the recommendation is applied
        for button in (self.copy_button, self.save_button, self.apply_button, self.undo_button, self.check_button):
            # no button of the page is pressed by Enter in a field: Apply only ever by its own click or key
            button.setAutoDefault(False)
        self._scheme_look()
        self.apply_state = wrapped_label()
        font = self.apply_state.font()
        font.setBold(True)
        self.apply_state.setFont(font)
        self.status = wrapped_label()
        buttons = QHBoxLayout()
        buttons.addWidget(self.undo_button)
        buttons.addWidget(self.check_button)
        buttons.addWidget(self.apply_state, 1)
        for button in (self.copy_button, self.save_button, self.apply_button):  # Apply last, where the eye ends
            buttons.addWidget(button)

        content = QWidget()
        content_layout = QVBoxLayout(content)
        content_layout.setContentsMargins(0, 4, 0, 4)
        content_layout.setSpacing(12)
        for widget in (
            self.exports_box,
            self.fstab_box,
            self.notes_box,
            self.show_async_check,
            self.no_async_label,
            self.async_box,
        ):
            content_layout.addWidget(widget)
        content_layout.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.why)
        layout.addWidget(scrolled(content, wraps=True), 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        chain = [
            self.exports_line,
            self.exports_box.details.button,
            self.fstab_line,
            self.mount_point_edit,
            self.fstab_box.details.button,
            self.notes_details.button,
            self.show_async_check,
            self.async_line,
            self.undo_button,
            self.check_button,
            self.copy_button,
            self.save_button,
            self.apply_button,
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

        self.show_async_check.toggled.connect(self._on_show_async_toggled)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        self.save_button.clicked.connect(self._on_save_clicked)
        self.apply_button.clicked.connect(self._on_apply_clicked)
        self.undo_button.clicked.connect(self.undo_requested)
        self.check_button.clicked.connect(self.check_requested)
        self.mount_point_edit.editingFinished.connect(self._on_mount_point_edited)
        self._set_enabled(False)

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
        said = decision(rec, server_label=server_label, client_label=client_label)
        self.headline.setText(said.headline)
        self.why.setText(said.why)
        self.why.show()
        self.exports_box.show_file(
            f"{rec.exports_file} on {server_label}",
            rec.exports_line,
            rec.exports_before,
            line_changes(rec.exports_before, rec.exports_line),
            short_reasons(rec.exports_reasons, rec),
            state=exports_state(rec),
            reasons_html=reasons_html(rec.exports_reasons),
        )
        self.fstab_box.show_file(
            f"/etc/fstab on {client_label}",
            rec.fstab_line,
            rec.fstab_before,
            line_changes(rec.fstab_before, rec.fstab_line),
            short_reasons(rec.fstab_reasons, rec),
            state=fstab_state(rec),
            reasons_html=reasons_html(rec.fstab_reasons),
        )
        self.mount_point_row.setVisible(rec.fstab_before is None)
        if rec.fstab_before is None:
            self.mount_point_edit.setText(fstab_mount_point(rec.fstab_line))
        self._show_notes(rec)
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
        self.fstab_box.show()
        self.apply_button.setEnabled(can_apply)
        self.apply_button.setToolTip(APPLY_TIP if can_apply else NO_LOGIN_APPLY)
        if not can_apply:
            self.status.setText(NO_LOGIN_APPLY)  # said beside the greyed-out button, not only in its tooltip
        # Apply is the suggested action only when it would change something
        self._changes = said.headline != NOTHING
        self._scheme_look()

    def _show_notes(self, rec: Recommendation) -> None:
        """One line a note (advice.decision.short_note), every sentence in full behind Details."""
        threads = rec.threads
        shown = [(note, short_note(note)) for note in rec.notes]
        if threads is not None:
            # the thread count lives in the server's nfs.conf: Apply writes it with the other two (its own diff)
            if threads.line is None:
                shown.append((threads.note, short_note(threads.note)))
            else:
                head = f"{threads.file}: {threads.line}"
                shown.append((f"{head} — {threads.note}", f"{head} — {short_note(threads.note)}"))
        while self.notes_rows.count():
            item = self.notes_rows.takeAt(0)
            if widget := item.widget():
                widget.hide()
                widget.deleteLater()
        for _full, short in shown:
            self.notes_rows.addWidget(wrapped_label(f"\u2022 {short}"))
        items = "".join(f"<li>{html.escape(full)}</li>" for full, _short in shown)
        self.notes_label.setText(f"<ul style='margin: 0'>{items}</ul>" if items else "")
        self.notes_box.setVisible(bool(shown))

    def _scheme_look(self) -> None:
        """Apply as the page's one suggested action, in the scheme's highlight (never Qt's default button, which
        Enter in a dialog's field would press); the mount point field on the alternate base colour, so
        that it stands out from its card in a dark scheme too."""
        self.apply_button.setStyleSheet(primary_button_style(self.palette()) if self._changes else "")
        field = self.mount_point_edit.palette()
        field.setColor(QPalette.ColorRole.Base, self.palette().color(QPalette.ColorRole.AlternateBase))
        self.mount_point_edit.setPalette(field)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """The scheme changed (light, dark): the colours drawn from it again."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # not text colours (ui/tint.py has those): the highlight
            self._scheme_look()

    def set_apply_state(self, text: str, ok: bool | None) -> None:
        """What the apply flow reports: 'Applied and verified' (ok), 'Rolled back: ...' (not ok), or progress."""
        self.apply_state.setText(text)
        # the window's own text colour while it runs; green or red as it ends, a pair that reads on light and dark
        tint(self.apply_state, None if ok is None else "good" if ok else "bad")

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
