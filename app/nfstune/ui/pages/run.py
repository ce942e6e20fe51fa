"""Run, a dashboard: at the top what runs now, the time left, the progress, Cancel and Save graph; on the left the
live graphs of both hosts on one time axis with the network and disk ceilings; on the right the recipe's visit grid
above its verdicts as judged after the last round (run_events.py); the log at the bottom, folded until asked for or
until a cancel or a failure (then the undo shows in it step by step).

The engine's thread never touches these widgets: samples go into the plot's ring buffers, other events into the
controller's bounded buffer, and a QTimer here drains it.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from nfstune.session.admin import HandPrompt
from nfstune.session.engine import Event
from nfstune.session.script import RunOutcome
from nfstune.ui.controller import Controller
from nfstune.ui.icons import icon
from nfstune.ui.pages.run_events import RecipePanel
from nfstune.ui.tint import tint
from nfstune.ui.widgets.disclosure import Disclosure
from nfstune.ui.widgets.hand_step import HandStep
from nfstune.ui.widgets.tab_order import insert_in_tab_order

if TYPE_CHECKING:
    from nfstune.ui.widgets.live_plot import LivePlot

DRAIN_MS = 250
MARKER_CHARS = 24  # a configuration's name on the chart, at most
LOG_LINES = 5000
LOG_MIN_LINES = 8  # the run log shows at least this many lines
PANEL_MIN_WIDTH = 240  # px: the grid's names and a round or two (it scrolls sideways) on the smallest screens
PLOT_MIN_WIDTH = 280
SAME_SECOND_S = 1.5  # two hosts' samples this close count as the same second in the line of all clients
# (host role, engine series) -> live plot series
SERIES = {
    ("client", "nfs_read_bps"): "client_read",
    ("client", "nfs_write_bps"): "client_write",
    ("client", "nfs_ops_per_s"): "client_ops",
    ("server", "disk_read_bps"): "disk_read",
    ("server", "disk_write_bps"): "disk_write",
    ("server", "cpu_percent"): "server_cpu",
}


def format_eta(seconds: float | None, at_most: float | None = None) -> str:
    if seconds is None:
        return "estimating time left…"
    text = f"about {seconds:.0f} s left" if seconds < 90 else f"about {seconds / 60:.0f} min left"
    # rounds go on until every comparison is settled or the recipe's budget is spent
    if at_most is not None and at_most >= 90 and round(at_most / 60) > round(seconds / 60):
        text += f", at most {at_most / 60:.0f} min"
    return text


def marker_words(message: str) -> str:
    """A step's name on the live chart: a visit's configuration ("quick-check round 2: async" -> "async"), else
    what the step measures ("ceilings: the network (iperf3 and ping) ..." -> "ceilings"), cut to MARKER_CHARS."""
    head, _, tail = message.partition(": ")
    words = head if head in ("ceilings",) or not tail else tail
    return words if len(words) <= MARKER_CHARS else words[: MARKER_CHARS - 1] + "…"


class RunPage(QWidget):
    finished = Signal(object)  # RunOutcome

    def __init__(self, controller: Controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._plot: LivePlot | None = None  # made when first needed (`plot`), in its place in the splitter:
        self._plot_place = QWidget()
        QVBoxLayout(self._plot_place).setContentsMargins(0, 0, 0, 0)
        self.current = QLabel("Not started", wordWrap=True)
        self.current.setStyleSheet("font-weight: bold;")
        self.progress = QProgressBar(minimum=0, maximum=1000)
        self.progress.setFormat("%p %")
        self.eta = QLabel("")
        self.log = QPlainTextEdit(readOnly=True)
        self.log.setMaximumBlockCount(LOG_LINES)
        self.log.setAccessibleName("Run log")
        # room for a cancel's undo, step by step, however the splitter was left
        self.log.setMinimumHeight(self.log.fontMetrics().lineSpacing() * LOG_MIN_LINES + 12)
        self._follow = True  # the log keeps its last line in view until the admin scrolls up to read
        bar = self.log.verticalScrollBar()
        bar.valueChanged.connect(lambda value: setattr(self, "_follow", value >= bar.maximum() - 2))
        bar.rangeChanged.connect(lambda _low, high: bar.setValue(high) if self._follow else None)
        self.cancel_button = QPushButton(icon("cancel"), "&Cancel run")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.warnings = QLabel(wordWrap=True)
        tint(self.warnings, "warning")
        self.save_png_button = QPushButton(icon("save"), "Save graph as &PNG…")
        self.save_png_button.clicked.connect(self._on_save_png_clicked)
        self.ask_save_path = QFileDialog.getSaveFileName  # tests replace it
        top = QHBoxLayout()
        top.addWidget(self.current, 1)
        top.addWidget(self.eta)
        top.addWidget(self.save_png_button)
        top.addWidget(self.cancel_button)
        self.recipe_panel = RecipePanel()
        board = self._board = QSplitter(Qt.Orientation.Horizontal)
        board.addWidget(self._plot_place)
        board.addWidget(self.recipe_panel)
        board.setStretchFactor(0, 3)  # the live charts the larger part
        board.setStretchFactor(1, 2)
        board.setChildrenCollapsible(False)
        self.recipe_panel.setMinimumWidth(PANEL_MIN_WIDTH)
        self._plot_place.setMinimumWidth(PLOT_MIN_WIDTH)
        # folded: the dashboard has the room until the admin asks for the log (or a cancel or a failure opens it)
        self.log_toggle = Disclosure("Log", shows=self.log, names=("Show the run log", "Hide the run log"))
        self.log_toggle.toggled.connect(self._on_log_toggled)
        self.log_button = self.log_toggle.button
        split = self._split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(board)
        split.addWidget(self.log)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h2>Run</h2>"))
        layout.addLayout(top)
        layout.addWidget(self.progress)
        layout.addWidget(self.warnings)
        self.warnings.hide()  # until there is one
        # a guided hand change's step, above the charts: the admin's turn, until Continue or Stop
        self.hand_step = HandStep()
        layout.addWidget(self.hand_step)
        controller.prompter.hand_step.connect(self._on_hand_step)
        self.hand_step.answered.connect(self._on_hand_answered)
        layout.addWidget(split, 1)
        layout.addWidget(self.log_toggle)
        self.timer = QTimer(self)
        self.timer.setInterval(DRAIN_MS)
        self.timer.timeout.connect(self._on_drain)
        controller.run_done.connect(self._on_run_done)
        controller.job_failed.connect(self._on_job_failed)
        self.running = False
        self._board_placed = False
        self._configuration = ""
        self._clients_lock = threading.Lock()
        self._client_rates: dict[str, tuple[float, float]] = {}  # role -> its latest (time, NFS bytes/s)

    @property
    def plot(self) -> LivePlot:
        """The live plot, made the first time it is needed (the page shown, a run started) rather than with the
        window: importing pyqtgraph, which draws it, and making the plot took 0.3 s of the desktop's start (issue
        31). On the GUI thread: the samplers' threads only push to it once start() has made it."""
        if self._plot is None:
            from nfstune.ui.widgets.live_plot import LivePlot

            self._plot = LivePlot()
            layout = self._plot_place.layout()
            assert layout is not None
            layout.addWidget(self._plot)
            if self._plot_place.isVisible():
                self._plot.show()  # at once (a widget added to a shown one waits for the event loop)
            # where it was in the keyboard's order when the page made it first: after the buttons, before the log
            insert_in_tab_order(self.cancel_button, self._plot, self.log_button)
        return self._plot

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        _ = self.plot  # its empty axes show what a run will draw
        if not self._board_placed:  # the charts three fifths, the recipe's grid and verdicts the rest
            self._board_placed = True
            width = sum(self._board.sizes())
            self._board.setSizes([width * 3 // 5, width - width * 3 // 5])

    def start(self) -> None:
        self.plot.clear()
        self.recipe_panel.clear()
        self.log.clear()
        self.log_toggle.set_open(False)
        self.warnings.clear()
        self.warnings.hide()
        self.progress.setValue(0)
        self._configuration = ""
        with self._clients_lock:
            self._client_rates.clear()
        self.current.setText("Starting: measuring the ceilings first (network and the server's disk)")
        self.controller.sample_sink = self._on_sample
        self.running = True
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("&Cancel run")
        self.plot.start()
        self.timer.start()

    # on a sampler's thread: only the plot's thread-safe buffers
    def _on_sample(self, role: str, t: float, series: dict[str, float]) -> None:
        """On a sampler's thread."""
        for name, value in series.items():
            target = SERIES.get((role, name))
            if target is not None:
                self.plot.push(target, t, value)
        if role.startswith("client"):
            self._client_line(role, t, series.get("nfs_read_bps", 0.0) + series.get("nfs_write_bps", 0.0))

    def _client_line(self, role: str, t: float, total: float) -> None:
        """Once a second client is sampled: a line per client and one for all of them (the sum of each client's
        sample of the same second: the samplers of the hosts tick apart)."""
        with self._clients_lock:
            self._client_rates[role] = (t, total)
            if set(self._client_rates) == {"client"} or f"{role}_total" not in self.plot.buffers:
                return
            together = sum(v for at, v in self._client_rates.values() if abs(at - t) <= SAME_SECOND_S)
        self.plot.push(f"{role}_total", t, total)
        self.plot.push("clients_all", t, together)

    @Slot()
    def _on_save_png_clicked(self) -> None:
        path, _ = self.ask_save_path(self, "Save the graph as PNG", "nfstune-run.png", "PNG images (*.png)")
        if not path:
            return
        try:
            self.plot.save_png(path)
        except OSError as exc:
            QMessageBox.critical(self, "Could not save", f"Could not write {path}:\n{exc}")

    @Slot(object)
    def _on_hand_step(self, prompt: HandPrompt) -> None:
        self.hand_step.ask(prompt)
        if prompt.kind == "switch":
            self.current.setText(f"Your turn: block {prompt.block + 1} of {prompt.blocks} waits for your change")
        else:
            self.current.setText("Your turn: how should the NAS be left?")
        self._append(f"asked: {prompt.text} {prompt.where}".replace("\n", " ").rstrip())

    @Slot(str)
    def _on_hand_answered(self, answer: str) -> None:
        self._append(f"answered: {answer}")
        self.controller.prompter.answer_hand_step(answer)

    @Slot()
    def _on_cancel_clicked(self) -> None:
        self.hand_step.hide()
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancelling…")
        self.current.setText("Cancelling: stopping the workload and undoing every change (see the log)")
        self.log_toggle.set_open(True)  # the undo, step by step
        self._append("Cancel: stopping the workload, then undoing every change, step by step:")
        self.controller.cancel_run()

    @Slot()
    def _on_drain(self) -> None:
        for event in self.controller.events.drain():
            self._show(event)

    def _show(self, event: Event) -> None:
        if self.recipe_panel.show_event(event):
            if event.kind in ("recipe", "repeat", "verdicts"):
                self._append(event.message)
            if event.kind == "repeat":
                self.current.setText(event.message)
        elif event.kind == "progress":
            fraction = float(event.data.get("fraction") or 0.0)
            self.progress.setValue(int(fraction * 1000))
            if event.data.get("waiting"):  # the admin's turn (a change by hand): no time left, nothing measured
                self.eta.setText(event.message)
                return
            self.eta.setText(format_eta(event.data.get("eta_s"), event.data.get("eta_max_s")))
            if event.message != self._configuration:  # a new configuration: a marker where it starts
                self._configuration = event.message
                self.current.setText(event.message)
                self.plot.set_marker(time.time(), marker_words(event.message))
        elif event.kind == "wait":  # a host still writing back before a run; "" when the wait is over
            waiting = f"{self._configuration} · {event.message}" if self._configuration else event.message
            self.current.setText(waiting if event.message else self._configuration)
        elif event.kind == "baseline":
            mb_s = float(event.data["mb_per_s"])
            if event.data["kind"] == "network":
                self.plot.set_ceiling("client", event.message.split(":")[0], mb_s)
            else:
                self.plot.set_ceiling("disk", event.message.split(":")[0], mb_s)
            self._append(event.message)
        elif event.kind == "warning":
            self.warnings.setText(event.message)
            self.warnings.show()
            self._append("warning: " + event.message)
        elif event.kind in ("log", "config"):
            self._append(event.message)

    @Slot(bool)
    def _on_log_toggled(self, shown: bool) -> None:
        if shown:  # the log takes what it needs, the dashboard keeps the rest
            low = self.log.minimumHeight()
            self._split.setSizes([max(0, sum(self._split.sizes()) - low), low])

    def _append(self, line: str) -> None:
        self.log.appendPlainText(f"{time.strftime('%H:%M:%S')}  {line}")

    def _stop(self) -> None:
        self._on_drain()
        self.timer.stop()
        self.plot.refresh()
        self.plot.stop()
        self.controller.sample_sink = None
        self.recipe_panel.stopped()
        self.hand_step.hide()
        self.running = False
        self.cancel_button.setEnabled(False)

    @Slot(object)
    def _on_run_done(self, outcome: RunOutcome) -> None:
        self._stop()
        words = {
            "completed": "Completed",
            "cancelled": "Cancelled: every change was undone",
            "failed": "Failed (every change was undone)",
        }
        text = words.get(outcome.status, outcome.status)
        if outcome.status == "failed" and outcome.message:
            text += f": {outcome.message}"
        self.current.setText(text)
        if outcome.status == "completed":
            self.progress.setValue(1000)
        else:  # what was undone, step by step
            self.log_toggle.set_open(True)
        self.eta.clear()
        self.cancel_button.setText("&Cancel run")
        self._append(f"session {outcome.session_id}: {text}")
        self.finished.emit(outcome)

    @Slot(str, str)
    def _on_job_failed(self, what: str, message: str) -> None:
        if what == "run":
            self._stop()
            self.log_toggle.set_open(True)
            self.current.setText(f"Failed: {message}")
            self._append(f"failed: {message}")
