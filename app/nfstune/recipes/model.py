"""What a recipe is once loaded: configurations (changes on the server and the client), workloads, rounds, texts.

Conditions (`when`) test host facts by name. The facts are a small fixed vocabulary (FACTS) computed from the
probes of both hosts (recipe_facts); a condition is data, never code: a fact, a value, and at most a comparison.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from nfstune.bench.workloads import WORKLOADS as BENCH_WORKLOADS
from nfstune.bench.workloads import WorkloadSpec
from nfstune.nfs.export_edit import ExportOptionEdit
from nfstune.nfs.kernel_view import offered_versions
from nfstune.nfs.mount_options import RDMA_PORT, MountOptions
from nfstune.recipes.condition_words import have_words, need_words
from nfstune.words import and_list

if TYPE_CHECKING:
    from nfstune.facts.model import HostFacts

ChangesHost = Literal["client", "server"]
FactKind = Literal["versions", "filesystems", "int", "bool"]
FactValue = int | bool | frozenset[str] | None  # None: the probe could not tell
Scalar = str | int | bool


# recipes and stored runs name a workload by its text: the registry (bench.workloads), keyed by that text
WORKLOADS: Mapping[str, WorkloadSpec] = {str(id_): spec for id_, spec in BENCH_WORKLOADS.items()}


@dataclass(frozen=True)
class Fact:
    kind: FactKind
    description: str


FACTS: Mapping[str, Fact] = {
    "server_nfs_version": Fact("versions", "an NFS version the server offers: 2, 3, 4 (any 4.x), 4.0, 4.1, 4.2"),
    "server_max_block_size": Fact("int", "the largest READ/WRITE the server grants, bytes (max_block_size)"),
    "server_ram_bytes": Fact("int", "the server's RAM, bytes"),
    "server_nfsd_threads": Fact("int", "nfsd threads running on the server"),
    "server_disk_rotational": Fact("bool", "the exported filesystem sits on a spinning disk"),
    "link_speed_mbps": Fact("int", "the slower NIC speed of the two hosts on the route between them, Mbit/s"),
    "link_mtu": Fact("int", "the smaller MTU of the two hosts' NICs on that route"),
    "clients_connected": Fact("int", "the clients this session has (--client given that many times, or the lab's)"),
    "server_filesystems": Fact(
        "filesystems", "a scratch filesystem nfstune can make on the server (its mkfs is there): ext4, xfs, btrfs"
    ),
    "rdma_both": Fact("bool", "the server and the client each have an active RDMA device (/sys/class/infiniband)"),
    "rdma_software": Fact("bool", "an RDMA device of the two hosts is emulated over Ethernet (soft-RoCE, soft-iWARP)"),
}


def _smaller(*values: int | None) -> int | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


def recipe_facts(
    server: HostFacts | None, client: HostFacts | None, clients: int | None = None
) -> dict[str, FactValue]:
    """The facts conditions may test, from the probes; None where a probe did not tell (e.g. no root). `clients`:
    how many clients the session has (None: not known, as in a dry run)."""
    versions = None
    if server and server.nfsd_versions_enabled is not None:
        versions = offered_versions(server.nfsd_versions_enabled, server.nfsd_versions_disabled or frozenset())
    server_route = server.route if server else None
    client_route = client.route if client else None
    return {
        "server_nfs_version": versions,
        "server_max_block_size": server.nfsd_max_block_size if server else None,
        "server_ram_bytes": server.mem_total_bytes if server else None,
        "server_nfsd_threads": server.nfsd_threads if server else None,
        "server_disk_rotational": server.filesystem.rotational if server and server.filesystem else None,
        "link_speed_mbps": _smaller(
            server_route.speed_mbps if server_route else None, client_route.speed_mbps if client_route else None
        ),
        "link_mtu": _smaller(server_route.mtu if server_route else None, client_route.mtu if client_route else None),
        "clients_connected": clients,
        "server_filesystems": frozenset(fs for fs in ("ext4", "xfs", "btrfs") if f"mkfs.{fs}" in server.tools)
        if server
        else None,
        "rdma_both": all(any(d.active for d in h.rdma_devices) for h in (server, client))
        if server and client
        else None,
        "rdma_software": any(d.software for h in (server, client) for d in h.rdma_devices)
        if server and client
        else None,
    }


@dataclass(frozen=True)
class FactTest:
    """One fact against one value: `equals` (a set fact: contains), negated by `negate`; or a numeric bound."""

    fact: str
    equals: Scalar | None = None
    negate: bool = False
    at_least: int | None = None
    below: int | None = None

    def holds(self, facts: Mapping[str, FactValue]) -> bool | None:
        value = facts.get(self.fact)
        if value is None:
            return None
        if self.equals is not None:
            found = self.equals in value if isinstance(value, frozenset) else value == self.equals
            return found != self.negate
        if isinstance(value, frozenset | bool):
            return None  # the loader never builds a bound on such a fact
        return (self.at_least is None or value >= self.at_least) and (self.below is None or value < self.below)

    def describe(self) -> str:
        if self.equals is not None:
            verb = "includes" if FACTS[self.fact].kind in ("versions", "filesystems") else "is"
            return f"{self.fact} {'not ' if self.negate else ''}{verb} {_show(self.equals)}"
        bounds = [
            f">= {self.at_least}" if self.at_least is not None else "",
            f"< {self.below}" if self.below is not None else "",
        ]
        return f"{self.fact} {' and '.join(b for b in bounds if b)}"

    def words(self) -> str:
        """What the test needs in an admin's words ('at least 2 clients at once'): the plan, the Recipes page."""
        return need_words(self.fact, self.equals, self.negate, self.at_least, self.below)


