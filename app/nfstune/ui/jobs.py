"""Long tasks on worker threads, each a QObject job with progress/log/finished/failed signals (as Vorta does).

Workers never touch widgets. A job that needs the admin (an unknown host key, a password) asks through a
`Prompter` that lives on the GUI thread, over a BlockingQueuedConnection: the worker waits for the answer, the GUI
keeps running its own event loop (no processEvents spin). The run job's events go into bounded buffers the GUI
drains on a QTimer; its samples go straight into the live plot's thread-safe ring buffers.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
import traceback
from collections.abc import Callable, Collection
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QDialog, QInputDialog, QLineEdit, QMessageBox, QWidget

from nfstune.errors import NfstuneError
from nfstune.remote.errors import RemoteError
from nfstune.session.admin import STOP, HandPrompt
from nfstune.session.server_change import ServerChange

log = logging.getLogger(__name__)
EVENT_BUFFER = 2000  # events kept for the GUI between two ticks; a run makes a few a second


class Prompter(QObject):
    """Asks the admin on the GUI thread on behalf of a worker. Tests replace `answer_host_key`/`answer_secret`/
    `answer_server_change`."""

    _ask_host_key = Signal(str, str, str)
    _ask_secret = Signal(str, str)
    _ask_server_change = Signal(object)
    # a step of a guided hand change for the Run page to show (queued: the page answers when the admin clicks,
    # which may be many minutes later; the worker waits on its own thread meanwhile)
    hand_step = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window = parent
        self.answer_host_key: Callable[[str, str, str], bool] = self._host_key_dialog
        self.answer_secret: Callable[[str, str], str | None] = self._secret_dialog
        self.answer_server_change: Callable[[ServerChange], bool] = self._server_change_dialog
        self._bool_answer = False
        self._text_answer: str | None = None
        self.answer_hand: Callable[[HandPrompt], str] | None = None  # tests: answers at once, no page asked
        self._hand_answer: tuple[threading.Event, list[str]] | None = None
        self._ask_host_key.connect(self._on_ask_host_key, Qt.ConnectionType.BlockingQueuedConnection)
        self._ask_secret.connect(self._on_ask_secret, Qt.ConnectionType.BlockingQueuedConnection)
        self._ask_server_change.connect(self._on_ask_server_change, Qt.ConnectionType.BlockingQueuedConnection)

    # called on worker threads (the callbacks remote.Host takes)
    def host_key(self, label: str, key_type: str, fingerprint: str) -> bool:
        if QThread.currentThread() is self.thread():
            return self.answer_host_key(label, key_type, fingerprint)
        self._ask_host_key.emit(label, key_type, fingerprint)
        return self._bool_answer

    def secret(self, label: str, what: str) -> str | None:
        if QThread.currentThread() is self.thread():
            return self.answer_secret(label, what)
        self._ask_secret.emit(label, what)
        answer, self._text_answer = self._text_answer, None  # held here only until handed over
        return answer

    def server_change(self, change: ServerChange) -> bool:
        """The engine's `confirm`: change the export while these clients are connected?"""
        if QThread.currentThread() is self.thread():
            return self.answer_server_change(change)
        self._ask_server_change.emit(change)
        return self._bool_answer

    def hand(self, prompt: HandPrompt, cancel: threading.Event) -> str:
        """The engine's `ask`, on the run's worker thread: the Run page shows the step, and this waits until the
        admin answers there (answer_hand_step) or cancels the run (then STOP; the engine then stops and undoes)."""
        if self.answer_hand is not None:
            return self.answer_hand(prompt)
        done, answer = threading.Event(), [STOP]
        self._hand_answer = (done, answer)
        self.hand_step.emit(prompt)
        while not done.wait(0.2):
            if cancel.is_set():
                break
        self._hand_answer = None
        return answer[0]

    @Slot(str)
    def answer_hand_step(self, answer: str) -> None:
        """On the GUI thread: the admin's answer to the step shown."""
        pending = self._hand_answer
        if pending is not None:
            pending[1][0] = answer
            pending[0].set()

    @Slot(str, str, str)
    def _on_ask_host_key(self, label: str, key_type: str, fingerprint: str) -> None:
        self._bool_answer = self.answer_host_key(label, key_type, fingerprint)

    @Slot(str, str)
    def _on_ask_secret(self, label: str, what: str) -> None:
        self._text_answer = self.answer_secret(label, what)

    @Slot(object)
    def _on_ask_server_change(self, change: ServerChange) -> None:
        self._bool_answer = self.answer_server_change(change)

    def _server_change_dialog(self, change: ServerChange) -> bool:
        box = QMessageBox(self.window)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Other clients are connected")
        box.setText(f"Other NFS clients use {change.server} now. Change the export {change.share} anyway?")
        box.setInformativeText(change.message())
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def _host_key_dialog(self, label: str, key_type: str, fingerprint: str) -> bool:
        from nfstune.ui.host_key_dialog import HostKeyDialog

        dialog = HostKeyDialog(self.window, label, key_type, fingerprint)
        return dialog.exec() == QDialog.DialogCode.Accepted

    def _secret_dialog(self, label: str, what: str) -> str | None:
        text, ok = QInputDialog.getText(
            self.window, "Password", f"{label}: {what}\n(kept in memory only)", QLineEdit.EchoMode.Password
        )
        return text if ok else None


