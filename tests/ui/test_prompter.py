"""The desktop's answer to the engine's `confirm`: asked from a worker thread, answered on the GUI thread."""

from __future__ import annotations

import threading

from pytestqt.qtbot import QtBot

from nfstune.nfs.kernel_view import NfsClient
from nfstune.session.server_change import ServerChange
from nfstune.ui.jobs import Job, Prompter

CHANGE = ServerChange("nas", "/export", (NfsClient("10.99.0.7:812", "4.2", "laptop"),), None, "client", 2, ())


def test_a_worker_waits_for_the_admins_answer_given_on_the_gui_thread(qtbot: QtBot) -> None:
    prompter = Prompter()
    shown: list[tuple[str, bool]] = []

    def answer(change: ServerChange) -> bool:
        shown.append((change.message(), threading.current_thread() is threading.main_thread()))
        return False

    prompter.answer_server_change = answer
    job = Job("confirm", lambda _job: prompter.server_change(CHANGE))
    # received on the GUI thread, as the desktop receives it: qtbot.waitSignal's own slot would run on the job's
    # thread and stop its timer from there (a Qt warning)
    results: list[object] = []
    job.on_gui_thread(job.finished, results.append)
    job.start()
    qtbot.waitUntil(lambda: results != [], timeout=10000)
    assert results == [False]
    ((text, on_gui_thread),) = shown
    assert on_gui_thread and "10.99.0.7:812" in text
    job.wait()
