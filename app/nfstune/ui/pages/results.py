"""The results page of a finished (or stopped) session: the answer in three lines in large type, then two pictures,
the verdict plot (every comparison's ratio and interval against the band where no difference matters) and what
limits each workload (its figure against each ceiling), and behind a Details disclosure every sentence, tab and
table of the recipes (results_details.py)."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from nfstune.advice.findings import Findings
from nfstune.advice.outcome import SessionOutcome
from nfstune.recipes.model import Recipe
from nfstune.results.limit_bars import file_count, limit_bars, stored_ceilings
from nfstune.results.verdict_rows import margins_of, verdict_rows
from nfstune.store import StoredSession
from nfstune.ui.pages.results_details import DASH, ResultsDetails, failed_colour
from nfstune.ui.widgets.scrolled import scrolled

if TYPE_CHECKING:
    from nfstune.ui.widgets.limit_bars import LimitBarsView
    from nfstune.ui.widgets.result_chart import ResultChart
    from nfstune.ui.widgets.verdict_plot import VerdictPlot

# a light box with its own dark text: it reads the same in a dark window
ANSWER_STYLE = (
    "border-left: 4px solid #1b7f2a; background: #f3f8f3; color: #202020; padding: 8px 12px; font-size: 12pt;"
)
HEADING_STYLE = "font-weight: bold; color: palette(window-text); margin-top: 6px;"
DETAILS_WORDS = "Details: every verdict in words, the ceilings, and each recipe's rounds and tables"
PICTURES_SHARE = 0.3  # of the splitter's height, once the details are open


class ResultsPage(QWidget):
    # the session whose report the admin asked to export (History's export writes it: the same file as
    # `nfstune report N --html`)
    export_report_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session_id: int | None = None
        self.header_label = QLabel("No results yet: they appear here when a run ends.")
        self.header_label.setWordWrap(True)
        self.save_png_button = QPushButton("Save charts as &PNG…")
        self.save_png_button.setEnabled(False)
        self.save_png_button.clicked.connect(self._on_save_png_clicked)
        self.ask_directory = QFileDialog.getExistingDirectory  # tests replace it
        self.export_report_button = QPushButton("E&xport report…")
        self.export_report_button.setToolTip("The whole session as one HTML file to send to a colleague")
        self.export_report_button.setEnabled(False)
        self.export_report_button.clicked.connect(self._on_export_report_clicked)
        top = QHBoxLayout()
        top.addWidget(self.header_label, 1)
        top.addWidget(self.export_report_button)
        top.addWidget(self.save_png_button)
        self.answer_label = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.answer_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answer_label.setStyleSheet(ANSWER_STYLE)
        self.answer_label.hide()
        # the pictures are made with the first result: pyqtgraph was 0.2-0.3 s of the desktop's start
        self.verdict_plot: VerdictPlot | None = None
        self.limit_view: LimitBarsView | None = None
        self.verdict_heading = self._heading("The verdicts: each configuration against the one it is compared with")
        self.limits_heading = self._heading(
            "What limits each workload: the baseline's figure against each ceiling it cannot pass (MB/s), or each "
            "wait it cannot avoid (ms each)"
        )
        self.pictures = QWidget()
        self.pictures_box = QVBoxLayout(self.pictures)
        self.pictures_box.setContentsMargins(0, 0, 0, 0)
        for heading in (self.verdict_heading, self.limits_heading):
            self.pictures_box.addWidget(heading)
        self.pictures_box.addStretch(1)
        self.details = ResultsDetails()
        self.details.hide()
        self.details_button = QToolButton(text=DETAILS_WORDS, checkable=True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.details_button.setArrowType(Qt.ArrowType.RightArrow)
        self.details_button.setAutoRaise(True)
        self.details_button.toggled.connect(self._on_details_toggled)
        self.details_button.hide()
        self.details_box = QWidget()
        box = QVBoxLayout(self.details_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.details_button)
        box.addWidget(self.details, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(scrolled(self.pictures))
        self.splitter.addWidget(self.details_box)
        self._fit_details()
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.answer_label)
        layout.addWidget(self.splitter, 1)
        # the details' parts, where the page's callers and tests have always found them
        self.tabs = self.details.tabs
        self.verdict_labels = self.details.verdict_labels
        self.note_labels = self.details.note_labels
        self.scaling_labels = self.details.scaling_labels
        self.tables = self.details.tables
        self.diagnosis_label = self.details.diagnosis_label
        self.ceilings_label = self.details.ceilings_label

    @staticmethod
    def _heading(text: str) -> QLabel:
        label = QLabel(text, wordWrap=True)
        label.setStyleSheet(HEADING_STYLE)
        label.hide()
        return label

    @Slot(bool)
    def _on_details_toggled(self, shown: bool) -> None:
        self.details.setVisible(shown)
        self.details_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self._fit_details()

    def _fit_details(self) -> None:
        """Closed, the details take only their button's line; open, most of the page, the pictures above them."""
        if self.details.isHidden():
            self.details_box.setMaximumHeight(self.details_button.sizeHint().height())
            return
        self.details_box.setMaximumHeight(16777215)  # QWIDGETSIZE_MAX
        total = max(1, self.splitter.height())
        self.splitter.setSizes([int(total * PICTURES_SHARE), total - int(total * PICTURES_SHARE)])

    def _show_findings(self, found: Findings) -> None:
        e = html.escape
        self.answer_label.show()
        head, *rest = found.answer.lines
        self.answer_label.setText(f"<b>{e(head)}</b><br>" + "<br>".join(e(line) for line in rest))

    def _show_pictures(self, outcome: SessionOutcome, recipes: Mapping[str, Recipe]) -> None:
        if self.verdict_plot is None or self.limit_view is None:
            from nfstune.ui.widgets.limit_bars import LimitBarsView
            from nfstune.ui.widgets.verdict_plot import VerdictPlot

            self.verdict_plot, self.limit_view = VerdictPlot(), LimitBarsView()
            self.pictures_box.insertWidget(self.pictures_box.indexOf(self.verdict_heading) + 1, self.verdict_plot)
            self.pictures_box.insertWidget(self.pictures_box.indexOf(self.limits_heading) + 1, self.limit_view)
        session = outcome.session
        rows = verdict_rows(outcome.groups, margins_of(session, recipes))
        bars = limit_bars(outcome.findings.diagnoses, stored_ceilings(session), file_count(session))
        self.verdict_plot.set_rows(rows)
        self.limit_view.set_bars(bars)
        for heading, widget, shown in (
            (self.verdict_heading, self.verdict_plot, rows),
            (self.limits_heading, self.limit_view, bars),
        ):
            heading.setVisible(bool(shown))
            widget.setVisible(bool(shown))

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
        self._show_findings(outcome.findings)
        self._show_pictures(outcome, recipes)
        self.details_button.show()
        self.save_png_button.setEnabled(bool(session.runs))
        self._session_id = session.id
        self.export_report_button.setEnabled(True)
        status = session.status or "running"
        header = f"Session {session.id}: {status}"
        if session.message:
            header += f" {DASH} {session.message}"
        self.header_label.setText(header)
        colour = failed_colour() if status in ("failed", "cancelled") else "palette(window-text)"
        self.header_label.setStyleSheet(f"font-weight: bold; color: {colour};")
        self.details.show_session(session, outcome, recipes, status)
