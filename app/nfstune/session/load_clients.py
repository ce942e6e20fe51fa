"""The engine's load from several clients at once (issue 13): the session's clients, checked before anything is
changed; the fio servers the session's changes started on them (changes/fio_server.py FioServerOn); and for each
visit the clients it loads the server from, each mounted and with a directory of its own in the session's scratch
directory by the visit's changes (changes/mount.py Mount, ClientDirectory). bench/clients_runner.py runs the
repeats.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nfstune.bench.clients_runner import JOB_PREFIX, ClientsRunner, LoadClient
from nfstune.changes.host_change import OnHosts, client_name
from nfstune.changes.transaction import Transaction
from nfstune.errors import NfstuneError
from nfstune.recipes.plan import Plan
from nfstune.remote import Host


@dataclass(frozen=True)
class LoadHost:
    """A client of the session, as the load from several clients needs it."""

    host: Host
    address: str  # its own address on the route to the server, where its fio server listens
    fio_available: bool


def clients_needed(plan: Plan) -> int:
    """The most clients at once any configuration of the plan runs from; 0 when none does."""
    return max((c.clients or 0 for item in plan.recipes for c in item.configs), default=0)


class SessionLoad:
    """The session's clients (the first one first) and, once started, their fio servers."""

    def __init__(
        self,
        server: Host | None,
        hosts: Sequence[LoadHost],
        *,
        server_address: str,
        share: str,
        cancel: threading.Event,
        log: Callable[[str], None],
        waiting: Callable[[str], None] = lambda _text: None,
    ) -> None:
        """`waiting`: a line about once a second while a host is still writing back before a run."""
        self.server, self.hosts, self.server_address, self.share = server, tuple(hosts), server_address, share
        self.cancel, self.log, self.waiting = cancel, log, waiting
        self.servers: dict[str, str] = {}  # how fio's front end reaches each client's server, by its name
        self.runner: ClientsRunner | None = None

    def check(self, plan: Plan) -> None:
        """Before anything is changed: enough clients, each with fio and an address its fio server can listen on."""
        needed = clients_needed(plan)
        if needed > len(self.hosts):
            raise NfstuneError(
                f"the plan needs {needed} clients at once and this session has {len(self.hosts)}: give --client once "
                "per client (or `nfstune lab up --clients N`). Nothing was changed."
            )
        for load in self.hosts[:needed]:
            if not load.fio_available:
                raise NfstuneError(
                    f"{load.host.label} has no fio: several clients start together only through fio's own "
                    "client/server mode (install the Debian/Ubuntu package fio, or fio on Fedora). Nothing was changed."
                )
            if not load.address:
                raise NfstuneError(
                    f"{load.host.label}: its address towards {self.server_address} is unknown (no route found by the "
                    "probe), so its fio server has nowhere to listen. Nothing was changed."
                )

    @property
    def by_role(self) -> dict[str, Host]:
        """The session's clients by the names the plan gives them (client, client2, ...)."""
        return {client_name(number): load.host for number, load in enumerate(self.hosts, start=1)}

    @property
    def addresses(self) -> dict[str, str]:
        return {client_name(number): load.address for number, load in enumerate(self.hosts, start=1)}

    def started(self, on: OnHosts, tx: Transaction) -> None:
        """The fio servers the session's changes started (`on.fio_servers`): fio's front end reaches them."""
        self.servers = dict(on.fio_servers)
        if self.servers:
            # the job files are the session's own changes (a Tempfile each), journaled before the first is written
            journaled = {path for path in on.tempfiles if path.startswith(JOB_PREFIX)}
            self.runner = ClientsRunner(
                self.server, tx, cancel=self.cancel, log=self.log, journaled=journaled, waiting=self.waiting
            )

    def loads(self, clients: int, on: OnHosts) -> list[LoadClient]:
        """The first `clients` clients as a visit's changes left them: mounted, each with its own directory."""
        names = [client_name(number) for number in range(1, clients + 1)]
        return [LoadClient(n, on.host(n), f"{on.where.scratch}/{n}", self.servers[n]) for n in names]