def _show(value: Scalar) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Condition:
    """All tests must hold. holds() is True, False, or None when a fact it needs is unknown (the planner decides
    whether to try such a configuration or to skip it with describe() as the reason)."""

    tests: tuple[FactTest, ...] = ()

    def holds(self, facts: Mapping[str, FactValue]) -> bool | None:
        results = [test.holds(facts) for test in self.tests]
        if False in results:
            return False
        return None if None in results else True

    def describe(self) -> str:
        """The condition in the recipe file's terms (its facts' names), for whoever writes recipes."""
        return " and ".join(test.describe() for test in self.tests) or "always"

    def words(self) -> str:
        """What the condition needs in an admin's words: 'a server running fewer than 64 nfsd threads and at least
        2 clients at once'."""
        return and_list([test.words() for test in self.tests]) or "nothing"

    def why_not(self, facts: Mapping[str, FactValue]) -> str:
        """Why the condition fails on these facts, in words: what it needs and what the hosts have instead ('it
        needs at least 2 clients at once, and this session has 1 client')."""
        failing = [test for test in self.tests if test.holds(facts) is False]
        have = and_list([have_words(t.fact, value) for t in failing if (value := facts.get(t.fact)) is not None])
        return f"it needs {and_list([t.words() for t in failing])}, and {have}"


_PLACEHOLDER = re.compile(r"\{([a-z_0-9]+)\}")


