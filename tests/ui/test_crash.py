"""Bugs end in a crash dialog with the versions and a copy button, even when a worker thread raised them."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Iterator
from types import TracebackType

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit
from pytestqt.qtbot import QtBot

import nfstune
from nfstune.ui.crash import MESSAGE, CrashDialog, crash_report, install_excepthook, versions


def raised_here() -> tuple[type[BaseException], BaseException, TracebackType | None]:
    try:
        {}["no such export"]
    except KeyError as e:
        return type(e), e, e.__traceback__
    raise AssertionError("unreachable")


def shown_crash_dialogs() -> list[CrashDialog]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, CrashDialog) and w.isVisible()]


@pytest.fixture
def hooks(qapp: QApplication) -> Iterator[Callable[[], None]]:
    """install_excepthook, restored and checked after the test, with no dialog left open."""
    before = (sys.excepthook, threading.excepthook)
    restore = install_excepthook()
    yield restore
    restore()
    assert (sys.excepthook, threading.excepthook) == before
    for dialog in shown_crash_dialogs():
        dialog.close()


def test_versions_name_the_stack() -> None:
    found = versions()
    assert found["nfstune"] == nfstune.__version__
    assert found["PySide6"] == "6.11.3"  # the pin (see test_qt_pin)
    assert found["Qt"].startswith("6.")
    assert found["Python"].startswith(f"{sys.version_info.major}.{sys.version_info.minor}.")
    assert set(found) >= {"pyqtgraph", "paramiko", "psutil", "platform"}
    assert all(value and value != "not installed" for value in found.values())


def test_report_holds_versions_and_traceback() -> None:
    report = crash_report(*raised_here())
    for name, version in versions().items():
        assert f"{name}: {version}" in report
    assert "Traceback (most recent call last):" in report
    assert "in raised_here" in report and '{}["no such export"]' in report
    assert report.rstrip().endswith("KeyError: 'no such export'")


def test_copy_puts_the_exact_report_on_the_clipboard(qtbot: QtBot) -> None:
    report = crash_report(*raised_here())
    dialog = CrashDialog(report)
    qtbot.addWidget(dialog)
    dialog.show()
    assert MESSAGE in [label.text() for label in dialog.findChildren(QLabel)]
    text = dialog.findChild(QPlainTextEdit)
    assert text is not None and text.isReadOnly() and text.toPlainText() == report
    QApplication.clipboard().setText("something else")
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == report
    assert dialog.copy_button.text() == "Copied"


def test_a_worker_threads_exception_opens_the_dialog(
    qtbot: QtBot, hooks: Callable[[], None], caplog: pytest.LogCaptureFixture
) -> None:
    def worker() -> None:
        raise RuntimeError("sampler fell over")

    assert shown_crash_dialogs() == []
    thread = threading.Thread(target=worker, name="sampler-nas")
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: len(shown_crash_dialogs()) == 1, timeout=5000)
    (dialog,) = shown_crash_dialogs()
    assert "RuntimeError: sampler fell over" in dialog.report and "in worker" in dialog.report
    (record,) = [r for r in caplog.records if r.name == "nfstune" and r.levelno == logging.ERROR]
    assert "sampler-nas" in record.getMessage() and record.exc_info and record.exc_info[0] is RuntimeError
    dialog.close()
    qtbot.waitUntil(lambda: shown_crash_dialogs() == [], timeout=2000)


def test_the_gui_threads_exception_opens_the_dialog(qtbot: QtBot, hooks: Callable[[], None]) -> None:
    sys.excepthook(*raised_here())  # what Python and PySide do with an exception nobody caught
    qtbot.waitUntil(lambda: len(shown_crash_dialogs()) == 1, timeout=5000)
    assert "KeyError: 'no such export'" in shown_crash_dialogs()[0].report


def test_restore_gives_exceptions_back_to_the_previous_hooks(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(f"thread: {args.exc_value}"))
    monkeypatch.setattr(sys, "excepthook", lambda t, e, tb: seen.append(f"sys: {e}"))
    restore = install_excepthook()
    restore()
    restore()  # twice is harmless
    thread = threading.Thread(target=lambda: 1 / 0)
    thread.start()
    thread.join()
    sys.excepthook(*raised_here())
    QApplication.sendPostedEvents()  # a queued signal, had the thread sent one, is delivered now, not after a wait
    assert seen == ["thread: division by zero", "sys: 'no such export'"]
    assert shown_crash_dialogs() == []


def test_ctrl_c_is_not_a_bug(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[type[BaseException]] = []
    monkeypatch.setattr(sys, "excepthook", lambda t, e, tb: seen.append(t))
    restore = install_excepthook()
    try:
        sys.excepthook(KeyboardInterrupt, KeyboardInterrupt(), None)
        QApplication.sendPostedEvents()  # a signal it sent, queued or not, has reached its slot
    finally:
        restore()
    assert seen == [KeyboardInterrupt] and shown_crash_dialogs() == []
