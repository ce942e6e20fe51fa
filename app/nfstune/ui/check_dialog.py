"""Check it held: whether the applied recommendation of a session holds on the hosts as they run now
(session/check_run.py does the work, on a worker thread). The dialog reads the last Apply and shows what the check
will do, the exact commands behind Details; once the admin starts it, its step, progress and time left with a Cancel
that stops it (the engine undoes what it changed; check_pages.py draws both);
then the answer: the word in large type, the picture (widgets/check_plot.py), the words behind Details, and when
the change measured slower, Undo last Apply (the existing undo flow)."""

from __future__ import annotations

import json
import logging
from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from nfstune.recipes.plan import Plan
from nfstune.results.check_text import MEANING, check_lines, held_rows
from nfstune.session.check_run import CheckPlan
from nfstune.session.check_words import VERIFYING
from nfstune.statistics.verdict import format_change
from nfstune.ui.check_pages import CheckPlanPage, CheckProgressPage
from nfstune.ui.controller import Controller
from nfstune.ui.tint import tint
from nfstune.ui.widgets.disclosure import Disclosure
from nfstune.ui.widgets.labels import wrapped_label

log = logging.getLogger(__name__)

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
        tint(self.headline, MEANING.get(word))
        held = held_rows(outcome)
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

    event_arrived = Signal(object)  # an engine Event, emitted on the check's thread, drawn on the GUI thread

    def __init__(self, session_id: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session_id = session_id
        self.setWindowTitle(f"Check that session {session_id}'s Apply held")
        self.resize(880, 600)
        self.plan_page = CheckPlanPage()
        self.progress_page = CheckProgressPage()
        self.view = CheckView()
        self.pages = QStackedWidget()
        for page in (self.progress_page, self.plan_page, self.view):
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
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.event_arrived.connect(self.progress_page.show_event)
        self.show_progress("Reading the last Apply and probing the hosts…", cancellable=False)

    def show_plan(self, plan: CheckPlan, built: Plan | None) -> None:
        self.plan_page.show_plan(plan, built)
        self.progress_page.plan = plan
        self.pages.setCurrentWidget(self.plan_page)
        self.start_button.show()
        self.start_button.setDefault(True)
        self.cancel_button.hide()
        self.close_button.show()

    def show_progress(self, step: str, *, cancellable: bool = True) -> None:
        """`cancellable`: the check itself (a bar from 0); else a wait before it (the bar sweeps, Close)."""
        self.progress_page.reset(step, busy=not cancellable)
        self.pages.setCurrentWidget(self.progress_page)
        self.start_button.hide()
        self.cancel_button.setVisible(cancellable)
        self.cancel_button.setEnabled(True)
        self.close_button.setVisible(not cancellable)

    @Slot()
    def _on_cancel_clicked(self) -> None:
        self.cancel_button.setEnabled(False)
        self.progress_page.cancelling()

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
    from nfstune.session.check_run import engine_plan, plan_check, run_check
    from nfstune.session.engine import Event
    from nfstune.session.workflow import probe_pair
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
        """The check's plan, the hosts' facts and the engine's plan of the measuring: what the plan page shows is
        what runs."""
        conn = open_store(controller.store_path)
        try:
            plan = plan_check(Results(conn), Journal(conn), pair, session_id, recipes_by_id())
        finally:
            conn.close()
        facts = probed.facts if probed is not None else None
        if facts is None:
            facts = probe_pair(pair)
        return plan, facts, engine_plan(plan, pair, facts) if plan.workloads else None

    def planned(done: Any) -> None:
        state["plan"], state["facts"], state["built"] = done
        dialog.show_plan(state["plan"], state["built"])

    def start(go_on: bool) -> None:
        plan, facts, built = state["plan"], state["facts"], state["built"]
        dialog.show_progress(VERIFYING)

        def work(job: Any) -> Any:
            conn = open_store(controller.store_path)

            def emit(event: Event) -> None:
                if event.kind in ("progress", "log", "warning", "repeat", "baseline"):
                    dialog.event_arrived.emit(event)

            try:
                result = run_check(
                    plan,
                    pair,
                    facts,
                    results=Results(conn),
                    journal=Journal(conn),
                    emit=emit,
                    cancel=job.cancel,
                    go_on=lambda _found: go_on,
                    built=built,
                )
                return json.loads(result.to_json(session_id)), result.check_id
            finally:
                conn.close()

        job = controller.start_job("check", work, lambda done: dialog.show_outcome(*done), failed)
        dialog.cancel_button.clicked.connect(job.cancel.set)

    def undo() -> None:
        from nfstune.ui.apply_dialog import run_undo_flow

        run_undo_flow(window, controller, dialog)

    dialog.start_button.clicked.connect(lambda: start(False))
    dialog.view.measure_anyway.connect(lambda: start(True))
    dialog.view.undo_requested.connect(undo)
    controller.start_job("check-plan", plan_work, planned, failed)
    return dialog
