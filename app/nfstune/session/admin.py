"""The admin's side of a session: the events the engine reports them (Event), the question asked before the first
change of a shared export (`confirm`), and the Cancel they may press (`cancel`). No Qt: the CLI prints the events,
the desktop's jobs turn them into signals."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from nfstune.errors import Cancelled
from nfstune.session.server_change import ServerChange


class Declined(Cancelled):
    """The admin said no (or could not be asked) before the first change: nothing was changed."""


@dataclass(frozen=True)
class Event:
    # progress | sample | step | wait | recipe | visit | repeat | config | verdicts | baseline | warning | log (the data
    # of recipe, visit, repeat and verdicts: recipe_rounds.py, visit.py, workload_run.py)
    kind: str
    message: str
    data: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Admin:
    """`emit` is called from the engine's thread and, for "sample" events, from the samplers' threads. `confirm` is
    asked, on the engine's thread, before the first change of a session that changes the export while other
    clients are connected; without it such a session is refused. `cancel`: set, the session stops at the next
    check and undoes every change."""

    emit: Callable[[Event], None]
    confirm: Callable[[ServerChange], bool] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    def log(self, message: str) -> None:
        self.emit(Event("log", message))

    def warn(self, message: str) -> None:
        self.emit(Event("warning", message))

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled: every change was undone")
