"""Start the Qt application."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication

from nfstune import __version__
from nfstune.lab import LabConfig


def application() -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    app.setApplicationName("nfstune")
    app.setApplicationVersion(__version__)
    app.setOrganizationName("nfstune")
    return app


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
    window.show()
    if lab:
        window.controller.connect_lab()
    return app.exec()
