"""What the plan shows is what runs, without the lab (issue 38): the engine makes a plan's changes on recording hosts
(recording_hosts.py), and every change it made, in order, is the plan's step of that place, with nothing the plan
did not show; the comparison is the lab guard's own (tests/lab/recording.py). The session's changes run through
Engine.run, each configuration's visit through the engine's VisitExecutor (its workloads and samplers left out:
they change nothing). Every kind of host change in changes/ is made by one of these recipes."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import nfstune.changes
from nfstune.bench.workloads import MIB, WorkloadSizes
from nfstune.changes.steps import Steps
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.plan import Plan, RecipePlan, Visit, build_plan
from nfstune.session.admin import Admin, Event
from nfstune.session.engine import Engine
from nfstune.session.inputs import SessionHosts, SessionSettings, SessionStore
from nfstune.session.load_clients import LoadHost, SessionLoad
from nfstune.session.progress import SessionProgress
from nfstune.session.rounds import RecipeFigures
from nfstune.session.visit import VisitExecutor
from nfstune.store import Journal, Results, open_store
from tests.lab.recording import Sent, assert_plan_ran
from tests.unit.recording_hosts import RecordingHost

SIZES = WorkloadSizes(seq_file_bytes=8 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=40)
SHARE, ADDRESS = "/export", "nas"
ADDRESSES = {"client": "10.99.0.2", "client2": "10.99.0.3"}
EXPORTS = f"{SHARE} 10.99.0.0/24(rw,sync,no_subtree_check)\n".encode()

HEADER = """id = "{id}"
title = "t"
summary = "s"
why = "w"
changes_host = "{host}"
workloads = {workloads}
[rounds]
min = 2
max = 2
warmup = 0
"""
RECIPES = {
    "plan-changes": (
        "server",
        '["sync-4k", "small-files"]',
        """[[configs]]
label = "baseline"
[[configs]]
label = "async, no wdelay"
export = { set = ["async"], unset = ["wdelay"] }
[[configs]]
label = "ra=1M, rsize"
read_ahead_kb = 1024
mount = { vers = "4.2", rsize = 131072 }
[[configs]]
label = "16 threads"
nfsd_threads = 16
""",
    ),
    "plan-filesystem": (
        "server",
        '["sync-4k"]',
        """[[configs]]
label = "ext4"
filesystem = "ext4"
[[configs]]
label = "xfs, async"
filesystem = "xfs"
export = { set = ["async"] }
""",
    ),
    "plan-clients": (
        "client",
        '["seq-write"]',
        """[[configs]]
label = "1 client"
clients = 1
[[configs]]
label = "2 clients"
clients = 2
""",
    ),
    "plan-rdma": (
        "server",
        '["sync-4k"]',
        """[[configs]]
