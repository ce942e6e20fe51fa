"""Garbage made on the GUI thread is freed there, also while a job allocates on its worker thread: Python's
automatic collection ran on the worker, and Qt objects freed there ran their destructors on it (a History tab's
widget deleted on a worker showed the next tab from there; the History tests crashed or hung)."""

from __future__ import annotations

import gc
import threading

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from nfstune.ui.jobs import Job


class Dropped(QWidget):
    """A widget kept only by a cycle (here its own attribute), as a closed page is by its lambdas and jobs."""

    def __init__(self, freed_on: list[threading.Thread]) -> None:
        super().__init__()
        self.freed_on = freed_on
        self.itself = self

    def __del__(self) -> None:
        self.freed_on.append(threading.current_thread())


def allocate(_job: Job) -> int:
    # containers enough to pass the collector's threshold many times over: automatic collection would run here
    return len([[n] for n in range(200_000)])


def test_a_widget_dropped_on_the_gui_thread_is_freed_there_while_a_job_allocates(qtbot: QtBot) -> None:
    freed_on: list[threading.Thread] = []
    Dropped(freed_on)
    job = Job("allocates", allocate).start()
    assert job.wait(10_000)  # the GUI thread allocates nothing meanwhile
    assert freed_on == []  # the worker passed the collector's threshold many times over, and freed nothing
    kept = [[n] for n in range(2 * gc.get_threshold()[0])]  # now the GUI thread passes it: its timer collects
    qtbot.waitUntil(lambda: bool(freed_on), timeout=5_000)
    assert freed_on == [threading.main_thread()] and kept
