"""The history page: every stored session, the figures of the selected one, two sessions side by side, and the
exports (HTML report, CSV, JSON). The list of sessions is read on a worker thread each time the page is shown (with
10,000 sessions that took seconds on a busy machine, and it used to hold the window back at start); one session's
figures are read on the GUI thread: a session is a few hundred rows at most."""

from __future__ import annotations

import html
import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QColor, QShowEvent
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

from nfstune.errors import NfstuneError
from nfstune.recipes.model import WORKLOADS, Recipe
from nfstune.report.html import write_html
from nfstune.results.compare import ComparisonRow, compare_sessions
from nfstune.results.run_options import negotiated_view
from nfstune.results.summary import WorkloadResults, summarize_session
from nfstune.statistics.stats import format_value
from nfstune.statistics.verdict import Verdict, format_change
from nfstune.store import Results, SessionRow, open_store
from nfstune.ui.jobs import CRASHED
from nfstune.ui.pages.history_trend import TrendPanel
from nfstune.ui.verdicts import KIND_WORDS, verdict_sentence

COLUMNS = ("Session", "Started", "Status", "Server → client", "Share", "Recipes", "Scale")
SIZED_FROM_ROWS = 100  # the rows the columns' widths are measured on
STATUS_COLOURS = {"completed": "#1b7f2a", "failed": "#b3261e", "cancelled": "#b3261e"}
CAUTION_COLOUR = "#b3261e"
READING = "Reading the stored sessions…"
HINT = "Select a session to see its figures, or two sessions (Ctrl+click) to compare them."
# (what, file suffix, filter of the save dialog)
EXPORTS = {
    "html": ("HTML report", "html", "HTML report (*.html)"),
    "csv": ("CSV", "csv", "CSV (*.csv)"),
    "json": ("JSON", "json", "JSON (*.json)"),
}
DASH = "\u2013"  # an en dash: between the ends of a range, and in a cell with no figure
DETAILS_HEADER = (
    "Configuration",
    "Median",
    f"Min{DASH}max",
    "n",
    "CV",
    "Compared with the baseline",
    "Requested vs negotiated",
)
COMPARISON_HEADER = ("Recipe / workload", "Configuration", "A median", "B median", "B against A", "What it means")
TABLE_STYLE = "border='1' cellspacing='0' cellpadding='4'"

SaveDialog = Callable[[QWidget, str, str, str], tuple[str, str]]


def started_text(started_at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(started_at))


def session_cells(row: SessionRow) -> tuple[str, ...]:
    return (
        str(row.id),
        started_text(row.started_at),
        row.status,
        f"{row.server or '-'} → {row.client or '-'}",
        row.share,
        ", ".join(row.recipes),
        row.scale,
    )


def sort_value(row: SessionRow, cells: tuple[str, ...], column: int) -> int | float | str:
    """What a column sorts by: ids and start times as numbers, the others as their text."""
    return row.id if column == 0 else row.started_at if column == 1 else cells[column]


