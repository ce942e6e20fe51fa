"""How late the GUI event loop serves a due timer: a precise single-shot timer re-armed every `probe_ms` from the
moment it fired; its lateness is how long after its due time the loop ran it (what a click or a repaint would
wait). Used by event_loop_lateness.py (a compressed simulated hour) and tools/screenshots.py (a real lab run).
Needs a QApplication; start and stop it on the GUI thread."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence


class LatenessProbe:
    def __init__(self, probe_ms: int = 10) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.probe_ms = probe_ms
        self.probes: list[tuple[float, float]] = []  # (monotonic at fire, lateness s)
        self._due = 0.0
        self._timer = QTimer()
        self._timer.setSingleShot(True)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._fire)

    def start(self) -> None:
        self._due = time.monotonic() + self.probe_ms / 1000
        self._timer.start(self.probe_ms)

    def stop(self) -> None:
        self._timer.stop()

    def _fire(self) -> None:
        now = time.monotonic()
        self.probes.append((now, now - self._due))
        self._due = now + self.probe_ms / 1000
        self._timer.start(self.probe_ms)

    def lateness(self, since: float = 0.0, until: float = float("inf")) -> list[float]:
        return [late for at, late in self.probes if since <= at <= until]


def percentiles(values: Sequence[float]) -> str:
    if len(values) < 2:
        return "too few probes"
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return (
        f"p50 {1000 * cuts[49]:.1f} ms, p99 {1000 * cuts[98]:.1f} ms, max {1000 * max(values):.1f} ms "
        f"({len(values)} probes)"
    )
