"""One file of the recommendation as a card, after GNOME Disks' panels: the file and host in large type, the line in
large monospace, what changes in it (async → sync, and the line as it was), each option's reason in a few words,
and the full sentences behind Details. It only draws what advice.decision makes of a Recommendation."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QPalette
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from nfstune.advice.decision import Change, ShortReason
from nfstune.ui.theme import text_colour
from nfstune.ui.tint import on_scheme_change, tint
from nfstune.ui.widgets.disclosure import Disclosure
from nfstune.ui.widgets.labels import wrapped_label
from nfstune.words import count

DETAILS = "Details: every reason in full, with what was measured"
ARROW, MINUS = "\u2192", "\u2212"
LONG_OPTION = 36  # characters: a reason's name longer than this would squeeze every reason's words beside it


def line_label(*, scale: float = 1.0, framed: bool = True) -> QLabel:
    """A configuration line: monospace, selectable by mouse and keyboard, wrapped rather than cut; `framed`, on the
    window's colour in a panel, so that it stands out from a card in light and dark alike."""
    label = QLabel()
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSizeF(font.pointSizeF() * scale)
    label.setFont(font)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
    )
    label.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # reachable with Tab, to select and copy from the keyboard
    label.setWordWrap(True)
    if framed:
        label.setFrameShape(QFrame.Shape.StyledPanel)
        label.setAutoFillBackground(True)
        label.setBackgroundRole(QPalette.ColorRole.Window)
        label.setForegroundRole(QPalette.ColorRole.WindowText)
        label.setMargin(8)
    return label


def status_words(before: str | None, changes: Sequence[Change]) -> str:
    if before is None:
        return "new line"
    if not changes:
        return "no change"
    return f"{count(len(changes), 'option')} changed"


class FileCard(QFrame):
    """A framed panel on the palette's Base colour (white in light, near black in dark), as Preflight's host cards."""

    def __init__(self, extra: QWidget | None = None, parent: QWidget | None = None) -> None:
        """`extra`: a row drawn under the line (the fstab card's mount point chooser)."""
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # wraps, never widens
        self._shown: tuple[str | None, Sequence[Change], Sequence[ShortReason]] = (None, (), ())
        self._title = QLabel()
        font = self._title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self._title.setFont(font)
        self._title.setWordWrap(True)
        self.status = QLabel()
        head = QHBoxLayout()
        head.addWidget(self._title, 1)
        head.addWidget(self.status, 0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.line = line_label(scale=1.15)
        self.changes = wrapped_label(rich=True)
        self.was = line_label(framed=False)
        tint(self.was, "muted")
        self.was.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # the line itself is the Tab stop
        self._grid = QGridLayout()
        self._grid.setHorizontalSpacing(16)
        self._grid.setVerticalSpacing(4)
        self._grid.setColumnStretch(1, 1)
        self.state = wrapped_label()  # the whole sentence of what the line is (the admin's entry, a new line)
        self.reasons = wrapped_label(rich=True)
        self.details = Disclosure(DETAILS)
        self.details.add(self.state)
        self.details.add(self.reasons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addLayout(head)
        layout.addWidget(self.line)
        layout.addWidget(self.changes)
        layout.addWidget(self.was)
        if extra is not None:
            layout.addWidget(extra)
        layout.addLayout(self._grid)
        layout.addWidget(self.details)
        on_scheme_change(self, self.restyle)

    def title(self) -> str:
        return self._title.text()

    def show_file(
        self,
        title: str,
        line: str,
        before: str | None,
        changes: Sequence[Change],
        rows: Sequence[ShortReason],
        *,
        state: str,
        reasons_html: str,
    ) -> None:
        self.setAccessibleName(title)
        self._title.setText(title)
        self.line.setText(line)
        self.state.setText(state)
        self.reasons.setText(reasons_html)
        self.was.setText(f"was: {before}" if before is not None else "")
        self.was.setVisible(bool(changes))
        self._shown = (before, changes, rows)
        self.restyle()

    def restyle(self) -> None:
        """Draw the parts whose colours come from the scheme: again when it switches."""
        before, changes, rows = self._shown
        e = html.escape
        muted, good = (text_colour(m).name() for m in ("muted", "good"))
        self.status.setText(f"<span style='color: {muted}'>{e(status_words(before, changes))}</span>")
        shown = []
        for change in changes:
            old = f"<s style='color: {muted}'>{e(','.join(change.old))}</s>" if change.old else ""
            new = f"<b style='color: {good}'>{e(','.join(change.new))}</b>" if change.new else ""
            where = f"{e(change.client)}: " if change.client else ""
            shown.append(where + (f"{old} {ARROW} {new}" if old and new else (f"+ {new}" if new else f"{MINUS} {old}")))
        self.changes.setText("<b>Changes:</b> " + " &nbsp;\u00b7&nbsp; ".join(shown))
        self.changes.setVisible(bool(changes))
        while self._grid.count():
            item = self._grid.takeAt(0)
            if widget := item.widget():
                widget.hide()
                widget.deleteLater()
        row = 0
        for reason in rows:
            long = len(reason.option) > LONG_OPTION
            option = (
                wrapped_label(f"<b>{e(reason.option)}</b>", rich=True) if long else QLabel(f"<b>{e(reason.option)}</b>")
            )
            words = wrapped_label(f"Risk: {reason.words}" if reason.risk else reason.words)
            if reason.risk:
                tint(words, "bad")
            if long:  # a whole fstab entry: on a line of its own, its words under it
                self._grid.addWidget(option, row, 0, 1, 2)
                row += 1
            else:
                self._grid.addWidget(option, row, 0, Qt.AlignmentFlag.AlignTop)
            self._grid.addWidget(words, row, 1)
            row += 1