label = "tcp"
mount = { vers = "4.2", proto = "tcp" }
[[configs]]
label = "rdma"
mount = { vers = "4.2", proto = "rdma", port = 20049 }
""",
    ),
}


# what must be among the changes made (a step the plan makes conditional may be left out, so each kind's presence
# is checked on its own): the session's, by recipe and login, and each configuration's visit
# the scratch directory private to the run: made 0700 on the server, given to the owner of the client's probe file
# (the user the share maps its root to); without a login, made over NFS with the workloads' folder in it, 0700
PRIVATE = [
    "mkdir -m 0700 /export/.nfstune-00aa ||",
    ': > "$m"/.nfstune-00aa/.nfstune-probe-',
    'chown "$o" /export/.nfstune-00aa && chmod 0700 /export/.nfstune-00aa',
]
PRIVATE_OVER_NFS = [
    'd="$m"/.nfstune-00aa; if mkdir -m 0700 "$d" 2>/dev/null; then',
    'mkdir -m 0700 "$d"/files',
    'as_owner chmod 0711 "$d"',
]
SESSION_MADE = {
    ("plan-changes", True): ["rm -f /var/tmp/nfstune-smallfiles.tar", *PRIVATE],
    ("plan-changes", False): ["rm -f /var/tmp/nfstune-smallfiles.tar", *PRIVATE_OVER_NFS],
    ("plan-filesystem", True): PRIVATE,
    ("plan-filesystem", False): PRIVATE_OVER_NFS,
    ("plan-clients", True): ["--server=ip:10.99.0.2,8765", "--server=ip:10.99.0.3,8765", "nfstune-fio-job-client2"],
    ("plan-clients", False): ["--server=ip:10.99.0.2,8765", "--server=ip:10.99.0.3,8765", "nfstune-fio-job-client2"],
    ("plan-rdma", True): ["echo rdma 20049 > /proc/fs/nfsd/portlist", "systemctl restart nfs-server"],
    ("plan-rdma", False): PRIVATE_OVER_NFS,
}
VISIT_MADE = {
    "baseline": ["mount -t nfs -o nosharecache nas:/export"],
    "async, no wdelay": ["exportfs -ra", "exportfs -ra && exportfs -f"],
    "ra=1M, rsize": ["rsize=131072 nas:/export", "echo 1024 > /sys/class/bdi/0:55/read_ahead_kb"],
    "16 threads": ["echo 16 > /proc/fs/nfsd/threads", "echo 8 > /proc/fs/nfsd/threads"],
    # the scratch filesystem's top folder the clients pass through, and the scratch directory in it theirs alone
    "ext4": ["mkfs.ext4", "mount -o loop", "nas:/srv/nfstune-isolated-", "chmod 0755 /srv/nfstune-isolated-", "chown"],
    "xfs, async": ["mkfs.xfs", "(rw,no_subtree_check,async)", "nas:/srv/nfstune-isolated-", "chmod 0755", "chown"],
    "1 client": ["mkdir -p /mnt/nfstune/00aa/.nfstune-00aa/client"],
    "2 clients": ["mkdir -p /mnt/nfstune/00aa/.nfstune-00aa/client2"],
    "tcp": ["proto=tcp nas:/export"],
    "rdma": ["proto=rdma,port=20049 nas:/export"],
}


def made_all(marks: Sequence[str], ran: Sequence[Sent], hosts: RecordingHost | None = None) -> list[str]:
    """The marks found in none of the changes made (a written file counts by its path and its text)."""
    texts = [s.line for s in ran]
    if hosts is not None:
        texts += [data.decode(errors="replace") for data in hosts.files.values()]
    return [mark for mark in marks if not any(mark in text for text in texts)]


def plan_of(tmp_path: Path, name: str, *, login: bool = True) -> Plan:
    host, workloads, configs = RECIPES[name]
    return plan_of_text(tmp_path, name, HEADER.format(id=name, host=host, workloads=workloads) + configs, login=login)


def plan_of_text(tmp_path: Path, name: str, text: str, *, login: bool = True) -> Plan:
    """The plan of the recipe `text` (its id `name`) on these tests' hosts and sizes."""
    folder = tmp_path / "recipes"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.toml").write_text(text)
    recipes, errors = load_recipes([folder])
    assert errors == []
    (recipe,) = (r for r in recipes if r.id == name)
    return build_plan(
        [recipe],
        {},
        scale="small",
        seed=1,
        sizes=SIZES,
        fio_available=True,
        share=SHARE,
        server_address=ADDRESS,
        scratch_name=".nfstune-00aa",
        server_login=login,
    )


class Hosts:
    """A server with its exports file, the client, a second client, all recording into `sent`; a store."""

    def __init__(self, tmp_path: Path, *, login: bool = True) -> None:
        self.sent: list[Sent] = []
        self.server = RecordingHost("server", self.sent, files={"/etc/exports": EXPORTS}) if login else None
        self.client = RecordingHost("client", self.sent)
        self.client2 = RecordingHost("client2", self.sent)
        more = [LoadHost(self.client2, ADDRESSES["client2"], True)]  # type: ignore[arg-type]
        self.session = SessionHosts(self.server, self.client, ADDRESS, SHARE, ADDRESSES["client"], more)  # type: ignore[arg-type]
        conn = open_store(tmp_path / f"s{id(self)}.sqlite3")
        self.store = SessionStore(Results(conn), Journal(conn))
        self.events: list[Event] = []
        self.admin = Admin(self.events.append)
        self.id = self.store.results.start_session(
            server_host=None, client_host=None, share=SHARE, scale="small", recipes=["t"]
        )


