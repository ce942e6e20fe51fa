"""Names for the buttons Qt makes itself without a text: a screen reader (and a test walking every button) then
says what they do instead of "button"."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractButton, QWidget

QT_BUTTON_NAMES = {
    "qt_tableview_cornerbutton": "Select all",  # a table's top-left corner: selects every cell
    "qt_menubar_ext_button": "More menus",  # the menu bar's », shown when its menus do not fit the window
}


def name_qt_buttons(root: QWidget) -> None:
    """Every button Qt made inside `root` (it makes them with its widgets: call this once those exist) that has
    neither text nor accessible name gets the name of what it does."""
    for button in root.findChildren(QAbstractButton):
        name = QT_BUTTON_NAMES.get(button.objectName())
        if name is not None and not button.text() and not button.accessibleName():
            button.setAccessibleName(name)
