"""Live series while a configuration runs: one sampler per host on a thread of its own.

A remote host streams raw /proc snapshots over one SSH channel (bench.sampler.sampler_command), parsed here; the
machine nfstune runs on is read through psutil. Each interval becomes a handful of named series, in bytes/s and
CPU %, passed to `on_sample(role, time, series)` from the sampler's thread: the callback must be thread-safe.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Mapping

from nfstune.bench.sampler import LocalSampler, Sample, SampleParser, sampler_command
from nfstune.errors import NfstuneError
from nfstune.remote import Host
from nfstune.remote.process import RemoteProcess

log = logging.getLogger(__name__)

# stored series names (samples table) and what they hold
SERIES = {
    "cpu_percent": "CPU busy, % of all CPUs",
    "nfs_read_bps": "our NFS mount: bytes/s read from the server",
    "nfs_write_bps": "our NFS mount: bytes/s written to the server",
    "nfs_ops_per_s": "our NFS mount: RPC requests/s (every operation)",
    "disk_read_bps": "the export's disks: bytes/s read",
    "disk_write_bps": "the export's disks: bytes/s written",
    "net_rx_bps": "the NIC towards the peer: bytes/s received",
    "net_tx_bps": "the NIC towards the peer: bytes/s sent",
}
OnSample = Callable[[str, float, dict[str, float]], None]


def _pick(rates: Mapping[str, float], wanted: str | None) -> float | None:
    """One NIC's rate when it is known and present, else the sum of all (loopback is never in `rates`)."""
    if wanted is not None and wanted in rates:
        return rates[wanted]
    return sum(rates.values()) if rates else None


def series_of(sample: Sample, nic: str | None = None) -> dict[str, float]:
    values = {
        "cpu_percent": sample.cpu_busy_percent,
        "nfs_read_bps": sample.nfs_read_bytes_per_s,
        "nfs_write_bps": sample.nfs_write_bytes_per_s,
        "nfs_ops_per_s": sample.nfs_ops_per_s,
        "disk_read_bps": sum(sample.disk_read_bytes_per_s.values()) if sample.disk_read_bytes_per_s else None,
        "disk_write_bps": sum(sample.disk_write_bytes_per_s.values()) if sample.disk_write_bytes_per_s else None,
        "net_rx_bps": _pick(sample.net_rx_bytes_per_s, nic),
        "net_tx_bps": _pick(sample.net_tx_bytes_per_s, nic),
    }
    return {name: float(v) for name, v in values.items() if v is not None}


class HostSampler:
    """Samples one host once a second until stop(). A sampler that fails (the host went away) logs why and stops;
    the measurement itself goes on and reports its own errors."""

    def __init__(
        self,
        host: Host | None,
        role: str,
        on_sample: OnSample,
        *,
        mount_point: str | None = None,
        disks: Collection[str] | None = None,
        nic: str | None = None,
        interval_s: float = 1.0,
    ) -> None:
        """`host` None samples this machine with psutil."""
        self.host, self.role, self.on_sample = host, role, on_sample
        self.mount_point, self.disks, self.nic, self.interval_s = mount_point, disks, nic, interval_s
        self.error: str | None = None
        self.count = 0
        self._stop = threading.Event()
        self._process: RemoteProcess | None = None
        self._thread = threading.Thread(target=self._run, name=f"sampler-{role}", daemon=True)

    def start(self) -> HostSampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        process = self._process
        if process is not None:
            try:
                process.cancel()
            except NfstuneError as exc:  # the host went away: nothing left to stop there
                log.info("%s sampler: %s", self.role, exc)
        self._thread.join(timeout=10)

    def __enter__(self) -> HostSampler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _deliver(self, sample: Sample) -> None:
        self.count += 1
        self.on_sample(self.role, sample.time, series_of(sample, self.nic))

    def _run(self) -> None:
        try:
            if self.host is None:
                self._run_local()
            else:
                self._run_remote(self.host)
        except Exception as exc:  # a sampler never takes a measurement down with it
            if not self._stop.is_set():
                self.error = f"{self.role} sampler stopped: {exc}"
                # the host going away is expected; anything else is a bug, whose traceback the log keeps
                log.warning(self.error, exc_info=not isinstance(exc, NfstuneError | OSError))

    def _run_local(self) -> None:
        local = LocalSampler(self.disks, self.mount_point)
        while not self._stop.wait(self.interval_s):
            self._deliver(local.sample())

    def _run_remote(self, host: Host) -> None:
        parser = SampleParser(self.disks)
        self._process = host.start(sampler_command(self.mount_point, self.interval_s))
        if self._stop.is_set():  # stopped while starting: stop() saw no process to cancel
            self._process.cancel()
        for stream, chunk in self._process.chunks():
            if stream == "out":
                for sample in parser.feed(chunk):
                    self._deliver(sample)


