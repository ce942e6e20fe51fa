"""The results page of a finished (or stopped) session: its answer and pictures first (widgets/session_pictures.py,
as History shows a stored session), and behind their Details disclosure every sentence, tab and table of the
recipes (results_details.py); the exports above them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QMessageBox, QPushButton, QVBoxLayout, QWidget

from nfstune.advice.outcome import SessionOutcome
from nfstune.recipes.model import Recipe
from nfstune.store import StoredSession
from nfstune.ui.icons import icon
from nfstune.ui.pages.results_details import DASH, ResultsDetails
from nfstune.ui.tint import tint
from nfstune.ui.widgets.session_pictures import SessionPictures

if TYPE_CHECKING:
    from nfstune.ui.widgets.limit_bars import LimitBarsView
    from nfstune.ui.widgets.result_chart import ResultChart
    from nfstune.ui.widgets.verdict_plot import VerdictPlot

DETAILS_WORDS = "Details: every verdict in words, the ceilings, and each recipe's rounds and tables"


class ResultsPage(QWidget):
    # the session whose report the admin asked to export (History's export writes it: the same file as
    # `nfstune report N --html`)
    export_report_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session_id: int | None = None
        self.header_label = QLabel("No results yet: they appear here when a run ends.")
        self.header_label.setWordWrap(True)
        self.save_png_button = QPushButton(icon("save"), "Save charts as &PNG…")
        self.save_png_button.setEnabled(False)
        self.save_png_button.clicked.connect(self._on_save_png_clicked)
        self.ask_directory = QFileDialog.getExistingDirectory  # tests replace it
        self.export_report_button = QPushButton(icon("save"), "E&xport report…")
        self.export_report_button.setToolTip("The whole session as one HTML file to send to a colleague")
        self.export_report_button.setEnabled(False)
        self.export_report_button.clicked.connect(self._on_export_report_clicked)
        top = QHBoxLayout()
        top.addWidget(self.header_label, 1)
        top.addWidget(self.export_report_button)
        top.addWidget(self.save_png_button)
        self.details = ResultsDetails()
        self.session_pictures = SessionPictures(self.details, DETAILS_WORDS)
        # the parts, where the page's callers and tests have always found them
        self.answer_label = self.session_pictures.answer_label
        self.details_button = self.session_pictures.details_button
        self.splitter = self.session_pictures.splitter
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.session_pictures, 1)
        self.tabs = self.details.tabs
        self.verdict_labels = self.details.verdict_labels
        self.note_labels = self.details.note_labels
        self.scaling_labels = self.details.scaling_labels
        self.tables = self.details.tables
        self.diagnosis_label = self.details.diagnosis_label
        self.ceilings_label = self.details.ceilings_label

    @property
    def verdict_plot(self) -> VerdictPlot | None:
        return self.session_pictures.verdict_plot

    @property
    def limit_view(self) -> LimitBarsView | None:
        return self.session_pictures.limit_view

    def save_pngs(self, directory: Path) -> list[Path]:
        """One PNG per chart, named after its recipe and workload."""
        written = []
        for number, chart in enumerate(self.details.charts, 1):
            name = re.sub(r"[^A-Za-z0-9._-]+", "-", chart.objectName() or f"chart-{number}").strip("-")
            path = directory / f"{number:02d}-{name}.png"
            chart.save_png(path)
            written.append(path)
        return written

    @Slot()
    def _on_save_png_clicked(self) -> None:
        directory = self.ask_directory(self, "Save the charts as PNG files in…")
        if not directory:
            return
        try:
            written = self.save_pngs(Path(directory))
        except OSError as exc:
            QMessageBox.critical(self, "Could not save", f"Could not write in {directory}:\n{exc}")
            return
        self.header_label.setText(f"{self.header_label.text()}  ·  {len(written)} PNG files saved in {directory}")

    @Slot()
    def _on_export_report_clicked(self) -> None:
        if self._session_id is not None:
            self.export_report_requested.emit(self._session_id)

    @Slot(str)
    def report_written(self, path: str) -> None:
        self.header_label.setText(f"{self.header_label.text()}  ·  report written to {path}")

    def chart_widgets(self) -> list[ResultChart]:
        """Every chart on the page, in tab order (for the PNG export)."""
        return list(self.details.charts)

    def show_session(
        self, session: StoredSession, outcome: SessionOutcome, recipes: Mapping[str, Recipe] | None = None
    ) -> None:
        """The session as stored, rendered from its outcome (advice.outcome: the figures, verdicts and scaling,
        the answer and the diagnoses), which was worked out off the GUI thread: nothing is judged here."""
        recipes = recipes or {}
        self.session_pictures.show_outcome(outcome, recipes)
        self.save_png_button.setEnabled(bool(session.runs))
        self._session_id = session.id
        self.export_report_button.setEnabled(True)
        status = session.status or "running"
        header = f"Session {session.id}: {status}"
        if session.message:
            header += f" {DASH} {session.message}"
        self.header_label.setText(header)
        tint(self.header_label, "bad" if status in ("failed", "cancelled") else None)
        font = self.header_label.font()
        font.setBold(True)
        self.header_label.setFont(font)
        self.details.show_session(session, outcome, recipes, status)
