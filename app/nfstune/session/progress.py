"""The session's progress as the admin sees it: each step's "progress" event with the fraction done and the time
left (rounds.Eta), while a workload runs its "step" events (bytes moved, for the live rate), and before a run the
"wait" events while a host is still writing back (bench/writeback.py). The time an admin takes to change the NAS
by hand (a guided hand change) is not measuring time: it counts neither as work done nor against the time left."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from nfstune.bench.workloads import Progress
from nfstune.recipes.estimate import Estimate
from nfstune.recipes.plan import Plan
from nfstune.session.admin import Admin, Event
from nfstune.session.rounds import Eta


class SessionProgress:
    """The time counts from when the engine was made; the time left from when its plan starts (`start`)."""

    def __init__(self, admin: Admin, clock: Callable[[], float] = time.monotonic) -> None:
        self.admin, self.clock = admin, clock
        self.eta: Eta | None = None
        self._t0 = clock()
        self._fraction = 0.0
        self._waited_s = 0.0  # the admin's turns so far

    def start(self, plan: Plan, likely: Mapping[str, Estimate]) -> Eta:
        self.eta, self._fraction = Eta(plan, likely), 0.0
        return self.eta

    def say(self, message: str) -> None:
        eta, at_most = self._update()
        self.admin.emit(Event("progress", message, {"fraction": self._fraction, "eta_s": eta, "eta_max_s": at_most}))

    def _update(self) -> tuple[float | None, float | None]:
        """The fraction done brought up to now; the time left and the most it can be (None: no plan yet)."""
        now = self.clock()
        elapsed = now - self._t0 - self._waited_s
        eta = self.eta.remaining_s(now) if self.eta is not None else None
        at_most = self.eta.at_most_s(now) if self.eta is not None else None
        done = elapsed / (elapsed + eta) if eta is not None and elapsed + eta > 0 else 0.0
        # never backwards: more rounds expected make the time left longer, not the work done less (the bar fell
        # from 88 % to 27 % on the lab when no-wdelay needed rounds beyond its minimum)
        self._fraction = max(self._fraction, done)
        return eta, at_most

    @contextmanager
    def admin_turn(self, message: str) -> Iterator[None]:
        """While the admin changes the NAS by hand: the work done so far, then "waiting" instead of a time left;
        the wait is taken off the elapsed time and off the recipe's budget clock."""
        self._update()  # the block just measured counts in the bar
        self.admin.emit(Event("progress", message, {"fraction": self._fraction, "waiting": True}))
        start = self.clock()
        try:
            yield
        finally:
            waited = self.clock() - start
            self._waited_s += waited
            if self.eta is not None:
                self.eta.paused(waited)

    def step(self, step: Progress) -> None:
        self.admin.emit(Event("step", "", {"bytes": step.interval_bytes, "elapsed_s": step.elapsed_s}))

    def waiting(self, message: str) -> None:
        """ "waiting for the server to finish writing back (120 MiB)", about once a second while it lasts."""
        self.admin.emit(Event("wait", message))