class NoSamples:
    """The samplers read /proc in loops of their own: they change nothing, and are left out."""

    def samplers(self, mount_point: str, more: Sequence[Any] = ()) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()

    def flush(self) -> None:
        pass

    def wait_closed(self, roles: Sequence[str]) -> None:
        pass


class NoWorkloads:
    """The workloads' steps are the plan's runs (bench/commands.py), not its changes: checked in test_plan.py."""

    def forget_seq_file(self) -> None:
        pass

    def run(self, *args: object) -> None:
        pass


def run_session(plan: Plan, hosts: Hosts) -> Plan:
    """The session's changes through Engine.run, its undo at the end; returns the plan as far as it ran (no
    recipe)."""
    ran = dataclasses.replace(plan, recipes=())
    settings = SessionSettings(SIZES, True, ceilings=False)
    Engine(hosts.session, hosts.store, hosts.admin, settings).run(hosts.id, ran)
    assert hosts.store.results.session(hosts.id)["status"] == "completed"
    return ran


def run_visit(plan: Plan, item: RecipePlan, visit: Visit, hosts: Hosts, runner: NoWorkloads | None = None) -> Plan:
    """One visit through the engine's VisitExecutor, its undo at its end; returns the plan of that visit alone (its
    changes' steps, no workload)."""
    load = SessionLoad(
        hosts.server,
        [LoadHost(hosts.client, ADDRESSES["client"], True), *hosts.session.more],  # type: ignore[arg-type]
        server_address=ADDRESS,
        share=SHARE,
        cancel=hosts.admin.cancel,
        log=hosts.admin.log,
    )
    load.servers = {role: f"{address},8765" for role, address in ADDRESSES.items()}  # started with the session
    executor = VisitExecutor(
        plan,
        hosts.session,
        hosts.store,
        hosts.admin,
        appliance=None,
        progress=SessionProgress(hosts.admin),
        load=load,
        samples=NoSamples(),  # type: ignore[arg-type]
        runner=runner or NoWorkloads(),  # type: ignore[arg-type]
    )
    executor.run(hosts.id, item, visit, {}, RecipeFigures(item), SIZES)
    alone = dataclasses.replace(item, visits=(dataclasses.replace(visit, run=()),))
    return dataclasses.replace(plan, recipes=(alone,), session=Steps())


def first_visits(plan: Plan) -> Iterator[tuple[RecipePlan, Visit]]:
    for item in plan.recipes:
        for config in item.configs:
            yield item, next(v for v in item.visits if v.label == config.label)


@pytest.mark.parametrize("name", sorted(RECIPES))
@pytest.mark.parametrize("login", [True, False], ids=["login", "no-login"])
def test_the_session_changes_are_the_plans(tmp_path: Path, name: str, login: bool) -> None:
    plan = plan_of(tmp_path, name, login=login)
    hosts = Hosts(tmp_path, login=login)
    ran = assert_plan_ran(run_session(plan, hosts), hosts.sent)
    assert made_all(SESSION_MADE[(name, login)], ran) == []
    if not login:
        assert "server" not in {s.role for s in hosts.sent}


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_visits_changes_are_the_plans(tmp_path: Path, name: str) -> None:
    plan = plan_of(tmp_path, name)
    for item, visit in first_visits(plan):
        hosts = Hosts(tmp_path)
        ran = assert_plan_ran(run_visit(plan, item, visit, hosts), hosts.sent)
        assert made_all(VISIT_MADE[visit.label], ran, hosts.server) == [], visit.label
        assert hosts.store.journal.pending() == []  # everything it journaled was undone