class SessionTableModel(QAbstractTableModel):
    """The store's sessions, one a row, in the order of the column the view sorts by; read-only.

    The model sorts itself (the view's header calls sort()): a sort proxy asked Python for each row's sort key
    through data(), 147,000 calls and 0.5-0.9 s on the GUI thread for 10,000 sessions (the window froze as History
    opened), where sorting the rows here takes milliseconds. Each sort starts from the store's order (newest
    first), so that rows that tie keep that order whatever was sorted before, as they did under the proxy."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._read: list[tuple[SessionRow, tuple[str, ...]]] = []  # each session and its cells, in the store's order
        self._rows: list[SessionRow] = []  # the rows as shown
        self._cells: list[tuple[str, ...]] = []
        self._sort_column, self._sort_order = -1, Qt.SortOrder.AscendingOrder  # -1: the store's order

    def set_sessions(self, rows: Sequence[SessionRow]) -> None:
        self.beginResetModel()
        # each row's texts made once, not at each data() call: the header's sizing asks them in several roles
        self._read = [(row, session_cells(row)) for row in rows]
        self._arrange()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """What the header asks when it is clicked (and the view when sorting is enabled): the rows in the order
        of `column`, the selection and the current row kept (their persistent indexes follow their rows)."""
        self._sort_column, self._sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        before = self._rows
        self._arrange()
        now = {row.id: number for number, row in enumerate(self._rows)}
        old = self.persistentIndexList()
        new = [self.index(now[before[i.row()].id], i.column()) for i in old]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    def _arrange(self) -> None:
        column, shown = self._sort_column, list(self._read)
        if 0 <= column < len(COLUMNS):  # a stable sort, descending too: rows that tie stay in the store's order
            descending = self._sort_order == Qt.SortOrder.DescendingOrder
            shown.sort(key=lambda read: sort_value(*read, column), reverse=descending)
        self._rows = [row for row, _ in shown]
        self._cells = [cells for _, cells in shown]

    def session_at(self, row: int) -> SessionRow:
        return self._rows[row]

    def sessions(self) -> list[SessionRow]:
        return list(self._rows)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells[index.row()][column]
        if role == Qt.ItemDataRole.ForegroundRole and column == 2 and row.status in STATUS_COLOURS:
            return QColor(STATUS_COLOURS[row.status])
        if role == Qt.ItemDataRole.ToolTipRole and row.message:
            return row.message  # why it failed or was cancelled
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None


def _header_row(names: Sequence[str]) -> str:
    return "<tr>" + "".join(f"<th>{html.escape(n)}</th>" for n in names) + "</tr>"


def _figure(value: float | None, unit: str) -> str:
    return DASH if value is None else f"{format_value(value)} {unit}"


def details_html(row: SessionRow, groups: Sequence[WorkloadResults]) -> str:
    e = html.escape
    parts = [
        f"<h3>Session {row.id}: {e(row.status)}</h3>"
        f"<p>started {e(started_text(row.started_at))}, {e(session_cells(row)[3])}, share {e(row.share)}, "
        f"scale {e(row.scale)}, recipes {e(', '.join(row.recipes))}</p>"
    ]
    if row.message:
        parts.append(f"<p><b>{e(row.message)}</b></p>")
    if not groups:
        parts.append("<p>No measurements were stored for this session.</p>")
    for g in groups:
        better = "higher" if g.higher_is_better else "lower"
        parts.append(
            f"<h4>{e(g.recipe)}: {e(WORKLOADS[g.workload].title)}</h4>"
            f"<p>{e(g.unit)}, {better} is better; compared with "
            f"&ldquo;{e(g.baseline_label)}&rdquo;</p>"
            f"<table {TABLE_STYLE}>{_header_row(DETAILS_HEADER)}"
        )
        for c in g.configs:
            s = c.summary
            options = negotiated_view(c.requested, c.negotiated)
            if c.export_options:
                options += f" · export {','.join(c.export_options)}"
            verdict = _verdict_html(c.verdict, baseline=c.label == g.baseline_label)
            if s is None:
                cells = "<td colspan='4'>no completed repeats</td>"
            else:
                spread = f"{format_value(s.min)}{DASH}{format_value(s.max)}"
                figures = [_figure(s.median, g.unit), spread, str(s.n), f"{s.cv_percent:.1f} %"]
                cells = "".join(f"<td align='right'>{e(f)}</td>" for f in figures)
            label = c.label if c.status in ("completed", None) else f"{c.label} ({c.status})"
            parts.append(f"<tr><td>{e(label)}</td>{cells}<td>{verdict}</td><td>{e(options)}</td></tr>")
        parts.append("</table>")
    return "".join(parts)


def _verdict_html(verdict: Verdict | None, *, baseline: bool) -> str:
    """The kind in words (bold for an effect), then the full sentence: a text view has room for it."""
    if baseline:
        return "baseline"
    if verdict is None:
        return DASH
    kind = html.escape(KIND_WORDS.get(verdict.kind, verdict.kind))
    return f"{f'<b>{kind}</b>' if verdict.effect else kind}: {html.escape(verdict_sentence(verdict))}"


def comparison_html(a: SessionRow, b: SessionRow, rows: Sequence[ComparisonRow]) -> str:
    e = html.escape
    parts = [
        f"<h3>Session {a.id} (A) and session {b.id} (B)</h3>"
        f"<p>A: {e(', '.join(session_cells(a)[1:5]))}<br>B: {e(', '.join(session_cells(b)[1:5]))}</p>"
        f"<table {TABLE_STYLE}>{_header_row(COMPARISON_HEADER)}"
    ]
    for r in rows:
        # the verdict's own estimate in its own words, so that this column and the sentence say one figure
        ratio = r.verdict.ratio if r.verdict is not None else None
        change = DASH if ratio is None else format_change(ratio)
        weight = " style='font-weight:bold'" if r.verdict is not None and r.verdict.effect else ""
        # a side that stopped early compares few rounds, and maybe not the same moment of the hosts
        caution = f"<br><span style='color:{CAUTION_COLOUR}'>{e(r.caution)}: read with care</span>" if r.caution else ""
        parts.append(
            f"<tr><td>{e(r.recipe)} / {e(r.workload)}</td><td>{e(r.config_label)}</td>"
            f"<td align='right'>{e(_figure(r.median_a, r.unit))}</td>"
            f"<td align='right'>{e(_figure(r.median_b, r.unit))}</td><td align='right'>{change}</td>"
            f"<td{weight}>{e(r.text)}{caution}</td></tr>"
        )
    if not rows:
        parts.append("<tr><td colspan='6'>Neither session stored any measurement.</td></tr>")
    return "".join(parts) + "</table>"


# (job name, work, on_done, on_failed): the controller's start_job, on no host
Background = Callable[[str, Callable[[Any], Any], Callable[[Any], None], Callable[[str], None]], object]


class HistoryPage(QWidget):
    report_written = Signal(str)  # an exported report's path (the Results page says it too)
    sessions_shown = Signal()  # the list now holds the sessions a read on a worker thread found

    def __init__(
        self,
        results: Results,
        parent: QWidget | None = None,
        recipes: Mapping[str, Recipe] | None = None,
        *,
        background: Background,
        store_path: Path,
    ) -> None:
        """`recipes`: what a session's baselines, margins and A/A checks are read from (None: each is judged
        without its recipe). `background`: runs the list's reads and the HTML report as jobs (the controller's
        start_job), each reading the store at `store_path` on its own thread with its own connection. The list is
        read when the page is shown, not here: the window builds this page before it shows itself."""
        super().__init__(parent)
        self._results = results
        self._recipes = recipes
        self._background, self._store_path = background, store_path
        self._reading = False  # a read of the list is under way on a worker thread
        self._read_again = False  # a refresh was asked for during it: the store may have changed since it began
        self._reads = 0  # each read's job has a name of its own: the last one's thread may not have ended yet
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
        self.details = QTextBrowser()
        self.details.setOpenLinks(False)
        self.details.setTabChangesFocus(True)
        self.details.setPlainText(HINT)
        self.status = QLabel()
        self.status.setWordWrap(True)

        self.refresh_button = QPushButton("&Refresh")
        self.compare_button = QPushButton("&Compare")
        self.compare_button.setToolTip("Compare the two selected sessions, configuration by configuration")
        self.export_buttons = {
            "html": QPushButton("Export &HTML report…"),
            "csv": QPushButton("Export CS&V…"),
            "json": QPushButton("Export &JSON…"),
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

        sessions_label = QLabel("&Sessions")
        sessions_label.setBuddy(self.table)
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.addTab(self.details, "&Details")
        self.bottom_tabs.addTab(self.trend, "&Trend")
        buttons = QHBoxLayout()
        for button in (self.refresh_button, self.compare_button):
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
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(1, 3)  # the figures need the room; the list scrolls
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        layout.addWidget(self.status)
        tabs = self.bottom_tabs.tabBar()  # Details, Trend: then the page shown
        chain = [
            self.table,
            self.refresh_button,
            self.compare_button,
            *self.export_buttons.values(),
            tabs,
            self.details,
        ]
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    # --- state ----------------------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if not event.spontaneous():  # the History tab opened (not the window brought back from minimised)
            self.refresh()

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

        def work(_job: object) -> list[SessionRow]:  # SQLite connections are per thread: this one is the job's own
            conn = open_store(store_path)
            try:
                return Results(conn).sessions()
            finally:
                conn.close()

        self._reads += 1
        self._background(f"history-read-{self._reads}", work, self._on_sessions_read, self._on_read_failed)

    def _on_sessions_read(self, rows: list[SessionRow]) -> None:
        self._reading = False
        self._show_sessions(rows)
        self.status.setText(f"{len(rows)} sessions, read {time.strftime('%H:%M:%S')}")
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

    def _row(self, session_id: int) -> SessionRow:
        return next(r for r in self.model.sessions() if r.id == session_id)

    # --- slots ----------------------------------------------------------------------------------------------

    @Slot()
    def _on_refresh_clicked(self) -> None:
        self.refresh()  # the status says how many once they are read

    @Slot()
    def _on_selection_changed(self) -> None:
        ids = self.selected_ids()
        self.compare_button.setEnabled(len(ids) == 2)
        for button in self.export_buttons.values():
            button.setEnabled(len(ids) == 1)
        if len(ids) == 1:
            self.trend.follow_session(ids[0])
            groups = summarize_session(self._results.session(ids[0]), self._recipes)
            self.details.setHtml(details_html(self._row(ids[0]), groups))
        elif len(ids) == 2:
            self.details.setPlainText(f"Sessions {ids[0]} and {ids[1]} selected: press Compare (Alt+C).")
        else:
            self.details.setPlainText(HINT if not ids else "Select one session for its figures, two to compare.")

    @Slot()
    def _on_compare_clicked(self) -> None:
        a, b = self.selected_ids()
        rows = compare_sessions(self._results.session(a), self._results.session(b), self._recipes)
        self.details.setHtml(comparison_html(self._row(a), self._row(b), rows))

    @Slot()
    def _on_export_html_clicked(self) -> None:
        (session_id,) = self.selected_ids()
        self.export_html(session_id)

    def export_html(self, session_id: int) -> None:
        """The session's report, where the admin chooses: the same file `nfstune report N --html` writes. Also
        what the Results page's Export button does."""
        recipes, store_path = self._recipes, self._store_path
        chosen = self._ask_path("html", session_id)
        if chosen is None:
            return
        path = chosen

        def work(_job: object) -> None:  # on a worker thread, with its own connection to the store
            conn = open_store(store_path)
            try:
                write_html(Results(conn), session_id, path, recipes)
            except OSError as exc:
                raise NfstuneError(exc.strerror or str(exc)) from None
            finally:
                conn.close()

        self.status.setText(f"Writing {path}…")
        self._background(
            "export-html",
            work,
            lambda _result: self._report_written(path),
            lambda reason: self._export_failed(path, reason),
        )

    def _report_written(self, path: Path) -> None:
        self.status.setText(f"Wrote {path}")
        self.report_written.emit(str(path))

    @Slot()
    def _on_export_csv_clicked(self) -> None:
        self._export("csv", self._results.export_csv)

    @Slot()
    def _on_export_json_clicked(self) -> None:
        # the same document as `nfstune report N --json` (resources/schemas/report.schema.json)
        from nfstune.recipes.loader import recipes_by_id
        from nfstune.report.json_report import report_json

        recipes = self._recipes if self._recipes is not None else recipes_by_id()
        self._export("json", lambda sid, path: path.write_text(report_json(self._results, sid, recipes)))

    def _ask_path(self, kind: str, session_id: int) -> Path | None:
        """Where to write the session; None when the admin cancelled the dialog."""
        what, suffix, file_filter = EXPORTS[kind]
        suggested = str(Path.home() / f"nfstune-session-{session_id}.{suffix}")
        chosen, _ = self.ask_save_path(self, f"Export session {session_id} as {what}", suggested, file_filter)
        return Path(chosen) if chosen else None

    def _export(self, kind: str, write: Callable[[int, Path], None]) -> None:
        """The selected session's CSV or JSON, written here on the GUI thread."""
        (session_id,) = self.selected_ids()
        path = self._ask_path(kind, session_id)
        if path is None:
            return
        try:
            write(session_id, path)
        except OSError as exc:  # a known environment error: say which file and why; anything else is a bug
            self._export_failed(path, exc.strerror or str(exc))
            return
        self.status.setText(f"Wrote {path}")

    def _export_failed(self, path: Path, reason: str) -> None:
        self.status.setText(f"Export failed: {path}")
        if reason != CRASHED:  # a bug: the crash dialog shows it
            QMessageBox.critical(self, "Export failed", f"Could not write {path}:\n{reason}")