class Relay(QObject):
    """Calls a plain function on the thread this object was made on (the GUI thread). A signal from a worker
    connected straight to a lambda or a closure runs it on the worker's thread, where no widget may be touched;
    connected to this object's slot it is queued to the GUI thread instead."""

    def __init__(self, function: Callable[[Any], None]) -> None:
        super().__init__()
        self._function = function

    @Slot(object)
    def deliver(self, value: Any) -> None:
        self._function(value)


# what `failed` carries when a bug stopped the job: the crash dialog shows the traceback, so no message box is due
CRASHED = "stopped by a bug in nfstune (the crash report shows where)"


class Job(QObject):
    """Runs `work(job)` on a thread of its own. `failed` carries a message for the admin: known errors (remote,
    configuration) name the host and the action. Anything else is a bug: its traceback goes to `crashed` (the
    crash dialog) and `failed` carries CRASHED, so that the caller can reset its state without a second box.
    `ended` comes last, whichever way the job went. `hosts`: the roles whose hosts the job uses (JobQueue)."""

    progress = Signal(str)
    finished = Signal(object)
    failed = Signal(str)
    crashed = Signal(str)
    ended = Signal(object)

    def __init__(self, name: str, work: Callable[[Job], Any], hosts: Collection[str] = ()) -> None:
        super().__init__()
        self.name, self.work, self.hosts = name, work, frozenset(hosts)
        self.cancel = threading.Event()
        # set on the worker once `work` has returned or raised, before `finished`/`failed`: the job's name is free
        # from then on (an answer to `failed` may ask for the same job again; `ended` reaches the queue after it)
        self.worked = threading.Event()
        self.error: BaseException | None = None  # why it failed, set before `failed`: its details are shown too
        self._relays: list[Relay] = []
        self._thread = QThread()
        self._thread.setObjectName(name)
        self.moveToThread(self._thread)
        self._thread.started.connect(self._on_started)

    def start(self) -> Job:
        self._thread.start()
        return self

    def on_gui_thread(self, signal: Any, function: Callable[[Any], None]) -> None:
        """Run `function` on the calling (GUI) thread whenever `signal` of this job fires."""
        relay = Relay(function)
        self._relays.append(relay)  # kept alive as long as the job
        signal.connect(relay.deliver)

    def wait(self, ms: int = 30000) -> bool:
        return self._thread.wait(ms)

    @Slot()
    def _on_started(self) -> None:
        # the desktop's own trail in the log file: which job ran on which hosts, how long, how it ended
        on = f" on {', '.join(sorted(self.hosts))}" if self.hosts else ""
        log.info("%s started%s", self.name, on)
        began = time.monotonic()
        try:
            try:
                result = self.work(self)
            finally:
                self.worked.set()
        except (NfstuneError, RemoteError) as exc:
            details = f" ({exc.details})" if exc.details else ""
            log.warning("%s failed after %.1f s: %s%s", self.name, time.monotonic() - began, exc, details)
            self.error = exc
            self.failed.emit(str(exc))
        except Exception as exc:  # a bug: the crash dialog shows it with versions
            log.exception("%s crashed", self.name)
            self.crashed.emit("".join(traceback.format_exception(exc)))
            self.failed.emit(CRASHED)
        else:
            log.info("%s done in %.1f s", self.name, time.monotonic() - began)
            self.finished.emit(result)
        finally:
            self.ended.emit(self.name)
            self._thread.quit()


class JobQueue(QObject):
    """One job at a time per host, as Vorta's JobsManager runs one job at a time per repository: a job that needs
    a host another job holds waits its turn, in the order it was asked for; jobs on other hosts (or on none) run
    side by side. Lives on the GUI thread; `idle` when the last job has ended."""

    idle = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._waiting: list[Job] = []
        self._running: list[Job] = []

    def add(self, job: Job) -> Job:
        if any(j.name == job.name and not j.worked.is_set() for j in (*self._waiting, *self._running)):
            raise RuntimeError(f"{job.name} is already running")
        job.on_gui_thread(job.ended, lambda _name, job=job: self._ended(job))
        self._waiting.append(job)
        self._dispatch()
        return job

    def _dispatch(self) -> None:
        taken = {host for job in self._running for host in job.hosts}
        for job in list(self._waiting):
            if taken.isdisjoint(job.hosts):
                self._waiting.remove(job)
                self._running.append(job)
                job.start()
            taken |= job.hosts  # a job still waiting keeps its place on its hosts for the ones asked after it

    def _ended(self, job: Job) -> None:
        if job in self._running:
            self._running.remove(job)
        job.wait(5000)  # its work is done: the thread is only returning from its event loop
        self._dispatch()
        if not self.busy():
            self.idle.emit()

    def busy(self) -> bool:
        return bool(self._waiting or self._running)

    def running(self) -> list[str]:
        return [job.name for job in self._running]

    def waiting(self) -> list[str]:
        return [job.name for job in self._waiting]

    def cancel_all(self) -> None:
        """Jobs not started are dropped (their `failed` says so); running ones are asked to stop."""
        waiting, self._waiting = self._waiting, []
        for job in waiting:
            job.failed.emit("not started: nfstune is closing")
        for job in self._running:
            job.cancel.set()
        if not self.busy():
            self.idle.emit()


class EventBuffer:
    """Bounded, thread-safe: the engine's thread appends, the GUI's timer drains."""

    def __init__(self, size: int = EVENT_BUFFER) -> None:
        self._items: collections.deque[Any] = collections.deque(maxlen=size)
        self._lock = threading.Lock()

    def append(self, item: Any) -> None:
        with self._lock:
            self._items.append(item)  # a full buffer drops its oldest

    def drain(self) -> list[Any]:
        with self._lock:
            items = list(self._items)
            self._items.clear()
        return items
