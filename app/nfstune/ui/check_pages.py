"""The check dialog's first two faces (check_dialog.py): the plan as a decision, with the exact commands behind a
Details disclosure, and the progress as the Run page shows a run's (the step, a bar, the time left), with the log
behind Details. The words are session/check_words.py's; these widgets only draw them."""

from __future__ import annotations

import html
import time

from PySide6.QtCore import Slot
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QProgressBar, QVBoxLayout, QWidget

from nfstune.recipes.plan import Plan
from nfstune.session.check_run import CheckPlan
from nfstune.session.check_words import commands_text, plan_words, step_words
from nfstune.session.engine import Event
from nfstune.ui.pages.run import format_eta
from nfstune.ui.tint import tint
from nfstune.ui.widgets.disclosure import Disclosure
from nfstune.ui.widgets.labels import wrapped_label

LOG_LINES = 5000
COMMANDS_WORDS = "Details: the exact commands"
LOG_WORDS = "Details: the log"


def _title(text: str = "") -> QLabel:
    label = wrapped_label(text)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 1.3)
    font.setBold(True)
    label.setFont(font)
    return label


class CheckPlanPage(QWidget):
    """What the check will do, in the order it does it; nothing is measured before Run the check."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = _title()
        self.steps = wrapped_label(rich=True)
        self.touched = wrapped_label()
        self.notes = wrapped_label()
        tint(self.notes, "muted")
        self.start_words = wrapped_label("Nothing is measured before you press Run the check.")
        self.commands = QPlainTextEdit(readOnly=True)
        self.commands.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.commands.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.commands.setAccessibleName("The exact commands of the check")
        self.details = Disclosure(
            COMMANDS_WORDS, shows=self.commands, names=("Show the exact commands", "Hide the exact commands")
        )
        layout = self._layout = QVBoxLayout(self)
        for part in (self.title, self.steps, self.touched, self.notes, self.start_words, self.details):
            layout.addWidget(part)
        layout.addWidget(self.commands, 1)
        layout.addStretch(1)  # closed: the words at the top, the room below
        self.details.toggled.connect(self._on_toggled)

    def show_plan(self, plan: CheckPlan, built: Plan | None) -> None:
        words = plan_words(plan, built)
        self.title.setText(words.title)
        self.steps.setText(
            "<ol style='margin-left: -20px'>"
            + "".join(f"<li style='margin-bottom: 4px'>{html.escape(step)}</li>" for step in words.steps)
            + "</ol>"
        )
        self.touched.setText(words.touched)
        self.notes.setText("\n".join(f"Note: {note}" for note in words.notes))
        self.notes.setVisible(bool(words.notes))
        commands = commands_text(built)
        self.commands.setPlainText(commands)
        self.details.setVisible(bool(commands))

    @Slot(bool)
    def _on_toggled(self, shown: bool) -> None:
        self._layout.setStretch(self._layout.count() - 1, 0 if shown else 1)


class CheckProgressPage(QWidget):
    """The step under way in bold, the bar and the time left, a warning when there is one; the log folded."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan: CheckPlan | None = None
        self.step = _title("Reading the last Apply…")
        self.bar = QProgressBar(minimum=0, maximum=1000)
        self.bar.setFormat("%p %")
        self.bar.setAccessibleName("The check's progress")
        self.eta = wrapped_label()
        self.warning = wrapped_label()
        tint(self.warning, "warning")
        self.warning.hide()
        self.log = QPlainTextEdit(readOnly=True)
        self.log.setMaximumBlockCount(LOG_LINES)
        self.log.setAccessibleName("The check's log")
        self.details = Disclosure(LOG_WORDS, shows=self.log, names=("Show the check's log", "Hide the check's log"))
        layout = self._layout = QVBoxLayout(self)
        for part in (self.step, self.bar, self.eta, self.warning, self.details):
            layout.addWidget(part)
        layout.addWidget(self.log, 1)
        layout.addStretch(1)
        self.details.toggled.connect(self._on_toggled)

    def reset(self, step: str, *, busy: bool) -> None:
        """`busy`: a wait of unknown length (the last Apply read, the hosts probed): the bar sweeps."""
        self.step.setText(step)
        self.bar.setRange(0, 0 if busy else 1000)
        self.bar.setValue(0)
        self.eta.setText("" if busy else format_eta(None))
        self.warning.hide()
        if not busy:
            self.append(step)

    def show_event(self, event: Event) -> None:
        if event.kind == "progress":
            if self.bar.maximum() == 0:
                self.bar.setRange(0, 1000)
            self.bar.setValue(int(float(event.data.get("fraction") or 0.0) * 1000))  # type: ignore[arg-type]
            step = step_words(event.message, self.plan) if self.plan is not None else event.message
            self.eta.setText(format_eta(event.data.get("eta_s"), event.data.get("eta_max_s")))  # type: ignore[arg-type]
            if step != self.step.text():  # the log says each step once
                self.step.setText(step)
                self.append(step)
        elif event.kind == "warning":
            self.warning.setText(event.message)
            self.warning.show()
            self.append(f"warning: {event.message}")
        elif event.kind in ("log", "repeat", "baseline"):
            self.append(event.message)

    def append(self, line: str) -> None:
        self.log.appendPlainText(f"{time.strftime('%H:%M:%S')}  {line}")

    def cancelling(self) -> None:
        self.step.setText("Cancelling: stopping the workload and undoing every change (see the log)")
        self.details.set_open(True)  # the undo, step by step

    @Slot(bool)
    def _on_toggled(self, shown: bool) -> None:
        self._layout.setStretch(self._layout.count() - 1, 0 if shown else 1)
