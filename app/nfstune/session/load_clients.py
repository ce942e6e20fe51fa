"""The engine's load from several clients at once (issue 13): the session's clients, checked before anything is
changed; fio's server on each of them, started once per session and journaled in it; and for each visit the export
mounted on every further client, each client with a directory of its own in the session's scratch directory.
bench/clients_runner.py runs the repeats.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nfstune.bench.clients_runner import ClientsRunner, LoadClient
from nfstune.changes.fio_server import FioServer, start_server
from nfstune.changes.mount import ClientMount, client_directory_steps
from nfstune.changes.transaction import Transaction, run_step
from nfstune.errors import Cancelled, NfstuneError
from nfstune.recipes.plan import Plan, client_name
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
    ) -> None:
        self.server, self.hosts, self.server_address, self.share = server, tuple(hosts), server_address, share
        self.cancel, self.log = cancel, log
        self.servers: list[FioServer] = []
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

    def start(self, plan: Plan, tx: Transaction) -> None:
        """fio's server on every client the plan needs, journaled in the session's transaction."""
        for load in self.hosts[: clients_needed(plan)]:
            if self.cancel.is_set():
                raise Cancelled("cancelled: every change was undone")
            self.servers.append(start_server(load.host, tx, load.address))
        if self.servers:
            self.runner = ClientsRunner(self.server, tx, cancel=self.cancel, log=self.log)

    def mount(
        self, tx: Transaction, clients: int, first: ClientMount, options: str, scratch_name: str, mount_point: str
    ) -> list[LoadClient]:
        """The export mounted on the further clients as on the first (`first`, already mounted), and each client's
        own directory in the scratch directory (removed with it); the first `clients` of them."""
        mounts = [first]
        for load in self.hosts[1:clients]:
            if self.cancel.is_set():
                raise Cancelled("cancelled: every change was undone")
            mount = ClientMount(
                load.host,
                self.server,
                tx,
                server_address=self.server_address,
                export_path=self.share,
                options=options,
                scratch_name=scratch_name,
                mount_point=mount_point,
            )
            mount.mount()
            mounts.append(mount)
        loads = []
        for number, (mount, server) in enumerate(zip(mounts, self.servers, strict=False), start=1):
            directory = f"{mount.scratch}/{client_name(number)}"
            (make,) = client_directory_steps(client_name(number), directory).do
            run_step(mount.client, make, action=f"making {directory}")
            loads.append(LoadClient(client_name(number), mount.client, directory, server.reached_as))
        return loads