def test_the_login_on_the_client_reads_nothing_inside_the_private_scratch_directory(tmp_path: Path) -> None:
    """The scratch directory is 0700, the user's the share maps root to: a login that is not root may stat it (the
    export used once mounted, so that the kernel's view of it can be checked), never list or open what is in it."""
    plan = plan_of(tmp_path, "plan-changes")
    item = plan.recipes[0]
    visit = next(v for v in item.visits if v.label == "async, no wdelay")  # checked once a client has mounted
    hosts = Hosts(tmp_path)
    run_visit(plan, item, visit, hosts)
    scratch = f"{plan.mount_point}/{plan.scratch_name}"
    as_login = [s.line for s in hosts.sent if s.role == "client" and not s.sudo and scratch in s.line]
    assert f"stat -c %i {scratch}" in as_login, as_login
    assert not [line for line in as_login if line.startswith("ls ") or f"{scratch}/" in line], as_login


def test_without_a_login_a_visit_changes_the_client_alone(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, "plan-changes", login=False)
    assert [c.label for c in plan.recipes[0].configs] == ["baseline", "ra=1M, rsize"]
    for item, visit in first_visits(plan):
        hosts = Hosts(tmp_path, login=False)
        assert_plan_ran(run_visit(plan, item, visit, hosts), hosts.sent)
        assert "server" not in {s.role for s in hosts.sent}


def test_what_a_visit_asks_for_is_what_the_hosts_run_while_it_measures(tmp_path: Path) -> None:
    """Beyond the steps' words: the recording hosts' own state while the workloads would run."""
    plan = plan_of(tmp_path, "plan-changes")
    item = plan.recipes[0]
    seen: dict[str, tuple[object, ...]] = {}

    class Watch(NoWorkloads):
        def __init__(self, label: str, hosts: Hosts) -> None:
            self.label, self.hosts = label, hosts

        def run(self, *args: object) -> None:
            server = self.hosts.server
            assert server is not None
            seen[self.label] = (tuple(self.hosts.client.mounts), server.kernel.threads, server.exports_table())

    for label in ("ra=1M, rsize", "16 threads", "async, no wdelay"):
        hosts = Hosts(tmp_path)
        visit = next(v for v in item.visits if v.label == label)
        run_visit(plan, item, visit, hosts, Watch(label, hosts))
    mounts, threads, _ = seen["ra=1M, rsize"]
    assert mounts == (("nas:/export", "/mnt/nfstune/00aa", "nosharecache,vers=4.2,rsize=131072"),)
    assert threads == 8 and seen["16 threads"][1] == 16
    assert seen["ra=1M, rsize"][2] == {(SHARE, "10.99.0.0/24"): ("rw", "sync", "no_subtree_check")}
    changed = seen["async, no wdelay"][2][(SHARE, "10.99.0.0/24")]
    assert "async" in changed and "sync" not in changed


def change_kinds() -> set[type]:
    """Every host change defined in changes/: a class with both `steps` (the plan's) and `apply` (the engine's)."""
    kinds = set()
    for info in pkgutil.iter_modules(nfstune.changes.__path__, "nfstune.changes."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            ours = cls.__module__ == module.__name__ and not getattr(cls, "_is_protocol", False)
            if ours and callable(getattr(cls, "steps", None)) and callable(getattr(cls, "apply", None)):
                kinds.add(cls)
    return kinds


def test_every_kind_of_change_is_made_by_one_of_these_plans(tmp_path: Path) -> None:
    made: set[type] = set()
    for name in RECIPES:
        for login in (True, False):
            plan = plan_of(tmp_path, name, login=login)
            made |= {type(c) for c in plan.session_changes}
            made |= {type(c) for item in plan.recipes for v in item.visits for c in v.changes}
    kinds = change_kinds()
    assert len(kinds) >= 11  # the list is found: the seven of issue 38 and the session's own
    assert made == kinds, f"not made by any plan here: {sorted(k.__name__ for k in kinds - made)}"
