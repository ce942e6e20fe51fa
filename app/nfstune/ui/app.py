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
