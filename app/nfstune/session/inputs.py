"""What an engine is given besides the admin's side (admin.py): the session's hosts as the probe found them, the
store it writes, and the settings the workflow worked out from the facts and the admin's choices."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from nfstune.bench.workloads import WorkloadSizes
from nfstune.recipes.estimate import Estimate
from nfstune.remote import Host
from nfstune.session.load_clients import LoadHost
from nfstune.store import Journal, Results


@dataclass(frozen=True)
class SessionHosts:
    server: Host | None  # None: nfstune cannot log in to it (session/nas_view.py); nothing runs there
    client: Host
    server_address: str  # the server as the clients reach it
    share: str  # the export tested
    # the client host's address as the server sees it: its own mounts in the list of connected clients, and the
    # one client a scratch filesystem is exported to
    client_address: str | None = None
    more: Sequence[LoadHost] = ()  # the further clients, for configurations run from several clients at once
    server_disks: Collection[str] | None = None  # the physical disks under the export, for the server's samples
    server_nic: str | None = None  # each side's NIC towards the other, for the network series
    client_nic: str | None = None


@dataclass(frozen=True)
class SessionStore:
    results: Results  # sessions, runs, repeats, samples, ceilings
    journal: Journal  # every change before it is made, for its undo (also after a crash)


@dataclass(frozen=True)
class SessionSettings:
    sizes: WorkloadSizes  # a plan made with sizes (Plan.sizes) runs with those instead
    fio_available: bool  # on the client; likewise the plan's when it says
    ceilings: bool = True  # the network's and the server disk's ceilings, measured first
    iperf_available: bool = False  # on both hosts
    iperf_seconds: int = 5
    sample_interval_s: float = 1.0
    # each recipe's estimate from these hosts' past runs (recipes.estimate), which the time left starts from
    likely: Mapping[str, Estimate] = field(default_factory=dict)
    # the server's vendor when it is an appliance (HostFacts.appliance): its exports are never written
    appliance: str | None = None
