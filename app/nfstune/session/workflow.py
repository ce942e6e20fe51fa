"""One measurement session from connected hosts to stored results: probe both hosts, plan, start the session,
build the engine with sizes and sampler settings from the facts, and read the recommendation afterwards. The CLI
and the desktop's jobs both use it, so that a session is the same whichever started it. No Qt.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from nfstune.advice.session import CurrentConfig
from nfstune.bench.sizing import default_sizes, growth_limits, plan_sizes
from nfstune.bench.workloads import MIB, WorkloadSizes
from nfstune.changes.transaction import host_key
from nfstune.errors import ConfigError
from nfstune.facts.model import HostFacts
from nfstune.nfs.own_mount import new_scratch_name
from nfstune.recipes.estimate import Estimate, PastRun, estimate
from nfstune.recipes.loader import recipes_by_id
from nfstune.recipes.model import FactValue, Recipe, recipe_facts
from nfstune.recipes.plan import Plan, build_plan
from nfstune.recipes.plan_text import plan_json
from nfstune.remote import Host, PermissionDenied
from nfstune.remote.probe import probe
from nfstune.session.admin import Admin, HandPrompt
from nfstune.session.engine import Engine, Event
from nfstune.session.inputs import SessionHosts, SessionSettings, SessionStore
from nfstune.session.load_clients import LoadHost
from nfstune.session.nas_view import NO_LOGIN_NOTES, NO_ROOT_HINT, nas_facts, no_login_label
from nfstune.session.server_change import ServerChange
from nfstune.store import Journal, Results

IPERF_SECONDS = {"small": 5, "normal": 10}


@dataclass
class Pair:
    """The connected hosts, the server's address as the clients reach it, and the export to test. `more`: the
    further clients (the second, third...), for configurations run from several clients at once. `server` is None
    when nfstune cannot log in to the server: it is then only the NFS server the clients mount (nas_view.py)."""

    server: Host | None
    client: Host
    address: str
    share: str
    more: list[Host] = field(default_factory=list)

    @property
    def clients(self) -> list[Host]:
        return [self.client, *self.more]

    @property
    def server_label(self) -> str:
        return self.server.label if self.server is not None else no_login_label(self.address)

    @property
    def server_key(self) -> str:
        """The server's key in the store (its hosts, past runs and journal)."""
        return host_key(self.server) if self.server is not None else f"nfs@{self.address}"


@dataclass(frozen=True)
class Facts:
    server: HostFacts
    client: HostFacts
    more: tuple[HostFacts, ...] = ()  # the further clients', in Pair.more's order


def probe_pair(pair: Pair) -> Facts:
    """The client first: its route to the server gives its own address, by which the server's NIC towards the
    client is found (for the MTU comparison and the server's network series).

    Every sudo password is asked for here, before anything is changed: not later, with the server already
    changed while a prompt waits for an admin who walked away. A server nfstune cannot log in to is seen from the
    client (nas_view.py)."""
    if pair.server is not None:
        try:
            pair.server.sudo_prefix()
        except PermissionDenied as exc:
            said = str(exc).removeprefix(exc.host + ": ")
            raise PermissionDenied(exc.host, f"{said}. {NO_ROOT_HINT}", exc.details) from None
    for each in pair.clients:
        each.sudo_prefix()
    client = probe(pair.client, peer=pair.address)
    more = tuple(probe(each, peer=pair.address) for each in pair.more)
    if pair.server is None:
        return Facts(nas_facts(pair.client, pair.address, pair.share), client, more)
    toward_client = client.route.source_address if client.route is not None else None
    return Facts(probe(pair.server, path=pair.share, peer=toward_client), client, more)


def sizes_for(scale: str, facts: Facts | None, writers: int = 1) -> tuple[WorkloadSizes, WorkloadSizes]:
    """Sizes from the link's speed, the hosts' RAM and the share's free space (never more than half of it), and the
    most they may grow to between rounds (bench/sizing.growth_limits). `writers`: clients that write their own
    files at once (many-clients), who share that free space."""
    fs = facts.server.filesystem if facts else None
    server_ram = facts.server.mem_total_bytes if facts else None
    client_ram = facts.client.mem_total_bytes if facts else None
    # the recipes' own fact: the slower NIC on the route between the hosts
    link = recipe_facts(facts.server, facts.client)["link_speed_mbps"] if facts else None
    speed = link if isinstance(link, int) else None
    if client_ram and server_ram and fs is not None and fs.free_bytes is not None:
        sizing = plan_sizes(client_ram, server_ram, fs.free_bytes // max(1, writers), scale, speed)
        return sizing.sizes, sizing.limits
    sizes = default_sizes(scale, speed)
    return sizes, growth_limits(sizes, max(client_ram or 0, server_ram or 0) or None, None)


def pick_recipes(recipes: Sequence[Recipe], ids: Sequence[str]) -> list[Recipe]:
    by_id = {r.id: r for r in recipes}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise ConfigError(f"unknown recipe {', '.join(unknown)}: choose from {', '.join(sorted(by_id))}")
    return [by_id[i] for i in ids]


def plan_for(
    pair: Pair | None,
    facts: Facts | None,
    recipes: Sequence[Recipe],
    scale: str,
    seed: int | None = None,
    *,
    share: str | None = None,
    address: str | None = None,
    clients: int | None = None,
    server_login: bool = True,
    ask_admin: bool = False,
) -> Plan:
    """The plan of a session, with or without the hosts: unknown facts give the scale's default sizes, fio assumed
    on the client, every condition unknown (such configurations are tried). On an appliance the configurations
    that change the export are skipped with the vendor's own setting. `share`/`address` name the export and the
    server when there is no pair (a dry run), `clients` how many clients it names, `server_login` whether nfstune
    logs in to the server (a pair says so itself: its server is None when it does not); `ask_admin`: whether someone
    can be asked to make a change by hand (recipes/hand_plan.py)."""
    if pair is not None:
        server_login = pair.server is not None
        clients = len(pair.clients)  # known before the probe: a plan shown then skips what they cannot run
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**6)
    notes: list[str] = []
    if not server_login:
        notes += NO_LOGIN_NOTES
    if facts is None:
        notes.append(
            f"the hosts were not probed: the scale's default sizes ({default_sizes(scale).seq_file_bytes // MIB} MiB "
            "files), fio assumed on the client (dd and tar run where it is missing), and every condition on the "
            "hosts unknown (such configurations are tried)"
        )
    connected = 1 + len(facts.more) if facts else 1
    writers = min(connected, max((c.clients or 1 for r in recipes for c in r.configs), default=1))
    sizes, limits = sizes_for(scale, facts, writers)
    unprobed: dict[str, FactValue] = {} if clients is None else {"clients_connected": clients}
    plan = build_plan(
        recipes,
        recipe_facts(facts.server, facts.client, 1 + len(facts.more)) if facts else unprobed,
        scale=scale,
        seed=seed,
        sizes=sizes,
        size_limits=limits,
        fio_available=facts.client.fio_version is not None if facts else True,
        share=pair.share if pair else share or "/share",
        server_address=pair.address if pair else address or "server",
        scratch_name=new_scratch_name(),
        appliance=facts.server.appliance if facts else None,
        server_login=server_login,
        ask_admin=ask_admin,
    )
    return replace(plan, notes=(*notes, *plan.notes))


