"""The visit grid: where a recipe's run is. A row per configuration and workload it runs ("async · sync-4k"), a
column per round (the warm-up first), each cell the figure its visit measured, the visit running now marked, and a
run left out of a round because its comparisons were settled (session/skipping.py) marked so. Filled from the
engine's events (session/recipe_rounds.py "recipe" and "verdicts", visit.py "visit", workload_run.py "repeat");
this only draws them."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from nfstune.session.skipping import SEPARATOR
from nfstune.ui.theme import text_colour
from nfstune.ui.tint import follow_items, on_scheme_change, tint_item
from nfstune.words import count

RUNNING = "…"  # a cell whose visit runs now, before its figure is in
SETTLED = "settled"  # a run left out of the round: its comparisons were settled before it
WARMUP = "warm-up"
MOST_ROWS = 12  # rows the grid keeps in view before it scrolls


def short_figure(value: float, unit: str) -> str:
    """'112 MB/s', '4.1 ms', '1.8k files/s': three figures at most, thousands as k."""
    if abs(value) >= 10_000:
        return f"{value / 1000:.0f}k {unit}"
    if abs(value) >= 1000:
        return f"{value / 1000:.1f}k {unit}"
    return f"{value:.3g} {unit}"


class VisitGrid(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("Visits appear when the first recipe starts", wordWrap=True)
        self.table = QTableWidget(0, 0)
        self.table.setAccessibleName("Visits: a row per configuration and workload, a column per round")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # read, not worked in
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setShowGrid(True)
        self.table.setWordWrap(False)
        font = QFont(self.table.font())
        font.setPointSizeF(max(7.5, font.pointSizeF() - 1))  # small but legible: the charts need the room
        self.table.setFont(font)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        rows.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        columns = self.table.horizontalHeader()
        columns.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        columns.setStretchLastSection(False)
        columns.sectionResized.connect(lambda *_: self._fit_height() if self.rows else None)  # a figure widens one
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        self.recipe = ""
        self.rows: list[tuple[str, str]] = []  # (configuration label, workload), in the grid's order
        self.warmup = False
        self.rounds_min = self.rounds_max = 0
        self.running: list[tuple[int, int]] = []  # (row, column) of the visit running now
        self.settled: dict[tuple[str, str], int] = {}  # (configuration, workload) left out -> the round it settled
        follow_items(self.table)  # the settled cells' muted text follows a switch of scheme
        self._said = 0  # the rounds the title says, in the scheme's muted colour: said again on a switch
        on_scheme_change(self.title, lambda: self._say_rounds(self._said) if self.recipe else None)

    # --- from the engine's events ---------------------------------------------------------------------------------

    def set_recipe(self, data: Mapping[str, object]) -> None:
        """A new recipe: its configurations' rows (in the plan's order, a row per workload each runs) and its first
        rounds' columns; what an earlier recipe showed goes."""
        self.recipe = str(data["recipe"])
        runs = data.get("config_workloads") or {}
        assert isinstance(runs, Mapping)
        configs = data.get("configs") or list(runs)
        assert isinstance(configs, Sequence)
        self.rows = [(str(label), str(w)) for label in configs for w in runs.get(label, data.get("workloads") or ())]
        self.warmup = bool(data.get("warmup"))
        self.rounds_min, self.rounds_max = int(str(data["rounds_min"])), int(str(data["rounds_max"]))
        self.running = []
        self.settled = {}
        self.table.clear()
        self.table.setRowCount(len(self.rows))
        self.table.setVerticalHeaderLabels([f"{label}{SEPARATOR}{w}" for label, w in self.rows])
        self.table.setColumnCount(0)
        self._add_columns(self.rounds_min)
        self._fit_height()
        self.title.setToolTip(str(data.get("title") or ""))
        self._say_rounds(self.rounds_min)

    def visit_started(self, data: Mapping[str, object]) -> None:
        """Its cells marked as running; the earlier visit's no longer."""
        if str(data.get("recipe")) != self.recipe:
            return
        self._unmark()
        number = int(str(data.get("round", 0)))
        if number > self.rounds_shown():
            self._add_columns(number)
            self._say_rounds(number)
            self._fit_height()
        column = self._column(number)
        self._mark_settled(number)
        label = str(data.get("config"))
        workloads = data.get("workloads")
        assert workloads is None or isinstance(workloads, Sequence)
        for row, (row_label, workload) in enumerate(self.rows):
            if row_label == label and (workloads is None or workload in workloads):
                self.running.append((row, column))
                item = self._item(row, column)
                if not item.text():
                    item.setText(RUNNING)
                self._mark(item, True)
        if self.running:
            self.table.scrollToItem(self._item(*self.running[0]), QAbstractItemView.ScrollHint.EnsureVisible)

    def repeat_measured(self, data: Mapping[str, object]) -> None:
        """Its cell shows the figure."""
        if str(data.get("recipe")) != self.recipe:
            return
        key = (str(data.get("config")), str(data.get("workload")))
        if key not in self.rows:
            return
        number = int(str(data.get("round", 0)))
        if number > self.rounds_shown():
            self._add_columns(number)
        item = self._item(self.rows.index(key), self._column(number))
        value, unit = float(str(data["value"])), str(data.get("unit") or "")
        item.setText(short_figure(value, unit))
        item.setToolTip(f"{key[0]}, {key[1]}, {self._header(self._column(number))}: {value:g} {unit}")

    def runs_settled(self, data: Mapping[str, object]) -> None:
        """A round judged: the runs its "verdicts" event says the next rounds leave out ([configuration, workload]),
        settled; those no longer said are measured again."""
        if str(data.get("recipe")) != self.recipe:
            return
        number = int(str(data.get("round", 0)))
        skipped = data.get("skipped") or []
        assert isinstance(skipped, Sequence)
        now = {(str(label), str(workload)) for label, workload in skipped}
        self.settled = {run: self.settled.get(run, number) for run in now if run in self.rows}

    def stopped(self) -> None:
        """The run ended: nothing runs."""
        self._unmark()

    # --- what the grid shows (the tests read these) ----------------------------------------------------------------

    def rounds_shown(self) -> int:
        return self.table.columnCount() - (1 if self.warmup else 0)

    def cell_text(self, label: str, workload: str, round_number: int) -> str:
        item = self.table.item(self.rows.index((label, workload)), self._column(round_number))
        return item.text() if item is not None else ""

    def running_cells(self) -> list[tuple[str, str, int]]:
        """(configuration, workload, round) of the visit running now."""
        first = 1 if self.warmup else 0
        return [(*self.rows[row], column + 1 - first) for row, column in self.running]

    # --- inside --------------------------------------------------------------------------------------------------

    def _column(self, round_number: int) -> int:
        if round_number == 0:
            return 0
        return round_number - (0 if self.warmup else 1)

    def _header(self, column: int) -> str:
        return WARMUP if self.warmup and column == 0 else f"round {column + (0 if self.warmup else 1)}"

    def _add_columns(self, rounds: int) -> None:
        """Columns up to round `rounds` (a recipe goes on past its minimum while a comparison is not settled)."""
        wanted = rounds + (1 if self.warmup else 0)
        while self.table.columnCount() < wanted:
            column = self.table.columnCount()
            self.table.insertColumn(column)
            words = self._header(column)
            header = QTableWidgetItem(words.removeprefix("round "))
            header.setToolTip(words)
            self.table.setHorizontalHeaderItem(column, header)

    def _fit_height(self) -> None:
        """As tall as its rows (and the sideways scrollbar once the rounds outgrow the width): the room below goes
        to the verdicts."""
        table = self.table
        height = table.horizontalHeader().sizeHint().height() + table.verticalHeader().length() + 2 * table.frameWidth()
        # the room for the rounds from the grid's own width: the table's viewport follows it only after this
        room = self.width() - table.verticalHeader().width() - 2 * table.frameWidth()
        if table.horizontalHeader().length() > room:
            height += table.horizontalScrollBar().sizeHint().height()
        table.setMaximumHeight(height)
        # every row while there are few; beyond MOST_ROWS the grid scrolls and the verdicts keep their room
        shown = min(height, table.horizontalHeader().sizeHint().height() + MOST_ROWS * self._row_height())
        table.setMinimumHeight(shown)
        title = self.title.heightForWidth(max(self.width(), 1))
        self.setMinimumHeight(title + self._spacing() + shown)

    def _spacing(self) -> int:
        layout = self.layout()
        return layout.spacing() if layout is not None else 0

    def _row_height(self) -> int:
        return self.table.verticalHeader().defaultSectionSize()

    def _say_rounds(self, rounds: int) -> None:
        self._said = rounds
        low, high = self.rounds_min, self.rounds_max
        warm = "warm-up, then " if self.warmup else ""
        if rounds > low:
            text = f"round {rounds} of up to {high}: not every comparison is settled"
        elif high > low:
            text = f"{warm}{count(low, 'round')}, up to {high} until settled"
        else:
            text = f"{warm}{count(low, 'round')}"
        muted = text_colour("muted").name()
        self.title.setText(f"<b>{html.escape(self.recipe)}</b> <span style='color: {muted}'>· {text}</span>")

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """As tall as the title and every row: the verdicts below take the rest."""
        title = self.title.heightForWidth(max(self.width(), 1))
        return QSize(super().sizeHint().width(), title + self._spacing() + self.table.maximumHeight())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.rows:
            self._fit_height()  # the sideways scrollbar comes and goes with the width

    def _item(self, row: int, column: int) -> QTableWidgetItem:
        item = self.table.item(row, column)
        if item is None:
            item = QTableWidgetItem("")
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, column, item)
        return item

    def _mark(self, item: QTableWidgetItem, running: bool) -> None:
        if running:
            colour = QColor(self.palette().highlight().color())
            colour.setAlpha(70)  # a tint of the scheme's highlight: the figure stays readable on light and dark
            item.setBackground(QBrush(colour))
        else:
            item.setBackground(QBrush())
        font = item.font()
        font.setBold(running)
        item.setFont(font)

    def _mark_settled(self, round_number: int) -> None:
        """The round's cells of the runs left out: settled, in the muted colour (a quiet mark, not a blank)."""
        column = self._column(round_number)
        for (label, workload), settled_at in self.settled.items():
            item = self._item(self.rows.index((label, workload)), column)
            if not item.text():
                item.setText(SETTLED)
                item.setToolTip(
                    f"{label}, {workload}, {self._header(column)}: not measured: its comparisons were settled after "
                    f"round {settled_at}"
                )
                tint_item(item, "muted")

    def _unmark(self) -> None:
        for row, column in self.running:
            item = self._item(row, column)
            if item.text() == RUNNING:
                item.setText("")  # cancelled before its figure: not run
            self._mark(item, False)
        self.running = []
