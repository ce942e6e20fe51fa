"""The application's icon and desktop file name: what a desktop uses to show the window with its menu entry's
icon (the Wayland app id, X11's _NET_WM_ICON)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QMainWindow

from nfstune import paths
from nfstune.ui.app import application

PREMULTIPLIED = QImage.Format.Format_ARGB32_Premultiplied


def test_the_application_carries_the_icon_of_every_size_and_the_entry_name() -> None:
    app = application()
    assert app.desktopFileName() == "io.github.nfstune.nfstune"
    sizes = {(s.width(), s.height()) for s in app.windowIcon().availableSizes()}
    assert sizes == {(n, n) for n in (16, 24, 32, 48, 64, 128, 256)}
    window = QMainWindow()
    # a window without an icon of its own shows the application's; 16 px is drawn, not scaled from 256
    shown = window.windowIcon().pixmap(QSize(16, 16)).toImage().convertToFormat(PREMULTIPLIED)
    drawn = QImage(str(paths.icons_dir() / "16x16" / "apps" / "nfstune.png")).convertToFormat(PREMULTIPLIED)
    scaled = QImage(str(paths.icons_dir() / "256x256" / "apps" / "nfstune.png")).scaled(16, 16)
    assert shown == drawn and shown != scaled.convertToFormat(PREMULTIPLIED)
    window.deleteLater()
