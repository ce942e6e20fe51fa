"""The plan of a session: visit order (warm-up first, every configuration once a round, a new order each round)
and the exact remote argv of a visit; pure, no SSH and no VMs."""

from __future__ import annotations

import json
import random
import shlex
from collections import Counter
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest

from nfstune import paths
from nfstune.bench.workloads import MIB, WorkloadSizes
from nfstune.changes.mount import Mount
from nfstune.recipes import Recipe, load_recipes
from nfstune.recipes.model import FactValue
from nfstune.recipes.plan import RUN_S, Plan, build_plan, round_orders, visit_seconds
from nfstune.recipes.plan_text import plan_json, plan_text

SIZES = WorkloadSizes(seq_file_bytes=8 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=40)
FIVE = ["baseline", "async", "no_wdelay", "rsize=128K", "vers=3"]


@pytest.fixture(scope="module")
def shipped() -> dict[str, Recipe]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in recipes}


def plan_of(recipe: Recipe, seed: int = 7, *, fio: bool = True) -> Plan:
    return build_plan(
        [recipe],
        {},
        scale="small",
        seed=seed,
        sizes=SIZES,
        fio_available=fio,
        share="/srv/export",
        server_address="192.0.2.10",
        scratch_name=".nfstune-4242",
    )


def quick_plan(shipped: dict[str, Recipe], seed: int = 7, *, fio: bool = True) -> Plan:
    return plan_of(shipped["quick-check"], seed, fio=fio)


def test_warmup_first_then_every_configuration_once_a_round_in_a_new_order(shipped: dict[str, Recipe]) -> None:
    item = quick_plan(shipped).recipes[0]
    assert [(v.round, v.label) for v in item.visits[: item.rounds.warmup]] == [(0, "baseline")]
    rounds = [v.round for v in item.visits]
    assert rounds == sorted(rounds) and max(rounds) == item.rounds.max
    orders = [item.order(n) for n in range(1, item.rounds.max + 1)]
    assert all(sorted(order) == sorted(FIVE) for order in orders)
    assert all(a != b for a, b in pairwise(orders))
    assert len({tuple(o) for o in orders}) > len(orders) // 2  # shuffled, not a rotation of one order
    # the same seed gives the same plan (it is stored with the session and reproduces the order)
    assert json.loads(plan_json(quick_plan(shipped)))["recipes"][0]["order"][1:4] == orders[:3]
    assert [quick_plan(shipped, seed=8).recipes[0].order(n) for n in (1, 2, 3)] != orders[:3]


def test_two_configurations_alternate_when_the_shuffle_repeats() -> None:

    orders = round_orders(["sync", "async"], 30, random.Random(1))
    assert all(a != b for a, b in pairwise(orders))
    assert Counter(tuple(o) for o in orders) == {("sync", "async"): 15, ("async", "sync"): 15}


