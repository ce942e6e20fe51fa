"""The desktop's jobs (ui.jobs.JobQueue, Controller.start_job): one job at a time per host, others side by side,
a bug reported once through the crash hook, and a Quit that never blocks the GUI thread while a job ends. Real
QThreads under a real (offscreen) event loop; a job is held by a threading.Event, never by a sleep."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from pytestqt.qtbot import QtBot

from nfstune.errors import NfstuneError
from nfstune.ui.jobs import CRASHED, Job, JobQueue
from nfstune.ui.main_window import MainWindow


def held_job(name: str, hosts: tuple[str, ...], log: list[str], release: threading.Event) -> Job:
    def work(_job: Job) -> str:
        log.append(f"{name} started")
        assert release.wait(60)
        log.append(f"{name} ended")
        return name

    return Job(name, work, hosts)


def test_a_second_job_on_the_same_host_waits_its_turn_and_others_run_beside(qtbot: QtBot) -> None:
    queue = JobQueue()
    log: list[str] = []
    first, same_host = threading.Event(), threading.Event()
    a = queue.add(held_job("probe", ("server", "client"), log, first))
    b = queue.add(held_job("install-server", ("server",), log, same_host))
    report_held = threading.Event()
    queue.add(held_job("report", (), log, report_held))
    qtbot.waitUntil(lambda: "probe started" in log and "report started" in log)
    assert queue.running() == ["probe", "report"] and queue.waiting() == ["install-server"]
    report_held.set()  # a job on no host ends while the probe still holds both hosts
    qtbot.waitUntil(lambda: queue.running() == ["probe"])
    assert "probe ended" not in log and queue.waiting() == ["install-server"]
    a_done: list[object] = []
    a.on_gui_thread(a.finished, a_done.append)
    first.set()
    qtbot.waitUntil(lambda: "install-server started" in log)
    assert log.index("probe ended") < log.index("install-server started")  # its turn came after the first ended
    assert a_done == ["probe"]
    same_host.set()
    with qtbot.waitSignal(queue.idle, timeout=10_000):
        pass
    assert not queue.busy() and b.wait(1000)


def test_a_job_asked_for_twice_is_refused_while_it_waits_or_runs(qtbot: QtBot) -> None:
    queue = JobQueue()
    release = threading.Event()
    queue.add(held_job("run", ("server", "client"), [], release))
    try:
        queue.add(held_job("run", ("server", "client"), [], release))
    except RuntimeError as exc:
        assert "run is already running" in str(exc)
    else:
        raise AssertionError("a second run was queued")
    release.set()
    qtbot.waitUntil(lambda: not queue.busy(), timeout=10_000)


def test_a_job_asked_for_again_as_its_failure_is_shown_starts(qtbot: QtBot) -> None:
    """As Connect asked when the admin tried again at once: the failure reaches the GUI thread before the job has
    left the queue (its `ended` comes next), and the same job asked for then was refused as still running."""

    def refused(_job: Job) -> None:
        raise NfstuneError("pc2: connection refused")

    queue = JobQueue()
    first = Job("connect-client2", refused, ("client2",))
    retried: list[Job] = []
    results: list[object] = []

    def again(_reason: str) -> None:
        job = Job("connect-client2", lambda _job: "connected", ("client2",))
        job.on_gui_thread(job.finished, results.append)
        retried.append(queue.add(job))

    first.on_gui_thread(first.failed, again)
    queue.add(first)
    qtbot.waitUntil(lambda: results != [] and not queue.busy(), timeout=10_000)
    assert results == ["connected"] and len(retried) == 1


def test_a_bug_goes_to_the_crash_hook_with_its_traceback_and_fails_quietly(qtbot: QtBot) -> None:
    def work(_job: Job) -> None:
        raise KeyError("config")

    job = Job("run", work, ("server",))
    crashes: list[str] = []
    failures: list[str] = []
    job.crashed.connect(crashes.append)
    job.on_gui_thread(job.failed, failures.append)
    queue = JobQueue()
    queue.add(job)
    qtbot.waitUntil(lambda: failures != [], timeout=10_000)
    assert failures == [CRASHED]
    assert len(crashes) == 1 and "KeyError: 'config'" in crashes[0] and "in work" in crashes[0]
    qtbot.waitUntil(lambda: not queue.busy(), timeout=10_000)


def test_quit_while_a_job_runs_hides_the_window_and_closes_it_when_the_job_ends(qtbot: QtBot, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_path=tmp_path / "nfstune.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(window)
    window.show()
    release, log = threading.Event(), []
    window.controller.start_job(
        "install-client", held_job("x", (), log, release).work, lambda _r: None, lambda _m: None, hosts=("client",)
    )
    qtbot.waitUntil(lambda: "x started" in log)
    window.close()
    assert window.isHidden() and window.controller.queue.busy()
    # the GUI thread goes on: a timer fires while the job still holds its host
    ticked: list[bool] = []
    QTimer.singleShot(0, lambda: ticked.append(True))
    qtbot.waitUntil(lambda: ticked == [True])
    assert window.controller.queue.running() == ["install-client"]
    release.set()
    qtbot.waitUntil(lambda: not window.controller.queue.busy(), timeout=10_000)
    assert log == ["x started", "x ended"] and not window.isVisible()
