"""The history page: every stored session, the figures of the selected one, two sessions side by side, and the
exports (HTML report, CSV, JSON). Every read of the store and every judgement is a job on a worker thread
(history_jobs.py): the list each time the page is shown (with 10,000 sessions that took seconds on a busy machine,
and it used to hold the window back at start), the selected session's outcome, a comparison, an export. The GUI
thread shows what they return (history_list.py; a session's answer and pictures as Results shows them,
widgets/session_pictures.py, its figures in words behind them, history_details.py)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt, Signal, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from nfstune.advice.outcome import SessionOutcome
from nfstune.recipes.model import Recipe
from nfstune.results.check_text import CheckShown
from nfstune.results.compare import ComparisonRow
from nfstune.store import Results, SessionRow
from nfstune.ui.icons import icon
from nfstune.ui.jobs import CRASHED
from nfstune.ui.pages.history_banner import RegressionBanner
from nfstune.ui.pages.history_details import comparison_html, details_html
from nfstune.ui.pages.history_jobs import read_applied, read_comparison, read_outcome, read_sessions, write_export
from nfstune.ui.pages.history_list import COLUMNS, SIZED_FROM_ROWS, SessionTableModel, rows_height
from nfstune.ui.pages.history_trend import TrendPanel
from nfstune.ui.tint import on_scheme_change
from nfstune.ui.widgets.session_pictures import SessionPictures

READING = "Reading the stored sessions…"
HINT = "Select a session to see its figures, or two sessions (Ctrl+click) to compare them."
EMPTY = (
    "No sessions yet. Connect to your NAS and run a recipe (Guided tuning), or try the practice lab "
    "(Guided tuning: Use the practice lab). Each run is kept here, to read again and to compare."
)
LIST_SHARE = 0.3  # of the page's height, for the session list when the page is first shown
LIST_ROWS = 4  # the list shows at least these many whole rows, whatever the banner and the figures take
DETAILS_WORDS = "Details: each configuration's figures, verdict and options, as text"
# (what, file suffix, filter of the save dialog)
EXPORTS = {
    "html": ("HTML report", "html", "HTML report (*.html)"),
    "csv": ("CSV", "csv", "CSV (*.csv)"),
    "json": ("JSON", "json", "JSON (*.json)"),
}

SaveDialog = Callable[[QWidget, str, str, str], tuple[str, str]]


# (job name, work, on_done, on_failed): the controller's start_job, on no host
Background = Callable[[str, Callable[[Any], Any], Callable[[Any], None], Callable[[str], None]], object]


class HistoryPage(QWidget):
    report_written = Signal(str)  # an exported report's path (the Results page says it too)
    sessions_shown = Signal()  # the list now holds the sessions a read on a worker thread found
    details_shown = Signal(int)  # the Details tab now shows this session's outcome, worked out on a worker thread
    check_requested = Signal(int)  # Check it held, for this session's applied recommendation (check_dialog.py)

    def __init__(
        self,
        results: Results,
        parent: QWidget | None = None,
        recipes: Mapping[str, Recipe] | None = None,
        *,
        background: Background,
        store_path: Path,
    ) -> None:
        """`results`: the window's connection, which the page does not read (every read is a job's, on its own
        connection); kept for its callers. `recipes`: what a session's baselines, margins and A/A checks are read
        from (None: each is judged without its recipe). `background`: runs every read and judgement as a job (the
        controller's start_job), each reading the store at `store_path` on its own thread with its own
        connection. The list is read when the page is shown, not here: the window builds this page before it
        shows itself."""
        super().__init__(parent)
        self._results = results
        self._recipes = recipes
        self._background, self._store_path = background, store_path
        self._reading = False  # a read of the list is under way on a worker thread
        self._read_again = False  # a refresh was asked for during it: the store may have changed since it began
        self._jobs = 0  # each job has a name of its own: the last one's thread may not have ended yet
        self._reads = 0
        # one session judged at a time: arrowing down the list asks for many, the last one asked is what shows
        self._judging = False
        self._asked = 0  # the number of the last ask: an outcome of an earlier one may have been read before it
        self._wanted: int | None = None  # the session whose figures the Details tab waits for
        self._shown: int | None = None  # the session whose figures the Details tab shows
        self._applied: set[int] = set()  # sessions whose recommendation an Apply in force wrote, read with the list
        # an attribute, not a call to QFileDialog, so that tests (and a caller that remembers folders) replace it
        self.ask_save_path: SaveDialog = QFileDialog.getSaveFileName
        self.model = SessionTableModel(self)  # it sorts itself, as the header asks
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)  # newest first
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; the arrows move within it
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # sized from the first rows (the newest, shown at first) rather than Qt's 1000 by default: the widths
        # barely differ, and the header asking 1000 rows' cells in every role took a second on the GUI thread
        header.setResizeContentsPrecision(SIZED_FROM_ROWS)
        header.setSectionResizeMode(COLUMNS.index("Recipes"), QHeaderView.ResizeMode.Stretch)  # the long one
        # with the banner up, the list was left two rows at 1024x700 and the selected one cut off (issue 41)
        self.table.setMinimumHeight(rows_height(self.table, LIST_ROWS))
        self.details = QTextBrowser()
        self.details.setOpenLinks(False)
        self.details.setTabChangesFocus(True)
        self._render: Callable[[], str] | None = None  # the Details tab's rich text, drawn again on a switch
        on_scheme_change(self, self._on_scheme_changed)
        # the selected session's answer and pictures first, these words behind a disclosure (as on Results); a
        # hint, a wait or a comparison is words alone
        self.session_view = SessionPictures(self.details, DETAILS_WORDS)
        self._say(HINT)
        self.status = QLabel()
        self.status.setWordWrap(True)

        self.refresh_button = QPushButton(icon("refresh"), "&Refresh")
        self.compare_button = QPushButton("&Compare")
        self.compare_button.setToolTip("Compare the two selected sessions, configuration by configuration")
        self.check_button = QPushButton("Chec&k it held…")
        self.check_button.setToolTip("For a session whose recommendation was applied: is its gain still there?")
        self.check_button.setEnabled(False)
        self.check_button.clicked.connect(self._on_check_clicked)
        self.export_buttons = {
            "html": QPushButton(icon("save"), "Export &HTML report…"),
            "csv": QPushButton(icon("save"), "Export CS&V…"),
            "json": QPushButton(icon("save"), "Export &JSON…"),
        }
        self.refresh_button.clicked.connect(self._on_refresh_clicked)
        self.compare_button.clicked.connect(self._on_compare_clicked)
        self.export_buttons["html"].clicked.connect(self._on_export_html_clicked)
        self.export_buttons["csv"].clicked.connect(self._on_export_csv_clicked)
        self.export_buttons["json"].clicked.connect(self._on_export_json_clicked)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        # the selected session's pair over time: read on a worker thread, only while its tab shows
        self.trend = TrendPanel(background, store_path, recipes)
        self.refresh_button.clicked.connect(self.trend.reload)
        # a regression a watch found, above the list: read with the list, from every pair's trend
        self.banner = RegressionBanner(background, store_path, recipes)
        self.banner.show_trend.connect(self._on_show_trend)

        sessions_label = QLabel("&Sessions")
        sessions_label.setBuddy(self.table)
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.addTab(self.session_view, "&Details")
        self.bottom_tabs.addTab(self.trend, "&Trend")
        buttons = QHBoxLayout()
        for button in (self.refresh_button, self.compare_button, self.check_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        for button in self.export_buttons.values():
            buttons.addWidget(button)
        top, bottom = QWidget(), QWidget()
        top_layout, bottom_layout = QVBoxLayout(top), QVBoxLayout(bottom)
        for layout in (top_layout, bottom_layout):
            layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(sessions_label)
        top_layout.addWidget(self.table)
        top_layout.addLayout(buttons)
        bottom_layout.addWidget(self.bottom_tabs)
        self.splitter = splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(1, 3)  # the figures need the room; the list scrolls
        self._list_sized = False  # the list's share is set once the page is first shown (_share_the_height)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        # above the splitter, not in the list's pane: the figures' pane gives up the banner's height, not the list
        layout.addWidget(self.banner)
        layout.addWidget(splitter)
        layout.addWidget(self.status)
        tabs = self.bottom_tabs.tabBar()  # Details, Trend: then the page shown
        chain = [
            self.banner.trend_button,
            self.table,
            self.refresh_button,
            self.compare_button,
            self.check_button,
            *self.export_buttons.values(),
            tabs,
            self.session_view.details_button,
            self.details,
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    # --- state ----------------------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self._share_the_height()
        if not event.spontaneous():  # the History tab opened (not the window brought back from minimised)
            self.refresh()

    def _share_the_height(self) -> None:
        """A share of the page for the list, the rest for the figures, once, when the page has its height: left to
        the list's size hint, the list took 220 px of a 700 px window and the pictures were squeezed under it."""
        total = sum(self.splitter.sizes())
        if self._list_sized or total <= 0:
            return
        self._list_sized = True
        self.splitter.setSizes([int(total * LIST_SHARE), total - int(total * LIST_SHARE)])

    def refresh(self) -> None:
        """Read the sessions again on a worker thread, then show them keeping the selection (sessions_shown). A
        page not shown reads nothing: it reads when it is shown (a run ending on another tab, the window's start)."""
        if not self.isVisible():
            return
        if self._reading:
            self._read_again = True
            return
        self._reading = True
        self.status.setText(READING)
        store_path = self._store_path
        self._reads += 1
        name = f"history-read-{self._reads}"
        self._background(
            name,
            lambda _job: (read_sessions(store_path), read_applied(store_path)),
            self._on_sessions_read,
            self._on_read_failed,
        )

    @Slot(list)
    def _on_show_trend(self, key: list[str]) -> None:
        self.bottom_tabs.setCurrentWidget(self.trend)
        self.trend.show_pair(tuple(key))

    def _on_sessions_read(self, found: tuple[list[SessionRow], set[int]]) -> None:
        rows, self._applied = found
        self._reading = False
        self._show_sessions(rows)
        self.banner.read(f"history-regressions-{self._reads}")  # after the list, which must not wait for it
        self.status.setText(f"{len(rows)} session{'' if len(rows) == 1 else 's'}, read {time.strftime('%H:%M:%S')}")
        self.sessions_shown.emit()
        if self._read_again:  # what was read may miss a session stored while it ran
            self._read_again = False
            self.refresh()

    def _on_read_failed(self, reason: str) -> None:
        self._reading = self._read_again = False
        # the crash dialog shows a bug; a store error (a file gone, a disk error) is said here, where it is missed
        self.status.setText(f"Could not read the stored sessions: {reason}")

    def _show_sessions(self, rows: list[SessionRow]) -> None:
        kept = set(self.selected_ids())
        self.model.set_sessions(rows)
        selection = QItemSelection()
        for row in range(self.model.rowCount()):
            if self.model.session_at(row).id in kept:
                selection.select(self.model.index(row, 0), self.model.index(row, len(COLUMNS) - 1))
        self.table.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self._on_selection_changed()

    def selected_ids(self) -> list[int]:
        """The selected sessions' ids, oldest first (so that in a comparison A is the earlier session)."""
        rows = {i.row() for i in self.table.selectionModel().selectedRows()}
        return sorted(self.model.session_at(r).id for r in rows)

    def _say(self, text: str) -> None:
        """Words in the Details tab in place of a session's pictures: what to do, what is under way, what failed."""
        self.session_view.show_words_only()
        self._render = None
        self.details.setPlainText(text)

    def _show_html(self, render: Callable[[], str]) -> None:
        self._render = render
        self.details.setHtml(render())

    def _on_scheme_changed(self) -> None:
        """Light turned dark or back: the colours in the list and in Details are the scheme's again."""
        self.model.scheme_changed()
        if self._render is not None:
            self.details.setHtml(self._render())

    def _row(self, session_id: int) -> SessionRow:
        return next(r for r in self.model.sessions() if r.id == session_id)

    # --- slots ----------------------------------------------------------------------------------------------

    @Slot()
    def _on_check_clicked(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.check_requested.emit(ids[0])

    @Slot()
    def _on_refresh_clicked(self) -> None:
        self.refresh()  # the status says how many once they are read

    @Slot()
    def _on_selection_changed(self) -> None:
        ids = self.selected_ids()
        self.compare_button.setEnabled(len(ids) == 2)
        rows = sorted(i.row() for i in self.table.selectionModel().selectedRows())
        if rows:  # a selection kept over a read, or set by the program, may lie below what the list shows
            self.table.scrollTo(self.model.index(rows[0], 0))
        self.check_button.setEnabled(len(ids) == 1 and ids[0] in self._applied)
        for button in self.export_buttons.values():
            button.setEnabled(len(ids) == 1)
        self._wanted = ids[0] if len(ids) == 1 else None
        self._asked += 1
        if len(ids) == 1:
            self.trend.follow_session(ids[0])
            self._judge()
            return
        self._shown = None
        if len(ids) == 2:
            self._say(f"Sessions {ids[0]} and {ids[1]} selected: press Compare (Alt+C).")
        else:
            hint = HINT if self.model.rowCount() else EMPTY  # nothing to select: say how to get a session
            self._say(hint if not ids else "Select one session for its figures, two to compare.")

    def _judge(self) -> None:
        """The wanted session's outcome, worked out on a worker thread; shown if nothing was asked since."""
        session_id = self._wanted
        if session_id is None:
            return
        if session_id != self._shown:  # the same one read again (a refresh) keeps its figures until then
            self._shown = None
            self._say(f"Reading session {session_id}…")
        if self._judging:  # the one under way asks again as it ends
            return
        self._judging = True
        store_path, recipes, asked = self._store_path, self._recipes, self._asked
        self._jobs += 1
        self._background(
            f"history-session-{self._jobs}",
            lambda _job: read_outcome(store_path, session_id, recipes),
            lambda read: self._on_outcome_read(asked, *read),
            lambda reason: self._on_outcome_failed(asked, session_id, reason),
        )

    def _on_outcome_read(self, asked: int, outcome: SessionOutcome, check: CheckShown | None) -> None:
        self._judging = False
        if asked != self._asked:  # another session selected, or the list read again, meanwhile
            self._judge()
            return
        self._shown = outcome.session_id
        row = self._row(outcome.session_id)
        self._show_html(lambda: details_html(row, outcome, check))
        self.session_view.show_outcome(outcome, self._recipes or {}, check)
        self.details_shown.emit(outcome.session_id)

    def _on_outcome_failed(self, asked: int, session_id: int, reason: str) -> None:
        self._judging = False
        if asked != self._asked:
            self._judge()
            return
        self._shown = None
        self._say(f"Could not read session {session_id}: {reason}")

    @Slot()
    def _on_compare_clicked(self) -> None:
        a, b = self.selected_ids()
        self._say(f"Comparing sessions {a} and {b}…")
        store_path, recipes = self._store_path, self._recipes
        self._jobs += 1
        self._background(
            f"history-compare-{self._jobs}",
            lambda _job: read_comparison(store_path, a, b, recipes),
            lambda rows: self._on_compared(a, b, rows),
            lambda reason: self._on_compare_failed(a, b, reason),
        )

    def _on_compared(self, a: int, b: int, rows: list[ComparisonRow]) -> None:
        if self.selected_ids() == [a, b]:  # else the selection moved on, and the Details tab with it
            self.session_view.show_words_only()
            row_a, row_b = self._row(a), self._row(b)
            self._show_html(lambda: comparison_html(row_a, row_b, rows))

    def _on_compare_failed(self, a: int, b: int, reason: str) -> None:
        if self.selected_ids() == [a, b]:
            self._say(f"Could not compare sessions {a} and {b}: {reason}")

    @Slot()
    def _on_export_html_clicked(self) -> None:
        (session_id,) = self.selected_ids()
        self.export_html(session_id)

    def export_html(self, session_id: int) -> None:
        """The session's report, where the admin chooses: the same file `nfstune report N --html` writes. Also
        what the Results page's Export button does."""
        self._export("html", session_id)

    @Slot()
    def _on_export_csv_clicked(self) -> None:
        (session_id,) = self.selected_ids()
        self._export("csv", session_id)

    @Slot()
    def _on_export_json_clicked(self) -> None:
        # the same document as `nfstune report N --json` (resources/schemas/report.schema.json)
        (session_id,) = self.selected_ids()
        self._export("json", session_id)

    def _ask_path(self, kind: str, session_id: int) -> Path | None:
        """Where to write the session; None when the admin cancelled the dialog."""
        what, suffix, file_filter = EXPORTS[kind]
        suggested = str(Path.home() / f"nfstune-session-{session_id}.{suffix}")
        chosen, _ = self.ask_save_path(self, f"Export session {session_id} as {what}", suggested, file_filter)
        return Path(chosen) if chosen else None

    def _export(self, kind: str, session_id: int) -> None:
        """The session written where the admin chooses, by a job: the report and the JSON judge the session."""
        path = self._ask_path(kind, session_id)
        if path is None:
            return
        store_path, recipes = self._store_path, self._recipes
        self.status.setText(f"Writing {path}…")
        self._jobs += 1
        self._background(
            f"export-{kind}-{self._jobs}",
            lambda _job: write_export(store_path, kind, session_id, path, recipes),
            lambda _result: self._on_written(kind, path),
            lambda reason: self._export_failed(path, reason),
        )

    def _on_written(self, kind: str, path: Path) -> None:
        self.status.setText(f"Wrote {path}")
        if kind == "html":
            self.report_written.emit(str(path))

    def _export_failed(self, path: Path, reason: str) -> None:
        self.status.setText(f"Export failed: {path}")
        if reason != CRASHED:  # a bug: the crash dialog shows it
            QMessageBox.critical(self, "Export failed", f"Could not write {path}:\n{reason}")
