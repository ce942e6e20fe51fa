"""Where a top-level window goes on the screen it opens on: the size it wishes for (or the one saved when it last
closed), but never more than the screen's available area (what panels and docks leave), and never off it. A
1024x700 screen gets a window that fits it whole, not a 1280 px one whose right part is past the screen's edge."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

# the window manager's frame (title bar, borders): Qt learns it only once the window is mapped, so before that a
# usual one is kept free, or a window exactly the screen's size would have its title bar (or bottom) off screen
FRAME_GUESS = QMargins(4, 32, 4, 4)


def fitted(wanted: QRect, available: QRect, frame: QMargins) -> QRect:
    """`wanted` (a window's own geometry, its frame left out) shrunk so that it fits `available` with its frame,
    then moved so that the frame lies inside `available`."""
    width = min(wanted.width(), available.width() - frame.left() - frame.right())
    height = min(wanted.height(), available.height() - frame.top() - frame.bottom())
    outer = QRect(wanted.topLeft(), QSize(width, height)).marginsAdded(frame)
    outer.moveLeft(max(available.left(), min(outer.left(), available.right() + 1 - outer.width())))
    outer.moveTop(max(available.top(), min(outer.top(), available.bottom() + 1 - outer.height())))
    return outer.marginsRemoved(frame)


def centred(size: QSize, available: QRect, frame: QMargins) -> QRect:
    """A window of `size` (or less, to fit) in the middle of `available`."""
    rect = QRect(available.topLeft(), size)
    rect.moveCenter(available.center())
    return fitted(rect, available, frame)


def frame_margins(window: QWidget) -> QMargins:
    """The frame the window manager puts around `window`, or FRAME_GUESS while it is not known."""
    outer, inner = window.frameGeometry(), window.geometry()
    if outer == inner:
        return FRAME_GUESS
    return QMargins(
        inner.left() - outer.left(),
        inner.top() - outer.top(),
        outer.right() - inner.right(),
        outer.bottom() - inner.bottom(),
    )


def fit_on_screen(window: QWidget, wished: QSize, restored: bool) -> None:
    """Size and place `window` before it is shown: centred at `wished` (less on a smaller screen), or, when its
    geometry was `restored` from the last session, that geometry brought inside the screen it falls on (the
    primary one when it falls on none: a monitor since unplugged, a smaller resolution)."""
    if restored and window.windowState() & (Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen):
        return  # the window manager fits a maximised window itself
    screen = (QGuiApplication.screenAt(window.geometry().center()) if restored else None) or window.screen()
    if screen is None:  # no screen at all (never under a real platform): leave Qt's own size
        window.resize(wished)
        return
    available = screen.availableGeometry()
    frame = frame_margins(window)
    window.setGeometry(fitted(window.geometry(), available, frame) if restored else centred(wished, available, frame))