def test_a_visit_carries_its_exact_remote_argv(shipped: dict[str, Recipe]) -> None:
    plan = quick_plan(shipped)
    # the engine runs every workload with what the plan's argv were made with
    assert (plan.sizes, plan.fio_available) == (SIZES, True)
    item = plan.recipes[0]
    visit = next(v for v in item.visits if v.round == 1 and v.label == "no_wdelay")
    mp = "/mnt/nfstune/4242"
    scratch = f"{mp}/.nfstune-4242"
    assert visit.workloads == ("sync-4k",)
    exports = "<the exports file that defines /srv/export>"
    copy = "/var/lib/nfstune/journal/<date-time>-<its name>"
    assert [(s.host, s.writes or s.argv, s.sudo) for s in visit.setup] == [
        ("server", ("mkdir", "-p", "-m", "700", "/var/lib/nfstune/journal"), True),
        ("server", copy, True),
        ("server", exports, True),
        ("server", ("exportfs", "-ra"), True),
        ("client", ("mkdir", "-p", mp), True),
        ("client", ("mount", "-t", "nfs", "-o", "nosharecache,vers=4.2", "192.0.2.10:/srv/export", mp), True),
    ]
    assert "set sync, set no_wdelay" in visit.setup[2].what
    fio = (
        "fio",
        "--ioengine=psync",
        "--direct=0",
        "--fallocate=none",
        "--output-format=json+",
        "--status-interval=1",
        "--eta=never",
    )
    # on the client one shell before the tool (prepare, flush, the mount's counters) and one after (clean up, the
    # counters again): each SSH round trip costs up to a second on slow hosts
    counters = "echo NFSTUNE_MOUNTSTATS && cat /proc/self/mountstats"
    flush = f"{{ sync -f {mp} || sync; }}"  # the client's NFS mount alone
    idle = [(s.host, s.sudo, s.argv[2]) for s in visit.run if "/proc/meminfo" in s.line]
    # then each host flushes and waits for its writeback, the server's export without sudo (bench/writeback.py)
    assert [(host, sudo) for host, sudo, _ in idle] == [("client", True), ("server", False)]
    assert f"sync -f {mp} " in idle[0][2] and "sync -f /srv/export " in idle[1][2]
    assert [(s.host, s.argv, s.sudo) for s in visit.run if "/proc/meminfo" not in s.line] == [
        ("client", ("sh", "-c", f"rm -f -- {scratch}/nfstune-sync4k.dat && {flush} && {counters}"), True),
        (
            "client",
            (
                fio[0],
                "--name=sync-4k",
                f"--filename={scratch}/nfstune-sync4k.dat",
                "--bs=4096",
                "--size=163840",
                "--rw=write",
                "--sync=dsync",
                "--lat_percentiles=1",
                "--percentile_list=50:99",
                *fio[1:],
            ),
            True,
        ),
        ("client", ("sh", "-c", f"rm -f -- {scratch}/nfstune-sync4k.dat && {counters}"), True),
    ]
    assert (
        visit.run[0].what
        == "sync-4k: prepare (untimed), flush what the step before left dirty, read the mount's counters"
    )
    unmount = f"if mountpoint -q {mp}; then umount {mp} || umount -l {mp}; fi; rmdir {mp} 2>/dev/null; true"
    assert [(s.host, s.writes or s.argv, s.sudo) for s in visit.undo] == [
        ("client", ("sh", "-c", unmount), True),
        ("client", ("sh", "-c", "rmdir /mnt/nfstune 2>/dev/null; true"), True),
        ("server", exports, True),
        ("server", ("sh", "-c", "exportfs -ra && exportfs -f"), True),
        (
            "server",
            (
                "sh",
                "-c",
                f"rm -f {shlex.quote(copy)}; rmdir /var/lib/nfstune/journal /var/lib/nfstune 2>/dev/null; true",
            ),
            True,
        ),
    ]
    assert "journaled original bytes" in visit.undo[2].what


def test_an_rsize_goes_from_the_recipe_file_to_the_mount_argv_through_the_plan(tmp_path: Path) -> None:
    """The value a recipe file gives is in the argv of the mount the plan shows, and in the mount the engine makes
    (the visit's Mount change, whose steps the plan shows): one path, no second rendering of the configuration."""
    (tmp_path / "one.toml").write_text(
        'id = "one"\ntitle = "One"\nsummary = "s"\nwhy = "w"\nchanges_host = "client"\nworkloads = ["seq-read"]\n'
        'baseline = "a"\n[[configs]]\nlabel = "a"\nmount = { vers = "4.2" }\n'
        '[[configs]]\nlabel = "b"\nmount = { vers = "4.2", rsize = 65536 }\n'
    )
    recipes, errors = load_recipes([tmp_path])
    assert errors == [], errors
    plan = build_plan(
        recipes,
        {},
        scale="small",
        seed=3,
        sizes=SIZES,
        fio_available=True,
        share="/export",
        server_address="nas",
        scratch_name=".nfstune-1",
    )
    visit = next(v for v in plan.recipes[0].visits if v.label == "b")
    assert Mount("vers=4.2,rsize=65536") in visit.changes
    mount = next(s for s in visit.setup if s.argv[0] == "mount")
    assert mount.argv == (
        "mount",
        "-t",
        "nfs",
        "-o",
        "nosharecache,vers=4.2,rsize=65536",
        "nas:/export",
        "/mnt/nfstune/1",
    )


def test_a_cold_read_drops_both_caches_and_a_client_recipe_never_touches_the_server(
    shipped: dict[str, Recipe],
) -> None:
    plan = build_plan(
        [shipped["readahead"]],
        {},
        scale="small",
        seed=1,
        sizes=SIZES,
        fio_available=False,
        share="/export",
        server_address="[2001:db8::1]",
        scratch_name=".nfstune-9",
    )
    visit = next(v for v in plan.recipes[0].visits if v.label == "ra=1M" and v.round == 1)
    assert all(s.host == "client" for s in visit.setup + visit.undo)
    # the mount's device is known once it is mounted: the plan names it, the run reads it with mountpoint -d
    bdi = shlex.quote("/sys/class/bdi/<the device of /mnt/nfstune/9>/read_ahead_kb")
    assert visit.setup[2].argv == ("sh", "-c", f"echo 1024 > {bdi}")
    drop = "sync && echo 3 > /proc/sys/vm/drop_caches"
    drops = [s.host for s in visit.run if s.argv[:2] == ("sh", "-c") and drop in s.argv[2]]
    assert drops == ["client", "server"]  # the client's first: what it flushes reaches the server before its drop
    assert "fio" not in visit.run[-2].argv[0] and "\ndd " in visit.run[-2].argv[2]  # the fallback