def render_fact(value: FactValue, name: str) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, frozenset):
        return ", ".join(sorted(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name.endswith(("_size", "_bytes")):
        for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if value >= size:
                return f"{value / size:.3g} {unit}"
    return str(value)


@dataclass(frozen=True)
class Note:
    """Text shown with the results when its condition holds; {fact} placeholders are filled from the facts."""

    text: str
    when: Condition = Condition()

    def render(self, facts: Mapping[str, FactValue]) -> str | None:
        if self.when.holds(facts) is not True:
            return None
        return _PLACEHOLDER.sub(lambda m: render_fact(facts.get(m.group(1)), m.group(1)), self.text)


def placeholders(text: str) -> list[str]:
    return _PLACEHOLDER.findall(text)


@dataclass(frozen=True)
class Config:
    """One configuration: the changes to make before its workloads run."""

    label: str
    mount: MountOptions = field(default_factory=MountOptions)  # options for nfstune's own mount of the export
    read_ahead_kb: int | None = None  # /sys/class/bdi/<dev>/read_ahead_kb of that mount
    export: ExportOptionEdit = field(default_factory=ExportOptionEdit)
    when: Condition = Condition()
    workloads: tuple[str, ...] = ()  # what runs on it: its own list in the file, else the recipe's
    expectation: str | None = None
    warning: str | None = None
    never_recommend: bool = False
    expect: Literal["same"] | None = None  # measures the same as the baseline: a difference means unreliable figures
    # how many clients run each workload at once, through fio's front end (bench/clients_runner.py); None: the one
    # client alone, through the one-client runner. A recipe has it on every configuration or on none, so that its
    # comparisons are between figures measured the same way.
    clients: int | None = None
    nfsd_threads: int | None = None  # the server's nfsd thread count while it runs (changes/nfsd_threads.py)
    # a scratch filesystem of this type, made by nfstune in a file on the share's disk and exported alone while the
    # configuration runs (changes/isolated.py): the user's export is not used at all. None: the share itself.
    filesystem: str | None = None

    def stored(self) -> dict[str, object]:
        """The configuration as a run stores it (the runs table's config column): what the engine writes, and what
        the stop rule takes for a run the store has not opened yet."""
        return {
            "mount": self.mount.render(),
            "export_set": list(self.export.set),
            "read_ahead_kb": self.read_ahead_kb,
            "expect": self.expect,
            "clients": self.clients,
            "nfsd_threads": self.nfsd_threads,
        }

    @property
    def rdma_port(self) -> int | None:
        """The port nfsd must listen for RDMA on while this configuration runs (changes/nfsd_listener.py); None
        over TCP or UDP."""
        if self.mount.proto not in ("rdma", "rdma6"):
            return None
        port = self.mount.get("port")
        return int(port) if port and port.isdigit() and int(port) > 0 else RDMA_PORT

    @property
    def changes_server(self) -> bool:
        return (
            bool(self.export)
            or self.nfsd_threads is not None
            or self.filesystem is not None
            or self.rdma_port is not None
        )


def _default_budgets() -> Mapping[str, float]:
    # "normal": a lunch break for a recipe of its own (issue 28: every shipped single-pair recipe within 20 min)
    return {"small": 15.0, "normal": 20.0}


@dataclass(frozen=True)
class Rounds:
    """How a recipe runs: rounds, in each of which every configuration is visited once (in a new order). After
    `warmup` discarded visits of the baseline, at least `min` rounds; then the rounds stop when every comparison is
    settled, when another would not fit in the scale's time budget, or at `max`."""

    min: int = 3
    # the last look the verdicts are corrected for (statistics/sequential.py), cut further to what the budget holds
    # (recipes/plan.rounds_in_budget): at 8 looks a 10 % effect at 5 % noise on a round's ratio settles within 6
    # rounds in more than 80 % of sessions (docs/bench/verdict-simulation.md); at 20, in 70 %
    max: int = 8
    warmup: int = 1  # warm-up visits of the baseline before round 1
    margin_percent: float = 5.0  # "no difference that matters" within +-margin
    # short workloads whose per-round ratios spread more than this grow their files (growth.py)
    grow_spread_percent: float = 10.0
    budget_minutes: Mapping[str, float] = field(default_factory=_default_budgets, hash=False)  # per scale

    def budget_s(self, scale: str) -> float:
        minutes = self.budget_minutes.get(scale, _default_budgets().get(scale, 60.0))
        return minutes * 60.0


@dataclass(frozen=True)
class Recipe:
    id: str
    title: str
    summary: str
    why: str
    changes_host: ChangesHost
    configs: tuple[Config, ...]
    workloads: tuple[str, ...]
    baseline: str  # the label of the configuration the others are compared with
    rounds: Rounds = field(default_factory=Rounds)
    warning: str | None = None
    expectation: str | None = None
    never_recommend: bool = False
    show_negotiated: tuple[str, ...] = ()  # mount options whose negotiated value (/proc/mounts) is shown
    notes: tuple[Note, ...] = ()
    source: Path = field(default=Path(), compare=False)
    user_provided: bool = False  # from the user's recipe folder
    overrides: Path | None = field(default=None, compare=False)  # the shipped file a user recipe replaces

    def config(self, label: str) -> Config:
        for config in self.configs:
            if config.label == label:
                return config
        raise KeyError(f"recipe {self.id} has no configuration {label!r}")

    def may_recommend(self, config: Config) -> bool:
        """Whether advice may ever recommend this configuration, however fast it measured."""
        return not (self.never_recommend or config.never_recommend)
