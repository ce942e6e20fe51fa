"""Anything that is not a known environment error is a bug: log it, and show it with the versions and a copy button,
so that the user can paste one complete report into an issue.

Exceptions can end a worker thread; the dialog is still made on the GUI thread, by a signal that Qt queues there.
"""

from __future__ import annotations

import logging
import platform
import sys
import threading
import traceback
from collections.abc import Callable
from importlib import metadata
from types import TracebackType

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

import nfstune

log = logging.getLogger("nfstune")

MESSAGE = (
    "nfstune hit a bug. Nothing was lost: every change on your hosts is journaled and is undone at the next start."
)
ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]
# Open dialogs, kept alive here: nothing else references a parentless dialog, and it must outlive
# restore() of the hooks that opened it.
_open_dialogs: list[CrashDialog] = []


def _distribution_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def versions() -> dict[str, str]:
    from PySide6 import QtCore

    return {
        "nfstune": nfstune.__version__,
        "Python": f"{platform.python_version()} ({platform.python_implementation()})",
        "PySide6": _distribution_version("PySide6-Essentials"),
        "Qt": QtCore.qVersion(),  # the runtime library, which may differ from the one PySide6 was built with
        "pyqtgraph": _distribution_version("pyqtgraph"),
        "paramiko": _distribution_version("paramiko"),
        "psutil": _distribution_version("psutil"),
        "platform": platform.platform(),
    }


def crash_report(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> str:
    lines = [f"{name}: {version}" for name, version in versions().items()]
    return "\n".join(lines) + "\n\n" + "".join(traceback.format_exception(exc_type, exc, tb))


class CrashDialog(QDialog):
    def __init__(self, report: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report = report
        self.setWindowTitle("nfstune: unexpected error")
        self.resize(720, 480)
        message = QLabel(MESSAGE)
        message.setWordWrap(True)
        hint = QLabel("Copy the report below into a bug report. Read it first: it may name your hosts and paths.")
        hint.setWordWrap(True)
        self.text = QPlainTextEdit(report)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)  # tracebacks read best unwrapped
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton("Copy")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (message, hint, self.text, buttons):
            layout.addWidget(widget)

    def _on_copy_clicked(self) -> None:
        QApplication.clipboard().setText(self.report)
        self.copy_button.setText("Copied")

    def _on_finished(self, _result: int) -> None:
        if self in _open_dialogs:
            _open_dialogs.remove(self)
        self.deleteLater()


class _CrashRelay(QObject):
    """Lives on the GUI thread; `crashed` emitted from any thread runs `_on_crashed` there."""

    crashed = Signal(object)  # ExcInfo

    def __init__(self) -> None:
        super().__init__()
        self.crashed.connect(self._on_crashed)

    @Slot(object)
    def _on_crashed(self, exc_info: ExcInfo) -> None:
        report = crash_report(*exc_info)
        dialog = CrashDialog(report)
        dialog.finished.connect(dialog._on_finished)
        _open_dialogs.append(dialog)
        dialog.open()  # not exec(): a nested event loop inside a crash handler invites re-entrancy


def install_excepthook() -> Callable[[], None]:
    """Route uncaught exceptions (GUI thread and worker threads) to the log and a CrashDialog. Call on the GUI
    thread with a QApplication. Returns a function that restores the previous hooks."""
    relay = _CrashRelay()
    previous_sys_hook = sys.excepthook
    previous_thread_hook = threading.excepthook

    def sys_hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):  # Ctrl+C in a terminal is a request to stop, not a bug
            previous_sys_hook(exc_type, exc, tb)
            return
        log.error("uncaught exception", exc_info=(exc_type, exc, tb))
        relay.crashed.emit((exc_type, exc, tb))

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):  # threading ignores SystemExit too
            return
        name = args.thread.name if args.thread is not None else "unknown"
        log.error("uncaught exception in thread %s", name, exc_info=(args.exc_type, args.exc_value, args.exc_traceback))
        relay.crashed.emit((args.exc_type, args.exc_value, args.exc_traceback))

    sys.excepthook = sys_hook
    threading.excepthook = thread_hook

    def restore() -> None:
        if sys.excepthook is not sys_hook and threading.excepthook is not thread_hook:
            return  # restored already
        sys.excepthook = previous_sys_hook
        threading.excepthook = previous_thread_hook
        relay.crashed.disconnect(relay._on_crashed)
        relay.deleteLater()  # open dialogs stay open: _open_dialogs holds them

    return restore