def test_conditions_and_an_appliance_skip_configurations(shipped: dict[str, Recipe]) -> None:
    plan = build_plan(
        [shipped["nfs-versions"], shipped["sync-vs-async"]],
        {"server_nfs_version": frozenset({"3", "4.2"})},
        scale="normal",
        seed=3,
        sizes=SIZES,
        fio_available=True,
        share="/export",
        server_address="192.0.2.10",
        scratch_name=".nfstune-1",
        appliance="synology",
    )
    assert [r.recipe.id for r in plan.recipes] == ["nfs-versions"]
    assert [c.label for c in plan.recipes[0].configs] == ["vers=3", "vers=4.1", "vers=4.2"]
    assert plan.skipped[0] == (
        "nfs-versions vers=4.0: skipped: it needs a server that offers NFS 4.0, and this server offers NFS 3 and 4.2"
    )
    # sync-vs-async: its async is the appliance's to set, and its sync alone would compare with nothing
    assert plan.skipped[1].startswith("sync-vs-async async: skipped (the server is a synology appliance")
    assert plan.skipped[2] == "sync-vs-async: skipped: only sync can run here, with nothing to compare it to"
    assert len(plan.skipped) == 3 and plan.notes == ()


def test_estimate_runs_from_the_minimum_rounds_to_the_budget(shipped: dict[str, Recipe]) -> None:
    plan = quick_plan(shipped)
    item = plan.recipes[0]
    low, high = plan.estimate_s
    assert low < high <= item.budget_s == shipped["quick-check"].rounds.budget_s("small")
    assert low > item.rounds.min * item.round_s("small")


def test_the_last_round_is_the_last_the_budget_holds_at_the_plans_pace(shipped: dict[str, Recipe]) -> None:
    """The verdicts are corrected for a look after every round up to rounds.max (statistics/sequential.py): the plan
    cuts rounds.max to what the budget holds, so that no look is paid for that the budget never allows."""
    recipe = shipped["quick-check"]
    item = quick_plan(shipped).recipes[0]
    warm = sum(visit_seconds(v, "small") for v in item.visits if v.warmup)
    each = item.round_s("small")
    assert item.rounds.max < recipe.rounds.max  # the lab's 15 minutes hold fewer than its 8
    assert warm + item.rounds.max * each <= item.budget_s < warm + (item.rounds.max + 1) * each
    assert max(v.round for v in item.visits) == item.rounds.max
    assert json.loads(plan_json(quick_plan(shipped)))["recipes"][0]["rounds"]["max"] == item.rounds.max
    assert f"3 to {item.rounds.max} rounds" in plan_text(quick_plan(shipped))
    assert f"{item.rounds.max} is what the 15 min budget holds at the plan's pace" in plan_text(quick_plan(shipped))

    def with_budget(minutes: float) -> Recipe:
        return replace(recipe, rounds=replace(recipe.rounds, budget_minutes={"small": minutes}))

    # a longer budget: the recipe's own maximum; a budget below the minimum rounds: the minimum, whatever it says
    assert plan_of(with_budget(600)).recipes[0].rounds.max == recipe.rounds.max
    assert plan_of(with_budget(1)).recipes[0].rounds.max == recipe.rounds.min
    # the same seed gives the same orders whatever the budget
    short, long = plan_of(with_budget(8)).recipes[0], plan_of(with_budget(600)).recipes[0]
    assert [short.order(n) for n in range(1, short.rounds.max + 1)] == [
        long.order(n) for n in range(1, short.rounds.max + 1)
    ]


