"""Check it held: whether the applied recommendation of a session holds on the hosts as they run now
(session/check_run.py does the work, on a worker thread). The dialog reads the last Apply and shows what the check
will do; once the admin starts it, its progress with a Cancel that stops it (the engine undoes what it changed);
then the answer: the word in large type, the picture (widgets/check_plot.py), the words behind Details, and when
the change measured slower, Undo last Apply (the existing undo flow)."""

from __future__ import annotations

import json
import logging
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from nfstune.results.check_text import check_lines
from nfstune.results.held import Held
from nfstune.statistics.verdict import format_change
from nfstune.ui.controller import Controller
from nfstune.ui.tint import tint
from nfstune.ui.widgets.disclosure import Disclosure
from nfstune.ui.widgets.labels import wrapped_label

log = logging.getLogger(__name__)

WORD_MEANING = {"held": "good", "did not hold": "bad", "settings not in force": "bad"}
HEADLINES = {
    "held": "Held: the gain the session measured is still there",
    "did not hold": "Did not hold: the gain the session measured is not there now",
    "not settled": "Not settled yet: the figures cannot tell held from not held",
    "nothing to check": "Nothing to check: the recommendation rests on no measured gain",
    "settings not in force": "The applied settings are not in force",
    "not measured": "Not measured",
}
NOT_CONNECTED = "Connect the server and the client of this session first (Guided tuning): the check runs on them."


class CheckView(QWidget):
    """The check's answer: headline, picture, the words behind Details, and the actions it offers."""

    undo_requested = Signal()
    measure_anyway = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from nfstune.ui.widgets.check_plot import CheckPlot  # pyqtgraph, loaded when a check is first shown

        self.headline = wrapped_label()
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.headline.setFont(font)
        self.summary = wrapped_label()
        self.plot = CheckPlot()
        self.words = QPlainTextEdit(readOnly=True)
        self.words.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.details = Disclosure("Details: each workload, the settings verified and the ceilings, in words")
        self.details.add(self.words)
        self.undo_button = QPushButton("&Undo last Apply…")
        self.undo_button.setToolTip("Show how the files the last Apply changed would be put back, then do it")
        self.anyway_button = QPushButton("&Measure anyway")
        self.anyway_button.setToolTip("Measure on the settings in force: the comparison is then of those")
        self.undo_button.clicked.connect(self.undo_requested)
        self.anyway_button.clicked.connect(self.measure_anyway)
        actions = QHBoxLayout()
        actions.addWidget(self.undo_button)
        actions.addWidget(self.anyway_button)
        actions.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.summary)
        layout.addWidget(self.plot)
        layout.addLayout(actions)
        layout.addWidget(self.details)
        layout.addStretch(1)

    def show_outcome(self, outcome: dict[str, Any], check_id: int | None) -> None:
        """`outcome`: as session/check_run.CheckResult.to_json keeps it."""
        word = str(outcome.get("word"))
        self.headline.setText(HEADLINES.get(word, word))
        tint(self.headline, WORD_MEANING.get(word))
        held = [Held(**{**h, "ci": tuple(h["ci"]) if h.get("ci") else None}) for h in outcome.get("workloads") or ()]
        moved = outcome.get("ceilings") or ()
        said = [f"{h.workload}: {h.word}{_against_then(h.ratio)}" for h in held]
        if moved:  # the likely cause of a check that did not hold; beside one that held, only a change
            said.append(f"{'Likely cause' if word in ('did not hold', 'not settled') else 'Changed since'}: {moved[0]}")
        if outcome.get("mismatches"):
            said += list(outcome["mismatches"])
        self.summary.setText("\n".join(said))
        self.plot.set_rows(held, int(outcome.get("session") or 0))
        self.plot.setVisible(any(h.ci is not None for h in held))
        self.words.setPlainText("\n".join(check_lines(outcome, check_id)))
        self.undo_button.setVisible(bool(outcome.get("slower")))
        self.anyway_button.setVisible(word == "settings not in force")


def _against_then(ratio: float | None) -> str:
    """', 37 % slower than then'; within 1 %, ', as fast as then'."""
    if ratio is None:
        return ""
    return ", as fast as then" if 0.99 <= ratio <= 1.01 else f", {format_change(ratio)} than then"


