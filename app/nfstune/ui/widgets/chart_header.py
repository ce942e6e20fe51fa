"""The row above a live chart: its title, then a swatch and a name for each line it draws (the series, then the
ceilings with their figures), wrapped onto as many lines as the width needs. It sits in the chart's layout, not in
its view, so that no word is ever drawn over the data, and it gives the view all the height it does not use."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QRectF
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsSimpleTextItem, QSizePolicy

from nfstune.ui.widgets.static_plot import TEXT_COLOR

FONT_PT = 9
SWATCH_PX = 18  # the length of a key's stroke: long enough to show a dash
INSET_PX = 6  # from the chart's left edge
SWATCH_GAP_PX = 4  # between a key's stroke and its words
ENTRY_GAP_PX = 14  # between two keys (and after the title)
LINE_GAP_PX = 1


@dataclass(eq=False)
class HeaderEntry:
    """One key: `text` is its words (what `LegendItem.items` gave as `label.text`)."""

    text: str
    pen: QPen
    colour: str
    sample: QGraphicsLineItem = field(init=False)
    label: QGraphicsSimpleTextItem = field(init=False)


class ChartHeader(pg.GraphicsWidget):
    def __init__(self, title: str, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self.font = QFont()
        self.font.setPointSizeF(FONT_PT)
        bold = QFont(self.font)
        bold.setBold(True)
        self.title = QGraphicsSimpleTextItem(title, self)
        self.title.setFont(bold)
        self.title.setBrush(QBrush(QColor(TEXT_COLOR)))
        self._series: dict[object, HeaderEntry] = {}
        self._ceilings: dict[object, HeaderEntry] = {}
        self._height = 0
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(0)
        self._arrange()

    @property
    def entries(self) -> list[HeaderEntry]:
        """The keys in the order shown: the series, then the ceilings."""
        return [*self._series.values(), *self._ceilings.values()]

    @property
    def items(self) -> list[tuple[QGraphicsLineItem, HeaderEntry]]:
        """(stroke, entry) for every key, as pyqtgraph's LegendItem.items."""
        return [(entry.sample, entry) for entry in self.entries]

    def add_series(self, key: object, text: str, pen: QPen) -> None:
        self._put(self._series, key, HeaderEntry(text, pen, TEXT_COLOR))

    def set_ceiling(self, key: object, text: str | None, pen: QPen, colour: str) -> None:
        """A ceiling's key, in the line's colour and dash; text None removes it."""
        if text is None:
            self.remove(key)
        else:
            self._put(self._ceilings, key, HeaderEntry(text, pen, colour))

    def remove(self, key: object) -> None:
        for entries in (self._series, self._ceilings):
            entry = entries.pop(key, None)
            if entry is not None:
                for item in (entry.sample, entry.label):
                    item.setParentItem(None)
                    if item.scene() is not None:
                        item.scene().removeItem(item)
        self._arrange()

    def _put(self, entries: dict[object, HeaderEntry], key: object, entry: HeaderEntry) -> None:
        if key in entries:
            self.remove(key)
        entry.sample = QGraphicsLineItem(self)
        entry.sample.setPen(entry.pen)
        entry.label = QGraphicsSimpleTextItem(entry.text, self)
        entry.label.setFont(self.font)
        entry.label.setBrush(QBrush(QColor(entry.colour)))
        entries[key] = entry
        self._arrange()

    def resizeEvent(self, event: object) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._arrange()

    def _arrange(self) -> None:
        """Title, then each key whole (stroke and words together) where it fits on the line, else on the next; a
        key wider than the whole row is cut short with an ellipsis. Then the row's height follows."""
        metrics = QFontMetrics(self.font)
        line_h = max(metrics.height(), QFontMetrics(self.title.font()).height()) + LINE_GAP_PX
        width = self.size().width() - INSET_PX
        self.title.setPos(INSET_PX, 0)
        x = self.title.boundingRect().width() + ENTRY_GAP_PX
        y = 0.0
        for entry in self.entries:
            room = max(10.0, width - SWATCH_PX - SWATCH_GAP_PX)
            entry.label.setText(metrics.elidedText(entry.text, pg.QtCore.Qt.TextElideMode.ElideRight, int(room)))
            need = SWATCH_PX + SWATCH_GAP_PX + entry.label.boundingRect().width()
            if x > 0 and x + need > width:
                x, y = 0.0, y + line_h
            mid = y + line_h / 2
            entry.sample.setLine(QLineF(INSET_PX + x, mid, INSET_PX + x + SWATCH_PX, mid))
            entry.label.setPos(INSET_PX + x + SWATCH_PX + SWATCH_GAP_PX, y + (line_h - metrics.height()) / 2)
            x += need + ENTRY_GAP_PX
        height = int(y + line_h + 2)
        if height != self._height:
            self._height = height
            self.setMinimumHeight(height)
            self.setMaximumHeight(height)
            self.setPreferredHeight(height)

    def text_rects(self) -> list[QRectF]:
        """The scene rectangles of the title and every key (stroke and words): what must never cover the data."""
        rects = [self.title.sceneBoundingRect()]
        for entry in self.entries:
            rects.append(entry.sample.sceneBoundingRect().united(entry.label.sceneBoundingRect()))
        return rects
