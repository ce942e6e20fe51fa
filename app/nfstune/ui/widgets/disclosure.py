"""A "Details" disclosure: a flat arrow button that shows or hides what is under it, closed to begin with (the long
sentences a page keeps for whoever asks, as GNOME Disks keeps a drive's details). Every page's toggle is this one:
the Recommendation page's notes and cards, the Run page's log, the Results and History pages' words behind their
pictures, a failed host's technical text on the Connect page."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget


class Disclosure(QWidget):
    """`add` puts a widget under the button, indented past its arrow; `shows` is a part the page lays out elsewhere
    (the Run page's log sits in a splitter above its button) that opens and closes with it. `names`: what a screen
    reader says of the button, one name, or one while closed and one while open ("Show the run log", "Hide ...");
    by default its text. `framed`: a button's frame, for one that stands beside push buttons (Connect's Retry)."""

    toggled = Signal(bool)  # after the parts are shown or hidden

    def __init__(
        self,
        text: str,
        parent: QWidget | None = None,
        *,
        shows: QWidget | None = None,
        names: str | tuple[str, str] = "",
        framed: bool = False,
    ) -> None:
        super().__init__(parent)
        self.button = QToolButton(text=text, checkable=True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setArrowType(Qt.ArrowType.RightArrow)
        self.button.setAutoRaise(not framed)
        self.button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # Tab reaches it, Space opens it
        self._names = (names, names) if isinstance(names, str) else names
        self._shows = shows
        if shows is not None:
            shows.hide()
        self.body = QWidget()
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.setContentsMargins(22, 0, 0, 0)  # under the text, past the arrow
        self.body.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.body)
        self._name(False)
        self.button.toggled.connect(self._on_toggled)

    def add(self, widget: QWidget) -> None:
        self.body_layout.addWidget(widget)

    def set_open(self, shown: bool) -> None:
        self.button.setChecked(shown)

    def is_open(self) -> bool:
        return self.button.isChecked()

    def _name(self, shown: bool) -> None:
        if name := self._names[1 if shown else 0]:
            self.button.setAccessibleName(name)

    @Slot(bool)
    def _on_toggled(self, shown: bool) -> None:
        self.button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self._name(shown)
        self.body.setVisible(shown and self.body_layout.count() > 0)  # nothing added: no empty line under it
        if self._shows is not None:
            self._shows.setVisible(shown)
        self.toggled.emit(shown)
