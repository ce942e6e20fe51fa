"""Python's cycle collector run on the GUI thread only, on a timer, as pyqtgraph's GarbageCollector does.

Left automatic, the collector runs on whichever thread allocates past its threshold: often a job's worker, reading
the store. A cycle it frees there may hold Qt objects made on the GUI thread (a finished job and its relays, a page
dropped with its lambdas), and their C++ destructors then run on the worker: a QTabWidget's page deleted there
showed the next tab, whose showEvent drew a chart on the worker while the GUI thread drew another. That ended in a
crash, or in a deadlock of the two threads over the GIL and Qt's locks (the History tests hung 20 minutes under
load). Freed on the GUI thread, those destructors run where Qt expects them.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 500  # a cycle's memory waits at most this long; a check finding nothing to do costs microseconds


class GuiThreadCollector(QObject):
    """While it runs, automatic collection is off and the GUI thread collects each generation whose count passed
    the threshold Python would have collected it at. `stop()` gives collection back to Python (the tests do, after
    each test)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        gc.disable()
        self.timer.start()

    def check(self) -> None:
        counts = gc.get_count()
        collected = -1
        for generation in range(3):  # an older generation is due only once the younger one has been collected
            if counts[generation] <= self.threshold[generation]:
                break
            collected = generation
        if collected >= 0:
            gc.collect(collected)

    def stop(self) -> None:
        self.timer.stop()
        self.setParent(None)  # no longer the application's: collect_on_gui_thread then starts another
        gc.collect()  # here, on the GUI thread, before a worker could
        gc.enable()


def collect_on_gui_thread(app: QObject) -> GuiThreadCollector:
    """The collector for `app`'s lifetime (the one already running, if any)."""
    running = app.findChild(GuiThreadCollector)
    return running if running is not None else GuiThreadCollector(app)
