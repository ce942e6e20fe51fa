"""The child process of test_first_window_xvfb.py: the main window as a new user first sees it, in a real X window
(DISPLAY set, QT_QPA_PLATFORM=xcb), with a new settings file and an empty store. Prints what it found as one JSON
line, and writes screenshots into FOLDER:

    DISPLAY=:N QT_QPA_PLATFORM=xcb python -m tests.ui.first_window_child FOLDER

What "whole" means here (`cut`): a widget is cut when some part of it lies outside one of its ancestors up to the
window (a splitter, a stacked page, the window itself) or outside the screen's available area, or when it is
smaller than the size its text needs (a word-wrapped label shorter than its text's height at its width, a button
or an unwrapped label narrower than its text). Inside a scroll area, a widget past the viewport's edge counts as
whole when the area scrolls that way: it can be scrolled to. A line edit's hint (its placeholder) that does not
fit counts as whole when its tooltip says it.
A fresh interpreter of its own: pytest-qt's QApplication in the test process is on the offscreen platform."""

from __future__ import annotations

import json
import socket
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QWidget,
)

from nfstune.ui.app import application
from nfstune.ui.main_window import STEPS, MainWindow

CHECKED = (QLabel, QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QAbstractItemView, QGroupBox)
OFF = Qt.ScrollBarPolicy.ScrollBarAlwaysOff


def name(widget: QWidget) -> str:
    said = widget.accessibleName() or getattr(widget, "text", lambda: "")() or widget.objectName()
    return f"{type(widget).__name__} {said[:50]!r}"


