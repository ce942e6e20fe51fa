"""The Results page's details, behind its disclosure: what limits each workload and the ceilings in sentences, and
a tab per recipe with every verdict in plain words and its CI, and per workload a strip plot (a dot per round beside
the median) with the table of figures, verdicts and options. Nothing of it is judged here: the outcome was."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QLabel, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget

from nfstune.advice.findings import Findings
from nfstune.advice.outcome import SessionOutcome
from nfstune.bench.figure import TAIL_WORDS
from nfstune.recipes.info import size_text
from nfstune.recipes.model import WORKLOADS, Recipe
from nfstune.results.load_summary import SeriesScaling, scaling_lines
from nfstune.results.run_options import negotiated_view
from nfstune.results.summary import ConfigResult, WorkloadResults, recipe_notes
from nfstune.results.summary_text import beside_words
from nfstune.statistics.stats import format_value
from nfstune.store import StoredSession
from nfstune.ui.ceilings import ceilings_html
from nfstune.ui.pages.recipes import RowsTable
from nfstune.ui.rich_text import rich
from nfstune.ui.tint import follow_items, tint, tint_item
from nfstune.ui.verdicts import KIND_WORDS, ci_text, kind_meaning, verdict_sentence
from nfstune.ui.widgets.scrolled import scrolled
from nfstune.words import count

if TYPE_CHECKING:
    from nfstune.ui.widgets.result_chart import ResultChart

DASH = "\u2013"
TABLE_HEADER = ("Configuration", "Median", f"Min{DASH}max", "Rounds", "Against the baseline", "Requested vs negotiated")
VERDICT_COLUMN = "Against the baseline"
OPTIONS_COLUMN = "Requested vs negotiated"
TAIL_COLUMN = "Tail (p99) against the baseline"
# a latency workload judged by its typical write: its tail's verdict in a column of its own, after the verdict's
TAIL_TABLE_HEADER = (*TABLE_HEADER[:5], TAIL_COLUMN, *TABLE_HEADER[5:])
# px: the verdict and the options share what the figures leave, each at least this wide (narrower, they would
# wrap into too many lines); a window too narrow for that scrolls the table sideways
WRAPPED_MIN_WIDTH = 200
EXPORT_KNOBS = {"sync", "async", "wdelay", "no_wdelay"}  # what the shipped recipes change


CHART_WIDTH = 420
CHART_HEIGHT = 260
CHART_MAX_WIDTH = 640  # above the table: wider than beside it, not so wide that the dots lose their columns
# the verdict box keeps one look in both schemes: its own pale ground, dark text on it
VERDICT_STYLE = "background: #f4f7fb; border: 1px solid #c5d3e3; border-radius: 4px; padding: 8px; color: #202020;"
NO_DIFFERENCE_EXPECTED = "no measurable difference expected"
KIND_ORDER = ("faster", "slower", "unreliable", "not settled", "same")  # the detail's order: effects first


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
    asked, got = config.requested, config.negotiated
    capped = {
        key: (wanted, granted)
        for key, wanted, granted in (("rsize", asked.rsize, got.rsize), ("wsize", asked.wsize, got.wsize))
        if wanted is not None and granted is not None and granted < wanted
    }
    if not capped:
        return None
    if len(set(capped.values())) == 1:  # the usual case: both cut to max_block_size
        ((wanted, granted),) = set(capped.values())
        return (
            f"{config.label}: the server capped {' and '.join(capped)} at {granted} ({size_text(granted)}) "
            f"where {wanted} was requested"
        )
    parts = [f"{key} at {cut} ({size_text(cut)}, {wanted} requested)" for key, (wanted, cut) in capped.items()]
    return f"{config.label}: the server capped " + " and ".join(parts)


def recipe_verdict_lines(groups: Sequence[WorkloadResults], recipe: Recipe | None) -> list[str]:
    """What a recipe's results mean, a sentence per comparison with its CI: the effects first, then the A/A checks
    that came out different (unreliable), what is not settled (and what would settle it), what made no difference
    that matters (with the reason none was expected, where the recipe gives one); then what the server capped and
    what failed."""
    by_kind: dict[str, list[str]] = {kind: [] for kind in KIND_ORDER}
    tails: list[str] = []  # after every typical write's: a second verdict, not the recipe's answer
    other: list[str] = []
    capped: dict[str, str] = {}
    for group in groups:
        for config in group.configs:
            if config.status not in ("completed", None):
                done = f"after {count(config.summary.n, 'round')}" if config.summary else "with no completed round"
                other.append(f"{config.label}, {group.workload}: {config.status} {done}")
            text = _capped_text(config)
            if text:
                capped.setdefault(config.label, text)
            if config.tail_verdict is not None:
                tails.append(f"{group.workload}, {TAIL_WORDS}: {verdict_sentence(config.tail_verdict)}")
            verdict = config.verdict
            if verdict is None:
                continue
            line = f"{group.workload}: {verdict_sentence(verdict)}"
            if verdict.kind in ("same", "not settled") and recipe is not None:
                # a configuration's own expectation; the recipe's is shown once, above the verdicts
                own = next((c.expectation for c in recipe.configs if c.label == config.label), None)
                reason = _expected_no_difference(own)
                if reason:
                    line += f" {DASH} expected: {reason}"
            by_kind.setdefault(verdict.kind, []).append(line)
    return [line for kind in by_kind for line in by_kind[kind]] + tails + list(capped.values()) + other


def _rounds(config: ConfigResult) -> dict[int, float]:
    """Round -> figure, in the order the rounds ran."""
    return dict(sorted(config.rounds.items())) if config.rounds else dict(enumerate(config.values, 1))


def _cell(text: str, *, right: bool = False, meaning: str | None = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return tint_item(item, meaning)


def _verdict_cell(group: WorkloadResults, config: ConfigResult, failed: bool) -> QTableWidgetItem:
    verdict = config.verdict
    if config.label == group.baseline_label:
        return _cell("baseline")
    if verdict is None:
        return _cell(f"{config.status}: no completed rounds" if failed else DASH, meaning="bad" if failed else None)
    cell = _cell(
        f"{KIND_WORDS.get(verdict.kind, verdict.kind)}\n{ci_text(verdict)}", meaning=kind_meaning(verdict.kind)
    )
    cell.setToolTip(verdict_sentence(verdict))
    if verdict.effect:
        font = cell.font()
        font.setBold(True)
        cell.setFont(font)
    return cell


def _row_cells(group: WorkloadResults, config: ConfigResult) -> list[QTableWidgetItem]:
    failed = config.status not in ("completed", None)
    meaning = "bad" if failed else None
    label = f"{config.label} ({config.status})" if failed else config.label
    options = negotiated_view(config.requested, config.negotiated).replace(" \u00b7 ", "\n")
    if config.export_options:
        # the options a recipe changes; exportfs -s lists a dozen defaults besides (the report keeps them all)
        shown = [o for o in config.export_options if o in EXPORT_KNOBS] or config.export_options
        options += f"\nexport {','.join(shown)}"
    options = options.replace(",", ", ")  # so that a narrow column can wrap a long option list
    s = config.summary
    if s is None:
        figures = ["no completed rounds", DASH, "0"]
    else:
        figures = [
            f"{format_value(s.median)} {group.unit}",
            f"{format_value(s.min)}{DASH}{format_value(s.max)}",
            str(s.n),
        ]
        beside = beside_words(group, config)
        if beside:  # a latency workload's mean and tail under its typical write, a line each
            figures[0] += "\n" + beside.replace(", ", "\n")
    cells = [_cell(label, meaning=meaning)]
    cells += [_cell(f, right=True, meaning=meaning) for f in figures]
    cells.append(_verdict_cell(group, config, failed))
    if _has_tail(group):
        tail = replace(config, verdict=config.tail_verdict)  # the same cell, of the tail's verdict
        cells.append(_verdict_cell(group, tail, failed))
    return [*cells, _cell(options)]


def _has_tail(group: WorkloadResults) -> bool:
    return any(c.tail_verdict is not None for c in group.configs)


class WorkloadBlock(QWidget):
    """A workload's chart and table: side by side when the table fits whole beside the chart, else the chart above
    the table (wider then, up to CHART_MAX_WIDTH), so that a narrow window (1024 px) gives the table the full
    width before it has to scroll."""

    def __init__(self, chart: ResultChart, table: RowsTable, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart, self.table = chart, table
        self.box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.addWidget(chart, 0, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.box.addWidget(table, 1, Qt.AlignmentFlag.AlignTop)

    @property
    def side_by_side(self) -> bool:
        return self.box.direction() is QBoxLayout.Direction.LeftToRight

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        width = event.size().width()
        side = width >= CHART_WIDTH + self.box.spacing() + self.table.natural_width()
        self.chart.setFixedWidth(CHART_WIDTH if side else max(CHART_WIDTH, min(width, CHART_MAX_WIDTH)))
        direction = QBoxLayout.Direction.LeftToRight if side else QBoxLayout.Direction.TopToBottom
        if self.box.direction() is not direction:
            self.box.setDirection(direction)  # changes the height only: the width comes from the page
        super().resizeEvent(event)


class ResultsDetails(QWidget):
    """Every sentence of the page before it led with pictures, none lost: the diagnosis and the ceilings in words,
    and the recipes' tabs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.verdict_labels: dict[str, QLabel] = {}  # recipe id -> its plain-language verdict
        self.note_labels: dict[str, QLabel] = {}  # recipe id -> its notes that hold on these hosts
        self.scaling_labels: dict[str, QLabel] = {}  # recipe id -> its several-clients scaling, when it has one
        self.tables: dict[tuple[str, str], RowsTable] = {}  # (recipe, workload) -> its figures
        self.charts: list[ResultChart] = []
        self.diagnosis_label = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.diagnosis_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.diagnosis_label.hide()
        self.ceilings_label = QLabel()  # the session's ceilings (ui/ceilings.py); hidden when it measured none
        self.ceilings_label.setWordWrap(True)
        self.ceilings_label.setTextFormat(Qt.TextFormat.RichText)
        self.ceilings_label.hide()
        words = QWidget()
        box = QVBoxLayout(words)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.diagnosis_label)
        box.addWidget(self.ceilings_label)
        box.addStretch(1)
        # the sentences scroll on their own: squeezed by the tabs under them in a low window, they were cut
        self.words = scrolled(words, wraps=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.words, 1)
        layout.addWidget(self.tabs, 2)

    def show_session(
        self, session: StoredSession, outcome: SessionOutcome, recipes: Mapping[str, Recipe], status: str
    ) -> None:
        self._show_diagnosis(outcome.findings)
        # QTabWidget.clear() keeps the pages (their charts and tables) alive, hidden: each run left its Results
        # behind, ~2 MiB a run (tools/bench/desktop_memory.py)
        pages = [self.tabs.widget(i) for i in range(self.tabs.count())]
        self.tabs.clear()
        for page in pages:
            page.deleteLater()
        self.verdict_labels.clear()
        self.note_labels.clear()
        self.scaling_labels.clear()
        self.tables.clear()
        self.charts.clear()
        ceilings = ceilings_html(session)
        self.ceilings_label.setText(ceilings)
        self.ceilings_label.setVisible(bool(ceilings))
        self.words.setVisible(bool(ceilings or outcome.findings.diagnoses))
        by_recipe: dict[str, list[WorkloadResults]] = {}
        for group in outcome.groups:
            by_recipe.setdefault(group.recipe, []).append(group)
        for recipe_id in session.recipes:
            by_recipe.setdefault(recipe_id, [])  # chosen but never reached: its tab says so
        # the notes read only the facts the session stored (results.summary takes them by their column names)
        facts = {"server_facts": session.server_facts, "client_facts": session.client_facts}
        for recipe_id, recipe_groups in by_recipe.items():
            recipe = recipes.get(recipe_id)
            title = recipe.title if recipe else recipe_id
            tab = self._recipe_tab(
                recipe_id,
                recipe,
                recipe_groups,
                status,
                recipe_notes(facts, recipe),
                [item for item in outcome.scaling if item.recipe == recipe_id],
            )
            self.tabs.addTab(tab, title)

    def _show_diagnosis(self, found: Findings) -> None:
        e = html.escape
        self.diagnosis_label.setVisible(bool(found.diagnoses))
        items = "".join(f"<li><b>{e(d.workload)}</b>: {e(d.text)}</li>" for d in found.diagnoses)
        self.diagnosis_label.setText(f"What limits each workload:<ul style='margin: 0'>{items}</ul>")

    def _recipe_tab(
        self,
        recipe_id: str,
        recipe: Recipe | None,
        groups: list[WorkloadResults],
        status: str,
        notes: list[str],
        scaling: list[SeriesScaling],
    ) -> QWidget:
        content = QWidget()
        layout = QVBoxLayout(content)
        lines = recipe_verdict_lines(groups, recipe)
        if not groups:
            lines = [f"Not run: the session ended ({status}) before this recipe started."]
        elif not lines:
            lines = ["Only the baseline has figures: nothing to compare it with."]
        verdict = QLabel("<br>".join(f"\u2022 {rich(line)}" for line in lines))
        verdict.setWordWrap(True)
        verdict.setStyleSheet(VERDICT_STYLE)
        verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict_labels[recipe_id] = verdict
        layout.addWidget(verdict)
        if recipe is not None and recipe.expectation and groups:
            expected = QLabel(f"What the recipe expected: {recipe.expectation}")
            expected.setWordWrap(True)
            tint(expected, "muted")
            layout.addWidget(expected)
        if notes and groups:
            shown = QLabel("<br>".join(f"Note: {rich(note)}" for note in notes))
            shown.setWordWrap(True)
            tint(shown, "muted")
            self.note_labels[recipe_id] = shown
            layout.addWidget(shown)
        if scaling:
            # several clients at once: where another client stops adding, and each one's share (the text report's)
            shown = QLabel(
                "<b>Several clients at once</b><br>" + "<br>".join(rich(ln) for ln in scaling_lines(scaling))
            )
            shown.setWordWrap(True)
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.scaling_labels[recipe_id] = shown
            layout.addWidget(shown)
        for group in groups:
            layout.addWidget(self._workload_heading(group))
            layout.addWidget(WorkloadBlock(self._chart(group), self._table(group)))
        layout.addStretch(1)
        return scrolled(content)

    @staticmethod
    def _workload_heading(group: WorkloadResults) -> QLabel:
        better = "higher" if group.higher_is_better else "lower"
        e = html.escape
        judged = f"; {e(group.judged_words)}" if group.judged_words else ""
        heading = QLabel(
            f"<b>{e(group.workload)}</b>: {e(WORKLOADS[group.workload].title)} "
            f"({e(group.unit)}, {better} is better; compared with {e(group.baseline_label)}{judged})"
        )
        heading.setWordWrap(True)
        return heading

    def _chart(self, group: WorkloadResults) -> ResultChart:
        # imported with the first result, not with the window: pyqtgraph was 0.2-0.3 s of the desktop's start
        from nfstune.ui.widgets.result_chart import ResultChart

        chart = ResultChart()
        chart.note.setWordWrap(True)  # the legend line must not widen the chart past its column
        chart.setFixedSize(CHART_WIDTH, CHART_HEIGHT)
        strips = [(c.label, _rounds(c)) for c in group.configs if c.summary is not None]
        chart.set_data(f"{group.workload} ({group.unit})", group.unit, group.higher_is_better, strips)
        chart.setObjectName(f"{group.recipe}-{group.workload}")
        self.charts.append(chart)
        return chart

    def _table(self, group: WorkloadResults) -> RowsTable:
        # the verdict and the options wrap; the figures fit their contents; what does not fit scrolls sideways (an
        # option list cut short would mislead)
        tail = _has_tail(group)
        table = RowsTable(
            TAIL_TABLE_HEADER if tail else TABLE_HEADER,
            stretch=(VERDICT_COLUMN, *((TAIL_COLUMN,) if tail else ()), OPTIONS_COLUMN),
            min_stretch=WRAPPED_MIN_WIDTH,
        )
        table.setTextElideMode(Qt.TextElideMode.ElideNone)
        follow_items(table)
        table.setRowCount(len(group.configs))
        for row, config in enumerate(group.configs):
            for column, cell in enumerate(_row_cells(group, config)):
                table.setItem(row, column, cell)
        table.fit_height()
        self.tables[(group.recipe, group.workload)] = table
        return table
