"""Every UI test runs with the desktop's garbage collection: cycles are freed on the GUI thread only
(nfstune/ui/garbage.py), never on a job's worker thread; Python collects again between tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

from nfstune.ui.garbage import GuiThreadCollector, collect_on_gui_thread


@pytest.fixture(autouse=True)
def gui_thread_garbage(qapp: QApplication) -> Iterator[None]:
    collector = collect_on_gui_thread(qapp)
    yield  # torn down after the test's own fixtures and pytest-qt's closing of its widgets: its jobs have ended
    # pytest-qt deleteLater()s each widget of the test, which its processEvents() leaves undone: deleted here, whole,
    # with their Python parts intact. Left to the collector, a page was taken apart first (its attributes cleared)
    # and then deleted: its Trend tab, shown as the Details tab went, read the store with a half-cleared path
    qapp.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    collector.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    try:
        return (yield)
    finally:
        # from the test's end to its teardown pytest-qt holds the test's widgets by a weak reference only: a page
        # the test kept in a local variable would be collected still shown (as above), so nothing is collected
        app = QApplication.instance()
        collector = app.findChild(GuiThreadCollector) if app is not None else None
        if collector is not None:
            collector.timer.stop()
