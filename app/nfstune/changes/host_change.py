"""A host change as one object, for the plan and for the engine alike: `steps(where)` are what the plan shows (each
kind's steps from its own module, a placeholder where only the run knows a value), `apply(on)` is what the engine
does, running those same steps between its reads and checks, each journaled first. A visit's changes and the
session's own are lists of these, made once by the planner: the plan prints the list's steps, the engine applies
the list, so the two cannot decide a visit differently.

A change that moves what the later ones work on (a scratch filesystem: the visit's mounts mount it, not the share)
says so through `Where.export_path`, in the plan and on the hosts alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from nfstune.changes.steps import Role, Steps
from nfstune.changes.transaction import Transaction
from nfstune.errors import NfstuneError
from nfstune.remote import Host


def client_name(number: int) -> str:
    """The name nfstune gives the k-th client of a session (the lab's own names: client, client2, ...)."""
    return "client" if number == 1 else f"client{number}"


@dataclass
class Where:
    """Where a session's changes land: the share, the server's address, nfstune's mount point and the session's
    scratch directory (its name, in the export)."""

    share: str
    server_address: str
    mount_point: str
    scratch_name: str
    export_path: str = ""  # what a visit's mounts mount: the share, unless a change before made another export
    work: str = ""  # the folder in the scratch directory the workloads write in ("": the directory itself)

    def __post_init__(self) -> None:
        self.export_path = self.export_path or self.share

    @property
    def scratch(self) -> str:
        """Where the workloads write, as a client sees it through nfstune's mount: the scratch directory, or the
        folder `work` in it."""
        return f"{self.mount_point}/{self.scratch_name}" + (f"/{self.work}" if self.work else "")

    def fresh(self) -> Where:
        """The same places, for a new visit: nothing a visit before changed carries over."""
        return dataclasses.replace(self, export_path=self.share)


@dataclass
class OnHosts:
    """The hosts a list of changes is applied to, the transaction that journals them, and what the changes made
    that the session needs after them."""

    where: Where
    tx: Transaction
    server: Host | None  # None: nfstune cannot log in to the server
    clients: Mapping[Role, Host]  # "client", "client2", ...
    addresses: Mapping[Role, str] = field(default_factory=dict)  # each client's own address towards the server
    client_address: str | None = None  # the first client's, as the server's exports name it (None: unknown)
    appliance: str | None = None  # the server's vendor when it is an appliance (it owns its exports)
    log: Callable[[str], None] = lambda _text: None
    # made by the changes
    negotiated: dict[Role, str] = field(default_factory=dict)  # each mount's options as the kernel runs them
    after_mount: list[Callable[[], None]] = field(default_factory=list)  # checks that need a client to have mounted
    fio_servers: dict[Role, str] = field(default_factory=dict)  # how fio's front end reaches each client's server
    scratch: str = ""  # the session's scratch directory, its path on the server
    tempfiles: set[str] = field(default_factory=set)  # journaled for removal at the end: not to be journaled again
    new_filesystem: bool = False  # a visit's files are on a filesystem made for it (nothing of before is there)

    def host(self, role: Role) -> Host:
        if role != "server":
            return self.clients[role]
        if self.server is None:  # the plan skips such changes without a login: a plan made for another pair
            raise NfstuneError(f"nfstune cannot log in to {self.where.server_address}: nothing can change there")
        return self.server


class HostChange(Protocol):
    def steps(self, where: Where) -> Steps:
        """What the plan shows: the change's steps and its undo (may move `where.export_path`)."""
        ...

    def apply(self, on: OnHosts) -> None:
        """The change made on the hosts, journaled in `on.tx` before each step runs."""
        ...


def steps_of(changes: Iterable[HostChange], where: Where) -> Steps:
    """The steps of every change in order, each undone before the ones it followed."""
    return steps_and_where(changes, where)[0]


def steps_and_where(changes: Iterable[HostChange], where: Where) -> tuple[Steps, Where]:
    """steps_of, and the places the changes leave (a scratch filesystem is another export to mount and flush)."""
    where = where.fresh()
    steps = Steps()
    for change in changes:
        steps = steps.then(change.steps(where))
    return steps, where


def apply_all(changes: Iterable[HostChange], on: OnHosts, before_each: Callable[[], None] = lambda: None) -> None:
    """Every change in order; `before_each`: what may stop the list between two changes (a cancel)."""
    for change in changes:
        before_each()
        change.apply(on)