class CheckDialog(QDialog):
    """Three faces: the plan (Run the check), the progress (Cancel), the answer (CheckView)."""

    def __init__(self, session_id: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session_id = session_id
        self.setWindowTitle(f"Check that session {session_id}'s Apply held")
        self.resize(880, 600)
        self.plan_text = QPlainTextEdit(readOnly=True)
        self.plan_text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.plan_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.progress = wrapped_label("Reading the last Apply…")
        self.progress_log = QPlainTextEdit(readOnly=True)
        self.view = CheckView()
        self.pages = QStackedWidget()
        plan_page, run_page = QWidget(), QWidget()
        plan_layout, run_layout = QVBoxLayout(plan_page), QVBoxLayout(run_page)
        plan_layout.addWidget(QLabel("The check will do this; nothing is measured before you start it:"))
        plan_layout.addWidget(self.plan_text, 1)
        run_layout.addWidget(self.progress)
        run_layout.addWidget(self.progress_log, 1)
        for page in (run_page, plan_page, self.view):
            self.pages.addWidget(page)
        self.status = wrapped_label()
        self.start_button = QPushButton("&Run the check")
        self.cancel_button = QPushButton("Cancel")
        self.close_button = QPushButton("&Close")
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        for button in (self.start_button, self.cancel_button, self.close_button):
            buttons.addWidget(button, 0, Qt.AlignmentFlag.AlignRight)
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages, 1)
        layout.addLayout(buttons)
        self.close_button.clicked.connect(self.reject)
        self.show_progress("Reading the last Apply…", cancellable=False)

    def show_plan(self, text: str) -> None:
        self.plan_text.setPlainText(text)
        self.pages.setCurrentIndex(1)
        self.start_button.show()
        self.cancel_button.hide()
        self.close_button.show()

    def show_progress(self, text: str, *, cancellable: bool = True) -> None:
        self.progress.setText(text)
        self.pages.setCurrentIndex(0)
        self.start_button.hide()
        self.cancel_button.setVisible(cancellable)
        self.cancel_button.setEnabled(True)
        self.close_button.setVisible(not cancellable)

    def add_progress(self, line: str) -> None:
        self.progress_log.appendPlainText(line)
        self.progress.setText(line)

    def show_outcome(self, outcome: dict[str, Any], check_id: int | None) -> None:
        self.view.show_outcome(outcome, check_id)
        self.pages.setCurrentIndex(2)
        self.start_button.hide()
        self.cancel_button.hide()
        self.close_button.show()

    def set_apply_state(self, text: str, ok: bool | None) -> None:
        """What the undo flow reports (as the recommendation page shows it)."""
        self.status.setText(text)
        tint(self.status, None if ok is None else "good" if ok else "bad")


def run_check_flow(window: QWidget, controller: Controller, session_id: int) -> CheckDialog | None:
    """plan_check (job) -> the plan -> run_check (job, cancellable) -> the answer."""
    from nfstune.recipes.loader import recipes_by_id
    from nfstune.session.check_run import plan_check, run_check
    from nfstune.session.engine import Event
    from nfstune.store import Journal, Results, open_store

    dialog = CheckDialog(session_id, window)
    window.check_dialog = dialog  # type: ignore[attr-defined]  # tests reach it
    dialog.open()
    try:
        pair = controller.pair()
    except RuntimeError:
        dialog.show_outcome({"word": "not measured", "session": session_id, "notes": [NOT_CONNECTED]}, None)
        dialog.view.headline.setText(NOT_CONNECTED)
        return dialog
    probed = controller.probe
    state: dict[str, Any] = {}

    def failed(message: str) -> None:
        log.warning("the check of session %s failed: %s", session_id, message)
        dialog.show_outcome({"word": "not measured", "session": session_id, "notes": [message]}, None)
        dialog.view.headline.setText(f"The check stopped: {message}")
        tint(dialog.view.headline, "bad")

    def plan_work(_job: Any) -> Any:
        conn = open_store(controller.store_path)
        try:
            return plan_check(Results(conn), Journal(conn), pair, session_id, recipes_by_id())
        finally:
            conn.close()

    def planned(plan: Any) -> None:
        state["plan"] = plan
        dialog.show_plan(plan.text)

    def start(go_on: bool) -> None:
        plan = state["plan"]
        dialog.show_progress("Verifying the applied settings are in force…")

        def work(job: Any) -> Any:
            conn = open_store(controller.store_path)

            def emit(event: Event) -> None:
                if event.kind in ("progress", "log", "warning", "repeat", "baseline"):
                    job.progress.emit(event.message)

            try:
                facts = probed.facts if probed is not None else None
                if facts is None:
                    from nfstune.session.workflow import probe_pair

                    facts = probe_pair(pair)
                result = run_check(
                    plan,
                    pair,
                    facts,
                    results=Results(conn),
                    journal=Journal(conn),
                    emit=emit,
                    cancel=job.cancel,
                    go_on=lambda _found: go_on,
                )
                return json.loads(result.to_json(session_id)), result.check_id
            finally:
                conn.close()

        job = controller.start_job("check", work, lambda done: dialog.show_outcome(*done), failed)
        job.progress.connect(dialog.add_progress)
        dialog.cancel_button.clicked.connect(job.cancel.set)
        dialog.cancel_button.clicked.connect(lambda: dialog.cancel_button.setEnabled(False))

    def undo() -> None:
        from nfstune.ui.apply_dialog import run_undo_flow

        run_undo_flow(window, controller, dialog)

    dialog.start_button.clicked.connect(lambda: start(False))
    dialog.view.measure_anyway.connect(lambda: start(True))
    dialog.view.undo_requested.connect(undo)
    controller.start_job("check-plan", plan_work, planned, failed)
    return dialog