class Samplers:
    """Several hosts' samplers as one context: started on entry, stopped on exit, where each one that died is
    passed to `warn` once."""

    def __init__(self, samplers: Collection[HostSampler], warn: Callable[[str], None]) -> None:
        self.samplers, self.warn = tuple(samplers), warn

    def __enter__(self) -> Samplers:
        for sampler in self.samplers:
            sampler.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # all at once: each stop kills its loop over SSH (~0.4 s in the lab VMs), on a host of its own
        stopping = [threading.Thread(target=s.stop, name=f"stop-{s.role}") for s in self.samplers]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()
        for sampler in self.samplers:
            if sampler.error:
                self.warn(f"{sampler.error}; the live graphs miss that host")


class RunSamples:
    """The samples of the run in progress, kept until its owner stores them: they arrive on the samplers' threads,
    and sqlite is written from one thread only.

    A sample covers the interval before it, so each host's first sample after a run ends still holds that run's
    last second (a sync write's final COMMIT flush lands there): it is kept for the run that ended when it arrives
    within one interval (and a little slack for the trip) of `end`. `wait_closed` waits for those samples before
    the samplers stop."""

    SLACK_S = 0.5  # a sample's trip over SSH and the sampler's own parsing

    def __init__(self, interval_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s, self._clock = interval_s, clock
        self._run_id: int | None = None  # samples that arrive while no run is open or closing are not kept
        self._closing: tuple[int, float] | None = None  # (run, when it ended)
        self._closed_roles: set[str] = set()  # the hosts whose closing sample has arrived
        self._cond = threading.Condition()
        self._pending: list[tuple[int, str, str, float, float]] = []

    def begin(self, run_id: int) -> None:
        with self._cond:
            self._run_id = run_id

    def end(self) -> None:
        with self._cond:
            if self._run_id is not None:
                self._closing, self._closed_roles = (self._run_id, self._clock()), set()
            self._run_id = None

    def _window_open(self) -> bool:
        return self._closing is not None and self._clock() - self._closing[1] <= self.interval_s + self.SLACK_S

    def add(self, role: str, t: float, series: Mapping[str, float]) -> None:
        with self._cond:
            run_id = self._run_id
            if self._closing is not None and role not in self._closed_roles and self._window_open():
                run_id = self._closing[0]
                self._closed_roles.add(role)
                self._cond.notify_all()
            if run_id is not None:
                self._pending.extend((run_id, role, name, t, v) for name, v in series.items())

    def wait_closed(self, roles: Collection[str]) -> bool:
        """Wait until each of `roles` has delivered the sample that closes the last run, or the window for it has
        passed. True when every one came."""
        with self._cond:
            while self._closing is not None and not set(roles) <= self._closed_roles:
                left = self._closing[1] + self.interval_s + self.SLACK_S - self._clock()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def take(self) -> dict[tuple[int, str], list[tuple[str, float, float]]]:
        """What arrived since the last take, as (run, role) -> [(series, time, value)]."""
        with self._cond:
            pending, self._pending = self._pending, []
        by_run: dict[tuple[int, str], list[tuple[str, float, float]]] = {}
        for run_id, role, name, t, v in pending:
            by_run.setdefault((run_id, role), []).append((name, t, v))
        return by_run
