"""Start the Qt application."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from nfstune import __version__, paths
from nfstune.lab import LabConfig
from nfstune.ui.garbage import collect_on_gui_thread
from nfstune.ui.icons import add_fallback_path
from nfstune.ui.theme import install_theme


def application() -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    app.setApplicationName("nfstune")
    app.setApplicationVersion(__version__)
    app.setOrganizationName("nfstune")
    # the desktop matches the window to its menu entry (nfstune desktop-entry, <id>.desktop) by this name: the
    # Wayland app id
    app.setDesktopFileName(paths.APP_ID)
    app.setWindowIcon(window_icon())
    add_fallback_path()
    install_theme(app)
    collect_on_gui_thread(app)  # Qt objects in a cycle are freed on the GUI thread, never on a job's
    return app


def window_icon() -> QIcon:
    """Every shipped size, so that the title bar, the task bar and the switcher each get a drawn one, not a scaled."""
    icon = QIcon()
    for png in sorted(paths.icons_dir().glob("*/apps/nfstune.png")):
        icon.addFile(str(png))
    return icon


def run_lab_window(cfg: LabConfig) -> int:
    from nfstune.ui.lab_window import LabWindow

    app = application()
    window = LabWindow(cfg)
    window.show()
    return app.exec()


def run_main_window(*, lab: bool = False, scale: str | None = None) -> int:
    """The desktop assistant. `lab`: connect both hosts to the practice lab at once (starting it if needed)."""
    from nfstune.logs import setup_logging
    from nfstune.ui.crash import install_excepthook
    from nfstune.ui.main_window import MainWindow

    setup_logging()
    app = application()
    install_excepthook()
    window = MainWindow(scale=scale or ("small" if lab else None))
    window.controller.crashed.connect(window.show_crash)
    quit_on_termination(app, window.controller.when_shut_down)
    window.show()
    if lab:
        window.controller.connect_lab()
    return app.exec()


def quit_on_termination(app: QApplication, shutdown: Callable[[Callable[[], None]], None]) -> None:
    """SIGTERM and SIGHUP (a logout, a service stop) quit as the window's Quit does, without asking: `shutdown`
    cancels a run and calls what it is given once the run's undo has ended, which quits the application. Python
    runs signal handlers only when it has control, and Qt's event loop keeps it in C++: a timer hands control back
    a few times a second."""

    def handler(_signum: int, _frame: object) -> None:
        for s in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)  # once: a second signal must not cut the undo short
        QTimer.singleShot(0, lambda: shutdown(app.quit))

    for s in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, handler)
    wake = QTimer(app)
    wake.timeout.connect(lambda: None)
    wake.start(200)
