"""A visit's samplers (bench.live) and the samples they stream: passed on live as "sample" events, kept for the
run in progress and stored when it ends; and the watch for a workload that moves no NFS traffic."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from nfstune.bench.live import HostSampler, RunSamples, Samplers
from nfstune.bench.stall import StallWatch, stall_message
from nfstune.changes.host_change import client_name
from nfstune.remote import Host
from nfstune.remote.local import is_local
from nfstune.session.admin import Admin, Event
from nfstune.session.inputs import SessionHosts
from nfstune.store import Results


class LiveSamples:
    def __init__(self, hosts: SessionHosts, interval_s: float, results: Results, admin: Admin) -> None:
        self.hosts, self.interval_s, self.results, self.admin = hosts, interval_s, results, admin
        self._samples = RunSamples(interval_s)
        self._stall = StallWatch()  # a workload with no NFS traffic for a minute: the server stopped answering?

    def samplers(self, mount_point: str, more: Sequence[Host] = ()) -> Samplers:
        """The server's and the client's samplers, and one for each further client a visit loads the NAS from
        (its role is its name, "client2"...: the live graph draws a line per client)."""
        # the machine nfstune runs on is read through psutil (and its own /proc/self/mountstats), not a shell loop
        server = self.hosts.server
        samplers = []
        if server is not None:  # without a login on the server, the clients' side alone
            samplers.append(
                HostSampler(
                    None if is_local(server) else server,
                    "server",
                    self._on_sample,
                    disks=self.hosts.server_disks,
                    nic=self.hosts.server_nic,
                    interval_s=self.interval_s,
                )
            )
        client = HostSampler(
            None if is_local(self.hosts.client) else self.hosts.client,
            "client",
            self._on_sample,
            mount_point=mount_point,
            nic=self.hosts.client_nic,
            interval_s=self.interval_s,
        )
        further = [
            HostSampler(
                None if is_local(h) else h,
                client_name(number),
                self._on_sample,
                mount_point=mount_point,
                interval_s=self.interval_s,
            )
            for number, h in enumerate(more, start=2)
        ]
        return Samplers((*samplers, client, *further), self.admin.warn)

    def begin(self, run_id: int) -> None:
        """A workload of the run `run_id` starts: its samples are kept for it, and a stall is watched for."""
        self._samples.begin(run_id)
        self._stall.start()

    def end(self) -> None:
        """The workload ended (or failed): what it sampled is stored."""
        self._stall.stop()
        self._samples.end()
        self.flush()

    def wait_closed(self, roles: Collection[str]) -> None:
        # the samples covering the last run's final second arrive after it: kept before the samplers stop
        self._samples.wait_closed(roles)

    def flush(self) -> None:
        for (run_id, role), rows in self._samples.take().items():
            self.results.add_samples(run_id, role, rows)

    def _on_sample(self, role: str, t: float, series: dict[str, float]) -> None:
        """On a sampler's thread: pass the sample on live, and keep it for the run in progress (if any)."""
        self._samples.add(role, t, series)
        self.admin.emit(Event("sample", "", {"role": role, "time": t, "series": series}))
        if role == "client" and self._stall.sample(t, series):
            self.admin.warn(stall_message(self.hosts.client.label, self.hosts.server_address, self._stall.after_s))
