"""The question asked when a host offers a key no known_hosts file holds: its SHA256 fingerprint on a line of its
own, in a fixed-width font and never wrapped (a base64 fingerprint broken at a '/' cannot be compared by eye with
what `ssh-keygen -lf` prints on the host)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QStyle, QVBoxLayout, QWidget


class HostKeyDialog(QDialog):
    """Yes (accepted): trust the key and remember it. No, the default: do not log in."""

    def __init__(self, parent: QWidget | None, label: str, key_type: str, fingerprint: str) -> None:
        super().__init__(parent)
        self.setWindowTitle("Unknown host key")
        icon = QLabel()
        icon.setPixmap(self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxQuestion).pixmap(48, 48))
        question = QLabel(f"{label} offers a host key nfstune has not seen before.", wordWrap=True)
        question.setTextFormat(Qt.TextFormat.PlainText)
        kind = QLabel(f"{key_type} key, fingerprint:", textFormat=Qt.TextFormat.PlainText)
        self.fingerprint = QLabel(fingerprint, textFormat=Qt.TextFormat.PlainText)
        self.fingerprint.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.fingerprint.setWordWrap(False)
        self.fingerprint.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.fingerprint.setAccessibleName("The host key's SHA256 fingerprint")
        compare = QLabel(
            "Compare it with the fingerprint on the host itself (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub). "
            "Trust it and remember it?",
            wordWrap=True,
            textFormat=Qt.TextFormat.PlainText,
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Yes | QDialogButtonBox.StandardButton.No)
        self.yes = buttons.button(QDialogButtonBox.StandardButton.Yes)
        self.no = buttons.button(QDialogButtonBox.StandardButton.No)
        self.no.setDefault(True)  # Enter does not trust a key unread
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        text = QVBoxLayout()
        for widget in (question, kind, self.fingerprint, compare):
            text.addWidget(widget)
        row = QHBoxLayout()
        row.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addLayout(text, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(buttons)
        # wide enough for the fingerprint on one line, however the window manager sizes dialogs
        self.setMinimumWidth(self.fingerprint.sizeHint().width() + icon.sizeHint().width() + 60)