def test_plan_text_shows_the_order_the_changes_and_their_undo(shipped: dict[str, Recipe]) -> None:
    plan = quick_plan(shipped)
    text = plan_text(plan)
    item = plan.recipes[0]
    assert f"  round 1: {', '.join(item.order(1))}" in text
    assert f"  round 3: {', '.join(item.order(3))}" in text
    assert "warm-up: baseline (not counted)" in text
    assert "server$ sudo sh -c 'exportfs -ra && exportfs -f'" in text
    assert "client$ sudo mount -t nfs -o nosharecache,vers=3 192.0.2.10:/srv/export /mnt/nfstune/4242" in text
    assert "round 3, " not in text  # commands of the first two rounds only
    assert Path(text.splitlines()[2].split()[2]) == Path("/mnt/nfstune/4242,")  # after the plan and its times


def test_many_clients_skips_what_needs_more_clients_than_the_session_has(shipped: dict[str, Recipe]) -> None:
    plan = build_plan(
        [shipped["many-clients"]],
        {"clients_connected": 2, "server_nfsd_threads": 8},
        scale="small",
        seed=3,
        sizes=SIZES,
        fio_available=True,
        share="/srv/export",
        server_address="192.0.2.10",
        scratch_name=".nfstune-4242",
    )
    ran = {c.label for c in plan.recipes[0].configs}
    assert ran == {"1 client, sync", "2 clients, sync", "1 client, async", "2 clients, async", "2 clients, 64 threads"}
    assert any(
        s.startswith("many-clients 3 clients, sync: skipped")
        and "it needs at least 3 clients at once, and this session has 2 clients" in s
        for s in plan.skipped
    )
    text = plan_text(plan)
    assert "fio --server is started once on each of the 2 clients that load the server together" in text
    # a visit from two clients: the front end names both servers, each with its own job file
    visit = next(v for v in plan.recipes[0].visits if v.label == "2 clients, 64 threads")
    front_end = next(step.argv for step in visit.run if step.argv[:1] == ("fio",))
    assert [a for a in front_end if a.startswith("--client=")] == [
        "--client=<client's address>,8765",
        "--client=<client2's address>,8765",
    ]
    assert any(step.argv == ("sh", "-c", "echo 64 > /proc/fs/nfsd/threads") for step in visit.setup)
    assert any("nfsd thread count back" in step.what for step in visit.undo)
    # two clients move two files through the one link: the estimate of a visit counts them
    alone, both = (
        next(v for v in plan.recipes[0].visits if v.label == f) for f in ("1 client, sync", "2 clients, sync")
    )
    assert (alone.clients, both.clients) == (1, 2)
    assert visit_seconds(both, "small") > visit_seconds(alone, "small") + RUN_S["small"]["seq-write"]


def test_filesystems_runs_on_the_scratch_filesystems_the_server_can_make_and_says_why_not_the_others(
    shipped: dict[str, Recipe],
) -> None:
    plan = build_plan(
        [shipped["filesystems"]],
        {"server_filesystems": frozenset({"ext4", "xfs"})},
        scale="small",
        seed=1,
        sizes=SIZES,
        fio_available=True,
        share="/srv/export",
        server_address="192.0.2.10",
        scratch_name=".nfstune-7",
    )
    assert [c.label for c in plan.recipes[0].configs] == ["ext4", "xfs"]
    assert plan.skipped == (
        "filesystems btrfs: skipped: it needs a server that can make btrfs filesystems (mkfs.btrfs), and this "
        "server can make ext4 and xfs",
    )
    visit = next(v for v in plan.recipes[0].visits if v.label == "xfs")
    image = "/srv/export/.nfstune-isolated-<stamp>.img"
    _truncate, make, *_ = visit.setup
    assert make.host == "server" and make.sudo
    assert make.argv == ("mkfs.xfs", "-q", "-f", "-L", "nfstune", image)
    # the client mounts the scratch filesystem, never the share, and the undo removes all of it, newest first
    mount = next(step for step in visit.setup if step.argv[:1] == ("mount",) and step.host == "client")
    assert "192.0.2.10:/srv/nfstune-isolated-<stamp>" in mount.argv and "192.0.2.10:/srv/export" not in mount.argv
    undone = [(s.host, s.writes or s.line) for s in visit.undo]
    mp = "/mnt/nfstune/7"
    assert undone[:2] == [
        ("client", f"if mountpoint -q {mp}; then umount {mp} || umount -l {mp}; fi; rmdir {mp} 2>/dev/null; true"),
        ("client", "rmdir /mnt/nfstune 2>/dev/null; true"),
    ]
    q = shlex.quote("/srv/nfstune-isolated-<stamp>")
    scratch_host, scratch_undo = undone[2]  # the scratch directory, only while nfstune's mark is in it (issue 37)
    assert scratch_host == "server" and "/.nfstune-7/.nfstune-owner-" in scratch_undo
    assert f"then rm -rf --one-file-system {shlex.quote('/srv/nfstune-isolated-<stamp>/.nfstune-7')};" in scratch_undo
    assert undone[3:] == [
        ("server", "rm -f /etc/exports.d/nfstune-isolated.exports"),
        ("server", "exportfs -ra && exportfs -f"),
        ("server", "rmdir /etc/exports.d 2>/dev/null; true"),
        ("server", f"if mountpoint -q {q}; then umount {q} || umount -l {q}; fi; rmdir {q} 2>/dev/null; true"),
        ("server", f"rm -rf --one-file-system {shlex.quote(image)}"),
    ]
    assert "/etc/exports " not in plan_text(plan)  # the user's exports file is never written
    # an appliance runs none of it: it owns its disks and its exports
    on_appliance = build_plan(
        [shipped["filesystems"]],
        {},
        scale="small",
        seed=1,
        sizes=SIZES,
        fio_available=True,
        share="/volume1/x",
        server_address="192.0.2.10",
        scratch_name=".nfstune-7",
        appliance="synology",
    )
    assert on_appliance.recipes == () and len(on_appliance.skipped) == 3