def start_session(
    results: Results, pair: Pair, facts: Facts, *, scale: str, recipe_ids: Sequence[str], plan: Plan | None = None
) -> int:
    return results.start_session(
        server_host=results.upsert_host(pair.server_key, pair.server_label, facts.server.to_json()),
        client_host=results.upsert_host(host_key(pair.client), pair.client.label, facts.client.to_json()),
        share=pair.share,
        scale=scale,
        recipes=list(recipe_ids),
        server_facts=facts.server.to_json(),
        client_facts=facts.client.to_json(),
        plan=plan_json(plan) if plan is not None else None,
    )


def make_engine(
    pair: Pair,
    facts: Facts,
    *,
    scale: str,
    results: Results,
    journal: Journal,
    emit: Callable[[Event], None],
    cancel: threading.Event,
    ceilings: bool = True,
    confirm: Callable[[ServerChange], bool] | None = None,
    likely: Mapping[str, Estimate] | None = None,
    ask: Callable[[HandPrompt], str] | None = None,
) -> Engine:
    """`confirm`: asked before the first change of the export while other clients use the server (Engine); `ask`:
    the steps of a guided hand change (session/hand_rounds.py);
    `likely`: each recipe's estimate from these hosts' past runs (likely_times), where the time left starts."""
    fs = facts.server.filesystem
    route = facts.client.route
    hosts = SessionHosts(
        pair.server,
        pair.client,
        pair.address,
        pair.share,
        client_address=route.source_address if route is not None else None,
        more=[
            LoadHost(host, (f.route.source_address if f.route is not None else None) or "", f.fio_version is not None)
            for host, f in zip(pair.more, facts.more, strict=True)
        ],
        # the physical disks under the export (diskstats names them as lsblk does; a dm device on top of them
        # would count the same bytes twice)
        server_disks=[d.name for d in fs.disks] if fs is not None and fs.disks else None,
        server_nic=facts.server.route.interface if facts.server.route is not None else None,
        client_nic=route.interface if route is not None else None,
    )
    settings = SessionSettings(
        sizes_for(scale, facts)[0],
        facts.client.fio_version is not None,
        ceilings=ceilings,
        iperf_available=facts.server.iperf3_version is not None and facts.client.iperf3_version is not None,
        iperf_seconds=IPERF_SECONDS.get(scale, 10),
        likely=likely or {},
        # the server's exports are never written on an appliance: the engine refuses before any change
        appliance=facts.server.appliance,
    )
    return Engine(hosts, SessionStore(results, journal), Admin(emit, confirm, cancel=cancel, ask=ask), settings)


def likely_times(results: Results, pair: Pair, recipes: Sequence[Recipe], scale: str) -> dict[str, Estimate]:
    """Each recipe's estimate from the completed runs at this scale, on this pair and elsewhere: what the Recipes
    page says, and where the Run page's time left starts."""
    past = [PastRun(*row) for row in results.past_runs(pair.server_key, host_key(pair.client), scale)]
    known = {**recipes_by_id(), **{r.id: r for r in recipes}}
    return {r.id: estimate(r, scale, past, known) for r in recipes}


def current_export(
    server: Host | None, share: str, client: Host | None = None, address: str | None = None
) -> CurrentConfig:
    """The server's exports files (the share's entry, its clients, "-opts" defaults and all), its nfs.conf files
    and the client's /etc/fstab, read as root, and the addresses the client resolves `address` (the server as it
    mounts it) to. A server nfstune cannot log in to (None): its files are not read (None)."""
    from nfstune.changes.export import read_export_files
    from nfstune.changes.nfsd_threads import read_nfs_conf_files
    from nfstune.remote.lookup import addresses_of

    fstab = client.read_file("/etc/fstab", sudo=True) if client is not None else None
    text = None if fstab is None else fstab.decode("utf-8", "surrogateescape")
    addresses = addresses_of(client, address) if client is not None and address else ()
    if server is None:
        return CurrentConfig(None, text, None, addresses)
    return CurrentConfig(read_export_files(server), text, read_nfs_conf_files(server), addresses)
