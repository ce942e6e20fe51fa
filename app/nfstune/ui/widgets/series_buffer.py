"""The live plot's memory of a series: a bounded ring buffer of (t, value) points that sampler threads append to
and the GUI thread copies from, so that memory stays bounded however long a run lasts."""

from __future__ import annotations

import threading

import numpy as np

DEFAULT_CAPACITY = 3600  # one hour at one sample a second


class SeriesBuffer:
    """A bounded ring buffer of (t seconds, value) points; `append` from any thread, `snapshot` on the GUI thread."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self._t = np.empty(capacity, dtype=np.float64)
        self._v = np.empty(capacity, dtype=np.float64)
        self._next = 0  # where the next point goes
        self._count = 0
        self._lock = threading.Lock()
        self.version = 0  # counts the changes: a series whose version did not move is not drawn again

    def append(self, t: float, value: float) -> None:
        with self._lock:
            self._t[self._next] = t
            self._v[self._next] = value
            self._next = (self._next + 1) % self.capacity
            self._count = min(self._count + 1, self.capacity)
            self.version += 1

    def snapshot(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the points, oldest first."""
        with self._lock:
            if self._count < self.capacity:
                return self._t[: self._count].copy(), self._v[: self._count].copy()
            order = np.r_[self._next : self.capacity, 0 : self._next]
            return self._t[order], self._v[order]  # fancy indexing already copies

    def bounds(self) -> tuple[float, float] | None:
        """The oldest and the newest time held, None while empty."""
        with self._lock:
            if not self._count:
                return None
            oldest = 0 if self._count < self.capacity else self._next
            return float(self._t[oldest]), float(self._t[(self._next - 1) % self.capacity])

    def clear(self) -> None:
        with self._lock:
            self._next = self._count = 0
            self.version += 1

    def __len__(self) -> int:
        with self._lock:
            return self._count
