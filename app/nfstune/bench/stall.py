"""Whether our NFS mount has stopped moving while a workload runs. With a hard mount (nfs(5)'s default) a client
whose server stops answering waits for ever: on the practice lab a client that lost its TCP connections to the NAS
left fio in uninterruptible sleep and the run silent for seven minutes. The client's sampler keeps ticking through
that (it reads /proc, never the mount), so its samples tell: no NFS request and no byte for a minute means the
admin should hear that the server or the network has stopped answering."""

from __future__ import annotations

import threading
from collections.abc import Mapping

STALL_S = 60.0  # no NFS traffic this long during a workload: every workload moves some within seconds
MOVING = ("nfs_ops_per_s", "nfs_read_bps", "nfs_write_bps")


class StallWatch:
    """Fed the client's samples (any thread); `sample` is True once a workload has seen no NFS traffic for
    `after_s` of the client's own clock, and only once per workload."""

    def __init__(self, after_s: float = STALL_S) -> None:
        self.after_s = after_s
        self._lock = threading.Lock()
        self._active = False
        self._since: float | None = None  # the client's time of the last traffic (or of the first sample)
        self._said = False

    def start(self) -> None:
        with self._lock:
            self._active, self._since, self._said = True, None, False

    def stop(self) -> None:
        with self._lock:
            self._active = False

    def sample(self, t: float, series: Mapping[str, float]) -> bool:
        with self._lock:
            if not self._active or not any(name in series for name in MOVING):
                return False  # no workload, or a sample without the mount's counters (not mounted yet)
            if self._since is None or any(series.get(name, 0.0) > 0 for name in MOVING):
                self._since = t
                return False
            if self._said or t - self._since < self.after_s:
                return False
            self._said = True
            return True


def stall_message(client: str, server: str, after_s: float) -> str:
    return (
        f"{client}: no NFS traffic to or from {server} for {after_s:.0f} s while the workload runs. If the "
        f'client\'s kernel log says "server {server} not responding", the server or the network has stopped '
        "answering, and the mount waits until it does: Cancel stops the run and undoes its changes."
    )
