"""History's list of sessions: a row per stored session (store.SessionRow, as Results.sessions reads them on a
worker thread) in a read-only model that sorts itself."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QTableView, QWidget

from nfstune.store import SessionRow
from nfstune.ui.theme import text_colour

COLUMNS = ("Session", "Started", "Status", "Server → client", "Share", "Recipes", "Scale")
SIZED_FROM_ROWS = 100  # the rows the columns' widths are measured on
STATUS_MEANINGS = {"completed": "good", "failed": "bad", "cancelled": "bad"}  # theme.TEXT_COLOURS: by scheme


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

    def scheme_changed(self) -> None:
        """The statuses' colours are asked in data(): the view asks again."""
        if self._rows:
            status = COLUMNS.index("Status")
            last = self.index(len(self._rows) - 1, status)
            self.dataChanged.emit(self.index(0, status), last, [Qt.ItemDataRole.ForegroundRole])

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
        # asked as the view paints: the scheme's colour now (scheme_changed has it painted again on a switch)
        if role == Qt.ItemDataRole.ForegroundRole and column == 2 and row.status in STATUS_MEANINGS:
            return text_colour(STATUS_MEANINGS[row.status])
        if role == Qt.ItemDataRole.ToolTipRole and row.message:
            return row.message  # why it failed or was cancelled
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None


def rows_height(table: QTableView, rows: int) -> int:
    """The height that shows the header and `rows` whole rows of the table, at its font and style."""
    frame = 2 * table.frameWidth()
    return frame + table.horizontalHeader().sizeHint().height() + rows * table.verticalHeader().defaultSectionSize()
