"""One host on the Preflight page as a card, after GNOME Disks' drive panel: the host's role and name in large type,
the host in one line, then a few labelled facts by group. It only draws a session.preflight_cards.HostCard."""

from __future__ import annotations

import html
from collections.abc import Collection

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from nfstune.session.preflight_cards import HostCard
from nfstune.ui.tint import tint
from nfstune.ui.widgets.labels import wrapped_label

# a pale amber behind dark text: legible in light and dark themes alike, since both colours are set (one look in
# both schemes: not tinted)
HIGHLIGHT_BACKGROUND, HIGHLIGHT_TEXT = QColor("#ffe9a8"), QColor("#3d2e00")


class HostCardView(QFrame):
    """A framed panel on the palette's Base colour (white in light, near black in dark), so that it stands out
    from the window in either scheme without a colour of its own."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        # both cards share the row alike and are as tall as the taller; a long value wraps rather than widening
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.rows: dict[str, QLabel] = {}  # fact label -> the label showing its value, as drawn now
        self.title = QLabel()
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.summary = _muted(wrapped_label(rich=True))
        self.note = wrapped_label()
        self._grid = QGridLayout()
        self._grid.setHorizontalSpacing(12)
        self._grid.setVerticalSpacing(4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 16)
        for widget in (self.title, self.summary, self.note):
            layout.addWidget(widget)
        layout.addLayout(self._grid)
        layout.addStretch(1)

    def show_card(self, card: HostCard, flagged: Collection[str] = ()) -> None:
        """`flagged`: the facts that disagree with the other host (the MTU), drawn highlighted."""
        self.setAccessibleName(card.title)
        self.title.setText(card.title)
        # each part whole on its line: Qt breaks a line after any hyphen, even inside <nobr>, and a kernel's
        # name cut at "6.1.0-56-" reads as two words; non-breaking hyphens (U+2011) keep it together
        parts = (html.escape(part).replace(" ", "&nbsp;").replace("-", "\u2011") for part in card.summary)
        self.summary.setText(" \u00b7 ".join(parts))
        self.summary.setAccessibleName(" \u00b7 ".join(card.summary))  # the words as written, for reading aloud
        self.summary.setVisible(bool(card.summary))
        self.note.setText(card.note or "")
        self.note.setVisible(card.note is not None)
        while self._grid.count():
            item = self._grid.takeAt(0)
            if widget := item.widget():
                widget.hide()
                widget.deleteLater()
        self.rows.clear()
        row = 0
        # one grid for every group: the labels line up down the whole card, as in GNOME Disks
        for group, facts in card.groups:
            heading = QLabel(group)
            font = heading.font()
            font.setBold(True)
            heading.setFont(font)
            if row:
                self._grid.setRowMinimumHeight(row, 8)  # a gap between groups
                row += 1
            self._grid.addWidget(heading, row, 0, 1, 2)
            row += 1
            for label, value in facts:
                name = _muted(QLabel(label))
                name.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
                shown = wrapped_label(value)
                shown.setAccessibleName(f"{group}, {label}")
                self.rows[label] = shown
                self._grid.addWidget(name, row, 0)
                if label in flagged:  # amber behind the value alone, not across the card
                    _highlight(shown)
                    self._grid.addWidget(shown, row, 1, Qt.AlignmentFlag.AlignLeft)
                else:
                    self._grid.addWidget(shown, row, 1)
                row += 1
        self._grid.setColumnStretch(1, 1)


def _muted(label: QLabel) -> QLabel:
    tint(label, "muted")
    return label


def _highlight(label: QLabel) -> None:
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.Window, HIGHLIGHT_BACKGROUND)
    palette.setColor(QPalette.ColorRole.WindowText, HIGHLIGHT_TEXT)
    label.setPalette(palette)
    # its own roles, not the card's Base and Text that a child otherwise inherits
    label.setBackgroundRole(QPalette.ColorRole.Window)
    label.setForegroundRole(QPalette.ColorRole.WindowText)
    label.setAutoFillBackground(True)
    label.setToolTip("Differs from the other host's MTU: see the problem above")
