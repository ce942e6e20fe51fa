"""The Run page's right side: the recipe's visit grid (where the run is) above its verdict plot (the comparisons as
the stop rule judged them after the last round, intervals narrowing round by round). Follows the engine's "recipe",
"visit", "repeat" and "verdicts" events, drained on the GUI thread; the judging was done on the engine's."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from nfstune.session.engine import Event
from nfstune.session.skipping import SEPARATOR
from nfstune.ui.tint import tint
from nfstune.ui.widgets.visit_grid import VisitGrid

if TYPE_CHECKING:
    from nfstune.results.verdict_rows import VerdictRow
    from nfstune.ui.widgets.verdict_plot import VerdictPlot

# a paired ratio needs two rounds: after round 1 each comparison would only say it has no estimate yet
NO_VERDICTS = "<b>Verdicts</b> appear after round 2: a comparison needs two rounds"


class RecipePanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = VisitGrid()
        self.verdicts_title = QLabel(NO_VERDICTS, wordWrap=True)
        self.verdicts_note = QLabel(wordWrap=True)  # why the recipe stopped
        tint(self.verdicts_note, "muted")
        self.verdicts_note.hide()
        self._plot: VerdictPlot | None = None  # made with the first verdicts: pyqtgraph loads when a chart shows
        self._plot_box = QWidget()
        self._plot_layout = QVBoxLayout(self._plot_box)
        self._plot_layout.setContentsMargins(0, 0, 0, 0)
        self._plot_box.hide()
        # a recipe of many comparisons: its plot scrolls rather than squeezing the grid
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setWidget(self._plot_box)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.grid)  # as tall as its rows, the verdicts the rest
        layout.addSpacing(6)
        layout.addWidget(self.verdicts_title)
        layout.addWidget(self.verdicts_note)
        layout.addWidget(self._scroll, 1)
        layout.addStretch(0)  # before the first verdicts: the grid and the words at the top, the room below
        maximum = QSizePolicy.Policy.Maximum
        for widget in (self.grid, self.verdicts_title, self.verdicts_note):
            widget.setSizePolicy(QSizePolicy.Policy.Preferred, maximum)
        self.rows: list[VerdictRow] = []  # the latest verdicts' rows, as the event had them
        self.baseline = ""

    @property
    def plot(self) -> VerdictPlot:
        if self._plot is None:
            from nfstune.ui.widgets.verdict_plot import VerdictPlot

            # one recipe, most compared with its baseline: the title says which
            self._plot = VerdictPlot(
                name_of=lambda row: short_name(row, self.baseline), tip_of=lambda row: long_name(row, self.baseline)
            )
            self._plot_layout.addWidget(self._plot)
            self._plot_layout.addStretch(1)
        return self._plot

    def clear(self) -> None:
        """A new run: nothing measured yet."""
        self.grid.stopped()
        self._show_rows([], NO_VERDICTS, "")

    def stopped(self) -> None:
        self.grid.stopped()

    def show_event(self, event: Event) -> bool:
        """The event drawn if it is one of the recipe's; whether it was."""
        data = event.data
        if event.kind == "recipe":
            self.grid.set_recipe(data)
            self.baseline = str(data.get("baseline") or "")
            self._show_rows([], NO_VERDICTS, "")
        elif event.kind == "visit":
            self.grid.visit_started(data)
        elif event.kind == "repeat":
            if "recipe" in data:
                self.grid.repeat_measured(data)
        elif event.kind == "verdicts":
            self.grid.runs_settled(data)
            rows = data.get("rows") or []
            assert isinstance(rows, Sequence)
            why, number = data.get("why"), data.get("round")
            title = f"<b>Verdicts after round {number}</b>"
            if data.get("block"):  # a guided hand change: judged by block
                title = f"<b>Verdicts after block {data['block']} of {data['blocks']}</b>, changed by hand"
            if not rows:
                title += ": nothing to compare"
            elif all(row.ratio is None for row in rows):  # a plot of rows that each say so: words, no picture
                title, rows = NO_VERDICTS, []
            else:
                title += f", against {html.escape(self.baseline)}" if self.baseline else ""
            self._show_rows(list(rows), title, f"Stopped: {why}." if why else "")
        else:
            return False
        return True

    def _show_rows(self, rows: list[VerdictRow], title: str, note: str) -> None:
        self.rows = rows
        self.verdicts_title.setText(title)
        self.verdicts_note.setText(note)
        self.verdicts_note.setVisible(bool(note))
        if rows:
            self.plot.set_rows(rows)
            self._plot_box.show()
            self._scroll.show()
        else:
            self._scroll.hide()


def short_name(row: VerdictRow, baseline: str) -> str:
    """As the grid names its row: "async · sync-4k"; what it is compared with when that is not the baseline (in a
    recipe run from several clients, a step of the baseline's series)."""
    return f"{row.label}{SEPARATOR}{row.workload}" + (f" vs {row.against}" if row.against != baseline else "")


def long_name(row: VerdictRow, baseline: str) -> str:
    """The row's name in its tooltip: how it was measured too where the short name has no room for it (the title
    already says "changed by hand")."""
    return short_name(row, baseline) + (f" (by hand, {row.blocks} blocks)" if row.blocks else "")