def rect_of(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def too_small(widget: QWidget) -> str | None:
    """Whether `widget` is smaller than its text needs (None: it is not)."""
    size, hint = widget.size(), widget.sizeHint()
    if isinstance(widget, QLabel) and widget.wordWrap():
        needed = widget.heightForWidth(widget.width())
        return f"{size.height()} px high, its text needs {needed}" if size.height() < needed else None
    if isinstance(widget, QLabel | QAbstractButton):
        return (
            f"{size.width()}x{size.height()}, its text needs {hint.width()}x{hint.height()}"
            if (size.width() < hint.width() or size.height() < hint.height())
            else None
        )
    if isinstance(widget, QLineEdit) and not widget.text() and widget.placeholderText():
        room = widget.width() - 12  # the frame and the text margins
        hint_width = widget.fontMetrics().horizontalAdvance(widget.placeholderText())
        if hint_width > room and widget.toolTip() != widget.placeholderText():
            return f"its hint needs {hint_width} px, {room} shown, and no tooltip says it"
    if isinstance(widget, QAbstractItemView):
        return None  # a view scrolls its items; the Recipes page's table is as high as its rows (RowsTable)
    least = widget.minimumSizeHint()
    if size.width() < least.width() or size.height() < least.height():
        return f"{size.width()}x{size.height()}, at least {least.width()}x{least.height()} needed"
    return None


def cut(widget: QWidget, window: QWidget) -> str | None:
    """Why `widget` is not whole in `window` (None: it is)."""
    if not widget.isVisibleTo(window):
        return "not shown"
    small = too_small(widget)
    if small:
        return small
    rect, child = widget.rect(), widget
    while child is not window:
        parent = child.parentWidget()
        rect = rect.translated(child.pos())  # in the parent's coordinates
        area = parent.parentWidget()
        if isinstance(area, QAbstractScrollArea) and parent is area.viewport():
            inside = parent.rect()
            sideways = rect.left() < inside.left() or rect.right() > inside.right()
            down = rect.top() < inside.top() or rect.bottom() > inside.bottom()
            stuck = (sideways and area.horizontalScrollBarPolicy() == OFF) or (
                down and area.verticalScrollBarPolicy() == OFF
            )
            if stuck:
                return f"cut by {name(area)}, which does not scroll that way"
            rect = inside  # reachable by scrolling: what must show whole further up is the viewport
        elif not parent.rect().contains(rect):
            return f"at {rect_of(rect)} in {name(parent)} of {rect_of(parent.rect())}"
        child = parent
    on_screen, available = rect.translated(window.mapToGlobal(QPoint(0, 0))), window.screen().availableGeometry()
    if not available.contains(on_screen):
        return f"at {rect_of(on_screen)} on the screen, past its available {rect_of(available)}"
    return None


def cuts(page: QWidget, window: QWidget, key: dict[str, QWidget]) -> dict[str, str]:
    """Every key widget and every visible text-bearing widget of `page` that is cut: why."""
    found = {what: why for what, widget in key.items() if (why := cut(widget, window))}
    for widget in page.findChildren(QWidget):
        if not isinstance(widget, CHECKED) or isinstance(widget, QHeaderView) or widget.objectName().startswith("qt_"):
            continue
        if widget.isVisibleTo(window) and (why := cut(widget, window)):
            said = name(widget)
            found[said if said not in found else f"{said} #{len(found)}"] = why  # two unnamed line edits: both
    return found


def settle(app: QApplication, widget: QWidget) -> None:
    """Until `widget` is shown and the layouts' posted requests are handled."""
    deadline = time.monotonic() + 10
    while not widget.isVisible():  # PySide6's QTest has no qWaitFor
        if time.monotonic() > deadline:
            raise SystemExit(f"{name(widget)} was not shown within 10 s")
        QTest.qWait(10)
    for _ in range(5):  # a wrapped label's new height asks for another layout pass, which may ask for another
        app.processEvents()


def closed_port() -> int:
    """A loopback port nothing listens on (one the kernel just handed out and took back)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def connection_error(app: QApplication, window: MainWindow, out: Path) -> dict[str, object]:
    """Both hosts refused (a closed port on loopback), each failure's Details open: the longest the Connect page
    gets before anything connects."""
    connect = window.connect_page
    port = closed_port()
    for panel in connect.panels.values():
        panel.target.setText("127.0.0.1")
        panel.port.setValue(port)
    connect.connect_button.click()
    deadline = time.monotonic() + 30
    while not all(panel.details_button.isVisible() for panel in connect.panels.values()):
        if time.monotonic() > deadline:
            raise SystemExit(f"no failure shown within 30 s: {[p.state.text() for p in connect.panels.values()]}")
        QTest.qWait(20)
    for panel in connect.panels.values():
        panel.details_button.setChecked(True)
    settle(app, connect)
    server = connect.panels["server"]
    key = {"server state": server.state, "server details": server.details, "Retry": server.retry}
    found = {"state": server.state.text(), "details": server.details.text(), "cut": cuts(connect, window, key)}
    window.grab().save(str(out / "connection-error.png"))
    return found


def main(out: Path) -> dict[str, object]:
    app = application()
    tmp = Path(tempfile.mkdtemp(prefix="nfstune-first-window-"))
    settings = QSettings(str(tmp / "nfstune.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_path=tmp / "nfstune.sqlite3", scale="small", settings=settings)
    window.show()
    QTest.qWaitForWindowExposed(window)
    window.activateWindow()
    active = QTest.qWaitForWindowActive(window)
    settle(app, window)
    screen = window.screen()
    connect = window.connect_page
    server, client = connect.panels["server"], connect.panels["client"]
    found: dict[str, object] = {
        "available": rect_of(screen.availableGeometry()),
        "frame": rect_of(window.frameGeometry()),
        "active": active,
        "focus": name(app.focusWidget()) if app.focusWidget() else None,
        "focus_on_server_host": app.focusWidget() is server.target,
    }
    key = {"server host": server.target, "client panel": client, "client host": client.target}
    key |= {"Connect both": connect.connect_button, "practice lab": connect.lab_button}
    found["connect"] = cuts(connect, window, key)
    window.grab().save(str(out / "first-window.png"))
    screen.grabWindow(0).save(str(out / "screen.png"))  # the whole screen: where the window is on it

    window.go(STEPS.index("Recipes"))
    recipes = window.recipes_page
    settle(app, recipes)
    found["recipes_shown"] = window.stack.currentWidget() is recipes
    key = {"recipe list": recipes.recipe_list, "details": recipes.details_scroll, "hosts": recipes.hosts_label}
    key |= {"Show the plan": recipes.plan_button, "Start run": window.next_button}
    found["start_enabled"] = window.next_button.isEnabled()
    found["start_tooltip"] = window.next_button.toolTip()
    found["recipes"] = {}
    for row in range(recipes.recipe_list.count()):  # every recipe's details: whole, or reachable by scrolling
        recipes.recipe_list.setCurrentRow(row)
        settle(app, recipes)
        details = {"title": recipes.title_label, "configurations": recipes.config_table}
        found["recipes"] |= {f"{recipes._id_at(row)}: {k}": v for k, v in cuts(recipes, window, key | details).items()}
    ids = [recipes._id_at(row) for row in range(recipes.recipe_list.count())]
    recipes.recipe_list.setCurrentRow(ids.index("quick-check"))  # the screenshot: a recipe with a warning
    settle(app, recipes)
    window.grab().save(str(out / "recipes-before-connecting.png"))

    dialog = recipes.show_plan()
    assert dialog is not None
    QTest.qWaitForWindowExposed(dialog)
    settle(app, dialog)
    found["plan_frame"] = rect_of(dialog.frameGeometry())
    found["plan_title"] = dialog.windowTitle()
    found["plan"] = cuts(dialog, dialog, {"note": dialog.note, "text": dialog.text})
    dialog.grab().save(str(out / "plan-before-connecting.png"))
    dialog.close()

    window.tabs.setCurrentIndex(1)
    settle(app, window.history_page)
    found["history"] = cuts(window.history_page, window, {})
    window.grab().save(str(out / "history.png"))
    window.tabs.setCurrentIndex(0)
    window.go(STEPS.index("Connect"))
    found["connection_error"] = connection_error(app, window, out)
    window.hide()  # no closeEvent: nothing to save, nothing to shut down but the hosts it never connected
    window.controller.shutdown()
    return found


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))), flush=True)
