"""The admin's side of a session: the events the engine reports them (Event), the question asked before the first
change of a shared export (`confirm`), the steps of a guided hand change (`ask`: make a change on the NAS, then
Continue or Stop), and the Cancel they may press (`cancel`). No Qt: the CLI prints the events,
the desktop's jobs turn them into signals."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from nfstune.errors import Cancelled
from nfstune.session.server_change import ServerChange

CONTINUE, STOP = "continue", "stop"  # the answers to a switch of a guided hand change
AS_IT_WAS, WITH_CHANGE = "as-it-was", "with-change"  # the answers to how the NAS is left at its end


@dataclass(frozen=True)
class HandPrompt:
    """A step of a guided hand change put to the admin (session/hand_rounds.py). `kind` "switch": make the change
    in `text` (or put it back), then answer CONTINUE, or STOP to end with what ran; "leave": how the NAS is left,
    AS_IT_WAS or WITH_CHANGE (`text` says what each means)."""

    kind: str  # switch | leave
    recipe: str
    text: str
    block: int = 0  # the block that follows a switch (0-based)
    blocks: int = 0  # blocks planned
    changed: bool = False  # whether the NAS has the change now (before the admin acts on `text`)
    where: str = ""  # where on the NAS it is set

    @property
    def where_label(self) -> str:
        """What heads `where`: the vendors' paths say how to make the change, so putting it back is said to undo
        it there."""
        return "Where you made it (undo it there)" if self.kind == "switch" and self.changed else "Where"


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
    clients are connected; without it such a session is refused. `ask`: a step of a guided hand change, asked on
    the engine's thread, which waits for the answer; without it (no terminal, no desktop) the plan runs none.
    `cancel`: set, the session stops at the next check and undoes every change."""

    emit: Callable[[Event], None]
    confirm: Callable[[ServerChange], bool] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    ask: Callable[[HandPrompt], str] | None = None

    def log(self, message: str) -> None:
        self.emit(Event("log", message))

    def warn(self, message: str) -> None:
        self.emit(Event("warning", message))

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled: every change was undone")
