"""Text coloured by what it means ("good", "bad", "warning", "muted": theme.TEXT_COLOURS), kept right while the
app runs: the desktop may switch between light and dark at any time, and a colour chosen once would then be the
other scheme's (dark red on dark grey). Three forms, one trigger (the application's palette changing):

- tint(widget, meaning): a label's text in the meaning's colour, now and after every switch;
- tint_item(item, meaning) in a table given follow_items(table): a table cell's, the same;
- on_scheme_change(widget, redraw): a widget whose rich text embeds colours (a verdict's words, a caution) draws
  it again, for its lifetime. A model asks text_colour() in data() and signals dataChanged from such a redraw.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem, QWidget

from nfstune.ui.theme import is_dark, text_colour

MEANING_ROLE = Qt.ItemDataRole.UserRole + 40  # a table cell's meaning, which follow_items colours it by
_CHANGES = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)
_TEXT_ROLES = (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text)  # a label on a card paints with Text


class _Follower(QObject):
    """Calls its redraws when the scheme changes. Qt tells a window of the application's new palette
    (ApplicationPaletteChange, posted) and each widget in it as its own palette follows (PaletteChange); a widget's
    own setPalette sends PaletteChange too, so the redraws run only when light turned dark or back, never for the
    palette a redraw sets itself. A child of the widget: it dies with it."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.setObjectName("scheme-follower")
        self.redraws: list[Callable[[], None]] = []
        self.meaning: str | None = None  # tint()'s, when it tints this widget
        self.dark = is_dark()
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() in _CHANGES and is_dark() != self.dark:
            self.dark = is_dark()
            for redraw in list(self.redraws):
                redraw()
        return False


def _follower(widget: QWidget) -> _Follower:
    found = widget.findChild(_Follower, "scheme-follower", Qt.FindChildOption.FindDirectChildrenOnly)
    return found if isinstance(found, _Follower) else _Follower(widget)


def on_scheme_change(widget: QWidget, redraw: Callable[[], None]) -> None:
    """`redraw` called whenever the scheme (the application's palette) changes, while `widget` lives."""
    _follower(widget).redraws.append(redraw)


def tint(widget: QWidget, meaning: str | None) -> None:
    """The widget's text in `meaning`'s colour for the scheme now, and again after each switch; None: the
    palette's own text colour again."""
    follower = _follower(widget)
    if follower.meaning is None and meaning is not None:
        follower.redraws.append(lambda: _paint(widget, follower.meaning))
    follower.meaning = meaning
    _paint(widget, meaning)


def _paint(widget: QWidget, meaning: str | None) -> None:
    # a tinted widget sets no other colour of its own: a palette with no role set follows the window's again
    palette = QPalette()
    if meaning is not None:
        for role in _TEXT_ROLES:
            palette.setColor(role, text_colour(meaning))
    widget.setPalette(palette)


def tint_item(item: QTableWidgetItem, meaning: str | None) -> QTableWidgetItem:
    """A table cell's text in `meaning`'s colour (None: the table's text colour); kept right by follow_items."""
    item.setData(MEANING_ROLE, meaning)
    item.setForeground(text_colour(meaning) if meaning else QBrush())
    return item


def follow_items(table: QTableWidget) -> None:
    """The table's tinted cells coloured again after each switch (once per table, however often it is asked)."""
    if table.property("follows-scheme"):
        return
    table.setProperty("follows-scheme", True)

    def recolour() -> None:
        for row in range(table.rowCount()):
            for column in range(table.columnCount()):
                item = table.item(row, column)
                meaning = item.data(MEANING_ROLE) if item is not None else None
                if item is not None and meaning:
                    item.setForeground(text_colour(meaning))

    on_scheme_change(table, recolour)