def test_transport_adds_the_rdma_listener_once_and_says_the_restart_only_where_rdma_runs(
    shipped: dict[str, Recipe],
) -> None:
    def plan(facts: dict[str, FactValue], appliance: str | None = None) -> Plan:
        return build_plan(
            [shipped["transport"]],
            facts,
            scale="small",
            seed=5,
            sizes=SIZES,
            fio_available=True,
            share="/srv/export",
            server_address="192.0.2.10",
            scratch_name=".nfstune-9",
            appliance=appliance,
        )

    both = plan({"rdma_both": True, "rdma_software": False})
    assert [c.label for c in both.recipes[0].configs] == ["tcp", "tcp, nconnect=4", "rdma"]
    text = plan_text(both)
    assert text.count("listen for RDMA on port 20049") == 1 and "restarts the NFS server" in text
    rdma = next(v for v in both.recipes[0].visits if v.label == "rdma")
    mount = next(step for step in rdma.setup if step.argv[0] == "mount")
    assert "nosharecache,vers=4.2,proto=rdma,port=20049" in mount.argv
    # no RDMA on both hosts: TCP alone, the reason said, and nothing on the server changes
    tcp_only = plan({"rdma_both": False})
    assert [c.label for c in tcp_only.recipes[0].configs] == ["tcp", "tcp, nconnect=4"]
    assert tcp_only.skipped == (
        "transport rdma: skipped: it needs an active RDMA device on both hosts, and here they do not both have one",
    )
    assert "RDMA on port" not in plan_text(tcp_only)
    assert all(step.host == "client" for v in tcp_only.recipes[0].visits for step in (*v.setup, *v.undo))
    # an appliance owns its NFS server: no listener, no restart
    on_appliance = plan({"rdma_both": True}, appliance="synology")
    assert [c.label for c in on_appliance.recipes[0].configs] == ["tcp", "tcp, nconnect=4"]


def test_one_configuration_and_fixed_rounds_read_as_an_admin_says_them(shipped: dict[str, Recipe]) -> None:
    """A recipe of one configuration run a fixed number of rounds (as `nfstune check` runs one) has no stop rule
    and no budget to explain: "1 configuration, 4 rounds", each round's order on one line."""
    recipe = shipped["quick-check"]
    one = replace(
        recipe,
        configs=recipe.configs[:1],
        baseline=recipe.configs[0].label,
        rounds=replace(recipe.rounds, min=4, max=4, budget_minutes={"small": 24 * 60.0}),
    )
    text = plan_text(plan_of(one))
    heading = next(line for line in text.splitlines() if line.startswith(f"{recipe.id}: "))
    assert heading.startswith(f"{recipe.id}: 1 configuration, 4 rounds;")
    assert "configurations" not in heading and "budget" not in heading and "4 to 4" not in heading
    assert f"  rounds 1 to 4: {recipe.configs[0].label}" in text.splitlines()
    assert "round 2:" not in text  # one line says every round's order
    assert "for the minimum rounds, at most" not in text.splitlines()[0]  # a fixed length has one estimate
    # a recipe that stops when its comparisons settle still says so
    assert "configurations, 3 to" in plan_text(quick_plan(shipped))
