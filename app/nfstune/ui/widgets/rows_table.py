"""A read-only table that shows all its rows, with wrapped text, for the scrolled pages (Recipes, Results)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QWidget

from nfstune.ui.widgets.accessible import name_qt_buttons


class RowsTable(QTableWidget):
    """A read-only table inside a scrolled page that shows every row (the page scrolls, not the table), with
    wrapped text: rows follow their text as the columns settle, and the table's height follows its rows. The
    columns named in `stretch` share the width left over; the others fit their contents.

    With `min_stretch` (px), the stretched columns never get narrower than that: when the table's width cannot
    hold them and the others' contents, it scrolls sideways instead of cutting text."""

    def __init__(
        self,
        header: Sequence[str],
        stretch: Sequence[str],
        parent: QWidget | None = None,
        *,
        min_stretch: int | None = None,
    ) -> None:
        super().__init__(0, len(header), parent)
        self.setHorizontalHeaderLabels(list(header))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setTabKeyNavigation(False)  # Tab leaves the table; the arrows move within it
        self.setWordWrap(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._min_stretch = min_stretch
        self._stretched = [column for column, name in enumerate(header) if name in stretch]
        sideways = Qt.ScrollBarPolicy.ScrollBarAsNeeded if min_stretch else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        self.setHorizontalScrollBarPolicy(sideways)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        rows = self.verticalHeader()
        rows.setVisible(False)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        columns = self.horizontalHeader()
        # with a floor, the stretched columns are sized here (Stretch would squeeze them to fit the viewport)
        stretch_mode = QHeaderView.ResizeMode.Fixed if min_stretch else QHeaderView.ResizeMode.Stretch
        for column in range(len(header)):
            mode = stretch_mode if column in self._stretched else QHeaderView.ResizeMode.ResizeToContents
            columns.setSectionResizeMode(column, mode)
        columns.setStretchLastSection(False)
        rows.sectionResized.connect(self._on_section_resized)
        columns.sectionResized.connect(self._on_section_resized)
        name_qt_buttons(self)  # the Results page makes its tables after the window has named its own

    def fit_height(self) -> None:
        height = self.horizontalHeader().sizeHint().height() + self.verticalHeader().length()
        if self._min_stretch and self.horizontalHeader().length() > self.viewport().width():
            height += self.horizontalScrollBar().sizeHint().height()  # the sideways scrollbar shows
        self.setFixedHeight(height + 2 * self.frameWidth())

    def natural_width(self) -> int:
        """The width that shows every column whole without scrolling (the stretched ones at their floor)."""
        columns = self.horizontalHeader()
        widths = [
            (self._min_stretch or 0)
            if c in self._stretched
            else max(self.sizeHintForColumn(c), columns.sectionSizeHint(c))
            for c in range(self.columnCount())
        ]
        return sum(widths) + 2 * self.frameWidth()

    def fit_columns(self) -> None:
        """The stretched columns share what the others leave of the viewport, each at least `min_stretch`."""
        if not self._min_stretch or not self._stretched:
            return
        columns = self.horizontalHeader()
        others = sum(columns.sectionSize(c) for c in range(self.columnCount()) if c not in self._stretched)
        share = (self.viewport().width() - others) // len(self._stretched)
        for column in self._stretched:
            columns.resizeSection(column, max(self._min_stretch, share))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit_columns()
        self.fit_height()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self.fit_columns()
        self.fit_height()  # the rows' heights are only known once the columns have their widths

    @Slot(int, int, int)
    def _on_section_resized(self, _section: int, _old: int, _new: int) -> None:
        self.fit_height()
