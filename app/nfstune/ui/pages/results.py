"""The results page: a tab per recipe of a finished (or stopped) session, with what it showed in plain words, and
per workload a chart (median bars, slowest-to-fastest whiskers) beside the table of figures and options."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from nfstune.bench.stats import format_value
from nfstune.nfs.mount_options import MountOptions
from nfstune.recipe_info import size_text
from nfstune.recipes.model import WORKLOADS, Recipe
from nfstune.summary import ConfigResult, WorkloadResults, negotiated_view, summarize_session
from nfstune.ui.pages.recipes import RowsTable
from nfstune.ui.widgets.result_chart import ResultChart

DASH = "\u2013"
TABLE_HEADER = ("Configuration", "Median", f"Min{DASH}max", "n", "CV", "Against the baseline",
                "Requested vs negotiated")  # fmt: skip
EXPORT_KNOBS = {"sync", "async", "wdelay", "no_wdelay"}  # what the shipped recipes change
FAILED_COLOUR = "#b3261e"
CHART_WIDTH = 420
CHART_HEIGHT = 260
VERDICT_STYLE = "background: #f4f7fb; border: 1px solid #c5d3e3; border-radius: 4px; padding: 8px; color: #202020;"
NO_DIFFERENCE_EXPECTED = "no measurable difference expected"


def _expected_no_difference(*texts: str | None) -> str | None:
    """The reason an expectation gives for no difference ("current kernels apply write gathering to NFSv2
    only..."), from the first text that expects none; None when none does."""
    for text in texts:
        if text and text.lower().startswith(NO_DIFFERENCE_EXPECTED):
            reason = text.partition(":")[2].strip()
            return reason or None
    return None


def _capped_text(config: ConfigResult) -> str | None:
    """'rsize=1M: the server capped rsize and wsize at 524288 (512 KiB) where 1048576 was requested': what ran was
    not what was asked for."""
    asked, got = MountOptions.parse(config.requested), MountOptions.parse(config.negotiated)
    capped = {
        key: (wanted, granted)
        for key, wanted, granted in (("rsize", asked.rsize, got.rsize), ("wsize", asked.wsize, got.wsize))
        if wanted is not None and granted is not None and granted < wanted
    }
    if not capped:
        return None
    if len(set(capped.values())) == 1:  # the usual case: both cut to max_block_size
        ((wanted, granted),) = set(capped.values())
        return (f"{config.label}: the server capped {' and '.join(capped)} at {granted} ({size_text(granted)}) "
                f"where {wanted} was requested")  # fmt: skip
    parts = [f"{key} at {cut} ({size_text(cut)}, {wanted} requested)" for key, (wanted, cut) in capped.items()]
    return f"{config.label}: the server capped " + " and ".join(parts)


def recipe_verdict_lines(groups: Sequence[WorkloadResults], recipe: Recipe | None) -> list[str]:
    """What a recipe's results mean, a sentence per finding: the significant differences, the configurations that
    made none (with the reason none was expected, where the recipe gives one), what failed, what the server capped.
    """
    significant: list[str] = []
    unclear: dict[str, list[str]] = {}  # label -> the workloads where it made no measurable difference
    other: list[str] = []
    capped: dict[str, str] = {}
    for group in groups:
        for config in group.configs:
            if config.status not in ("completed", None):
                done = f"after {config.summary.n} repeats" if config.summary else "with no completed repeat"
                other.append(f"{config.label}, {group.workload}: {config.status} {done}")
            text = _capped_text(config)
            if text:
                capped.setdefault(config.label, text)
            if config.verdict is None:
                continue
            if config.significant:
                significant.append(f"{group.workload}: {config.verdict}")
            elif config.verdict.startswith("no measurable difference"):
                unclear.setdefault(config.label, []).append(group.workload)
            else:
                other.append(f"{config.label}, {group.workload}: {config.verdict}")
    lines = list(significant)
    for label, workloads in unclear.items():
        line = f"{label} made no measurable difference here ({', '.join(workloads)})"
        if recipe is not None:
            own = next((c.expectation for c in recipe.configs if c.label == label), None)
            reason = _expected_no_difference(own, recipe.expectation)
            if reason:
                line += f" {DASH} expected: {reason}"
        lines.append(line)
    return lines + list(capped.values()) + other


def _rounds(config: ConfigResult) -> dict[int, float]:
    """Round -> figure. Read defensively until summary.ConfigResult carries `rounds` (issue 10): the values in
    the order they were measured, numbered from 1."""
    rounds = getattr(config, "rounds", None)
    return dict(rounds) if rounds else dict(enumerate(config.values, 1))


def _cell(text: str, *, right: bool = False, colour: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if colour:
        item.setForeground(QColor(colour))
    return item


def _row_cells(group: WorkloadResults, config: ConfigResult) -> list[QTableWidgetItem]:
    failed = config.status not in ("completed", None)
    colour = FAILED_COLOUR if failed else None
    label = f"{config.label} ({config.status})" if failed else config.label
    options = negotiated_view(config.requested, config.negotiated).replace(" \u00b7 ", "\n")
    if config.export_options:
        # the options a recipe changes; exportfs -s lists a dozen defaults besides (the report keeps them all)
        shown = [o for o in config.export_options.split(",") if o in EXPORT_KNOBS]
        options += f"\nexport {','.join(shown) or config.export_options}"
    options = options.replace(",", ", ")  # so that a narrow column can wrap a long option list
    if config.label == group.baseline_label:
        verdict = "baseline"
    else:
        verdict = config.verdict or (f"{config.status}: no completed repeats" if failed else DASH)
    s = config.summary
    if s is None:
        figures = ["no completed repeats", DASH, "0", DASH]
    else:
        figures = [f"{format_value(s.median)} {group.unit}", f"{format_value(s.min)}{DASH}{format_value(s.max)}",
                   str(s.n), f"{s.cv_percent:.1f} %"]  # fmt: skip
    cells = [_cell(label, colour=colour)]
    cells += [_cell(f, right=True, colour=colour) for f in figures]
    verdict_cell = _cell(verdict, colour=colour)
    if config.significant:
        font = verdict_cell.font()
        font.setBold(True)
        verdict_cell.setFont(font)
    return [*cells, verdict_cell, _cell(options)]


class ResultsPage(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header_label = QLabel("No results yet: they appear here when a run ends.")
        self.header_label.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.verdict_labels: dict[str, QLabel] = {}  # recipe id -> its plain-language verdict
        self.tables: dict[tuple[str, str], RowsTable] = {}  # (recipe, workload) -> its figures
        self._charts: list[ResultChart] = []
        self.save_png_button = QPushButton("Save charts as &PNG…")
        self.save_png_button.setEnabled(False)
        self.save_png_button.clicked.connect(self._on_save_png_clicked)
        self.ask_directory = QFileDialog.getExistingDirectory  # tests replace it
        top = QHBoxLayout()
        top.addWidget(self.header_label, 1)
        top.addWidget(self.save_png_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)

    def save_pngs(self, directory: Path) -> list[Path]:
        """One PNG per chart, named after its recipe and workload."""
        written = []
        for number, chart in enumerate(self._charts, 1):
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

    def chart_widgets(self) -> list[ResultChart]:
        """Every chart on the page, in tab order (for the PNG export)."""
        return list(self._charts)

    def show_session(self, session: Mapping[str, Any], recipes: Mapping[str, Recipe] | None = None) -> None:
        recipes = recipes or {}
        self.tabs.clear()
        self.verdict_labels.clear()
        self.tables.clear()
        self._charts = []
        self.save_png_button.setEnabled(bool(session.get("runs")))
        status = session.get("status") or "running"
        header = f"Session {session.get('id', '')}: {status}"
        if session.get("message"):
            header += f" {DASH} {session['message']}"
        self.header_label.setText(header)
        colour = FAILED_COLOUR if status in ("failed", "cancelled") else "#202020"
        self.header_label.setStyleSheet(f"font-weight: bold; color: {colour};")
        groups = summarize_session(session, {rid: r.baseline for rid, r in recipes.items()})
        by_recipe: dict[str, list[WorkloadResults]] = {}
        for group in groups:
            by_recipe.setdefault(group.recipe, []).append(group)
        for recipe_id in session.get("recipes") or []:
            by_recipe.setdefault(recipe_id, [])  # chosen but never reached: its tab says so
        for recipe_id, recipe_groups in by_recipe.items():
            recipe = recipes.get(recipe_id)
            title = recipe.title if recipe else recipe_id
            self.tabs.addTab(self._recipe_tab(recipe_id, recipe, recipe_groups, status), title)

    def _recipe_tab(self, recipe_id: str, recipe: Recipe | None, groups: list[WorkloadResults], status: str) -> QWidget:
        content = QWidget()
        layout = QVBoxLayout(content)
        lines = recipe_verdict_lines(groups, recipe)
        if not groups:
            lines = [f"Not run: the session ended ({status}) before this recipe started."]
        elif not lines:
            lines = ["Only the baseline has figures: nothing to compare it with."]
        verdict = QLabel("<br>".join(f"\u2022 {html.escape(line)}" for line in lines))
        verdict.setWordWrap(True)
        verdict.setStyleSheet(VERDICT_STYLE)
        verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict_labels[recipe_id] = verdict
        layout.addWidget(verdict)
        if recipe is not None and recipe.expectation and groups:
            expected = QLabel(f"What the recipe expected: {recipe.expectation}")
            expected.setWordWrap(True)
            expected.setStyleSheet("color: #505050;")
            layout.addWidget(expected)
        for group in groups:
            layout.addWidget(self._workload_heading(group))
            row = QHBoxLayout()
            row.addWidget(self._chart(group), 0, Qt.AlignmentFlag.AlignTop)
            row.addWidget(self._table(group), 1, Qt.AlignmentFlag.AlignTop)
            layout.addLayout(row)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(content)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        return scroll

    @staticmethod
    def _workload_heading(group: WorkloadResults) -> QLabel:
        better = "higher" if group.higher_is_better else "lower"
        e = html.escape
        heading = QLabel(f"<b>{e(group.workload)}</b>: {e(WORKLOADS[group.workload].title)} "
                         f"({e(group.unit)}, {better} is better; compared with {e(group.baseline_label)})")  # fmt: skip
        heading.setWordWrap(True)
        return heading

    def _chart(self, group: WorkloadResults) -> ResultChart:
        chart = ResultChart()
        chart.note.setWordWrap(True)  # the legend line must not widen the chart past its column
        chart.setFixedSize(CHART_WIDTH, CHART_HEIGHT)
        strips = [(c.label, _rounds(c)) for c in group.configs if c.summary is not None]
        chart.set_data(f"{group.workload} ({group.unit})", group.unit, group.higher_is_better, strips)
        chart.setObjectName(f"{group.recipe}-{group.workload}")
        self._charts.append(chart)
        return chart

    def _table(self, group: WorkloadResults) -> RowsTable:
        # the verdict wraps; the options keep their lines whole (an option list cut short would mislead)
        table = RowsTable(TABLE_HEADER, stretch=TABLE_HEADER[-2:])
        table.setTextElideMode(Qt.TextElideMode.ElideNone)
        table.setRowCount(len(group.configs))
        for row, config in enumerate(group.configs):
            for column, cell in enumerate(_row_cells(group, config)):
                table.setItem(row, column, cell)
        table.fit_height()
        self.tables[(group.recipe, group.workload)] = table
        return table
