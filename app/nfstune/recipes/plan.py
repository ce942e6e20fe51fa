"""A session as a plan, before anything runs: for each recipe, warm-up visits of its baseline, then rounds in which
every configuration is visited once, in an order that changes every round (random from a stored seed), and each
visit's exact remote commands: its setup, its workloads, its undo. Pure: no SSH. The engine walks the visits;
`nfstune run --dry-run` and the desktop's "Show the plan" print plan_text.
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from nfstune.bench.clients_runner import JOB_PREFIX as CLIENTS_JOB_PREFIX
from nfstune.bench.commands import repeat_steps, workload_commands
from nfstune.bench.fio import fio_commands
from nfstune.bench.fio_clients import ClientJob, front_end_argv
from nfstune.bench.sizing import GROWS, files_bytes, growth_rule_text
from nfstune.bench.workloads import SMALL_FILES_TAR, WorkloadId, WorkloadSizes
from nfstune.changes.export import export_steps
from nfstune.changes.fio_server import DEFAULT_PORT as FIO_SERVER_PORT
from nfstune.changes.fio_server import server_steps
from nfstune.changes.isolated import export_options, isolated_paths, isolated_steps, scratch_size_mib
from nfstune.changes.mount import (
    client_directory_steps,
    mount_steps,
    readahead_path,
    readahead_steps,
    scratch_steps,
)
from nfstune.changes.nfs_scratch import nfs_scratch_steps
from nfstune.changes.nfsd_listener import PORTLIST, listener_steps
from nfstune.changes.nfsd_threads import threads_steps
from nfstune.changes.steps import Step, Steps, write
from nfstune.changes.transaction import HOST_JOURNAL_DIR, undo_tempfile
from nfstune.facts.appliance import async_setting_hint, server_setting_hint
from nfstune.nfs.export_edit import ExportOptionEdit
from nfstune.nfs.own_mount import MOUNT_ROOT, mount_point_for
from nfstune.recipes.model import Config, FactValue, Recipe, Rounds
from nfstune.shell_text import join

# Seconds a visit takes beyond its workloads, and per run of each workload (cache drop or sync included).
# "small": measured on the practice lab (hdd profile, three quick-check sessions, 2026-11-23): an export change, the
#   mount and their undo ~8 s (a client-only visit, mount and unmount, about 5 s); the tools' own time with 96 MiB
#   files averaged seq-write 7.7 s, seq-read 9.8 s, small-files 3.7 s, sync-4k 2.7 s, and each run adds ~2.4 s of
#   SSH round trips (prepare, the syncs or cache drops, two mountstats reads). A quick-check round: 136 s measured,
#   129 s estimated.
# "normal": a real NAS at the sizes bench/sizing.py plans from the link: the sequential file lasts ~8 s at the
#   link's speed (~9 s at 1 GbE), plus the final COMMIT or the cold start and the syncs and cache drops on both hosts
#   (~3 s); 300 small files or 300 synchronous 4 KiB writes ~9 s on an HDD-backed sync export (~30 ms each), far less
#   on SSD. A visit's changes and undo are the lab's measured 8 s (5 s for a client-only visit): there each SSH
#   command takes ~0.4 s under emulation, on a LAN a few ms, so a real NAS is faster than this.
VISIT_S: Mapping[str, Mapping[str, float]] = {
    "small": {"server": 8.0, "client": 5.0},
    "normal": {"server": 8.0, "client": 5.0},
}
# The metadata workloads work on small-files' count of files (20 "small", 300 "normal"): a create or an unlink is one
#   stable operation on the server, like a small file's create (~0.1-0.3 s each on the hdd lab under sync, ~30 ms on
#   an HDD), a cold stat a LOOKUP and a GETATTR; tree-delete adds the untar of its prepare.
RUN_S: Mapping[str, Mapping[str, float]] = {
    "small": {
        "seq-write": 10.0,
        "seq-read": 12.0,
        "small-files": 6.0,
        "sync-4k": 5.0,
        "file-create": 6.0,
        "file-stat": 6.0,
        "file-delete": 7.0,
        "tree-delete": 9.0,
    },
    "normal": {
        "seq-write": 12.0,
        "seq-read": 12.0,
        "small-files": 12.0,
        "sync-4k": 10.0,
        "file-create": 10.0,
        "file-stat": 6.0,
        "file-delete": 10.0,
        "tree-delete": 20.0,
    },
}


@dataclass(frozen=True)
class Visit:
    recipe: str
    label: str
    round: int  # 0 = warm-up
    workloads: tuple[str, ...]
    setup: tuple[Step, ...]
    run: tuple[Step, ...]  # per workload: prepare, cache drop or sync, the tool, cleanup
    undo: tuple[Step, ...]
    mount_options: str = ""  # what the setup's mount step asks for: the engine mounts with exactly these
    clients: int = 1  # clients running each workload at once

    @property
    def warmup(self) -> bool:
        return self.round == 0


@dataclass(frozen=True)
class RecipePlan:
    recipe: Recipe
    configs: tuple[Config, ...]  # the configurations that run (conditions hold, not an appliance's export)
    rounds: Rounds
    budget_s: float
    visits: tuple[Visit, ...]  # warm-up visits, then rounds 1..rounds.max in their visit order

    def round_s(self, scale: str) -> float:
        """The estimated time of one round."""
        return sum(visit_seconds(v, scale) for v in self.visits if v.round == 1)

    def order(self, round_number: int) -> list[str]:
        return [v.label for v in self.visits if v.round == round_number]


@dataclass(frozen=True)
class Plan:
    seed: int
    scale: str
    recipes: tuple[RecipePlan, ...]
    skipped: tuple[str, ...]
    estimate_s: tuple[float, float]  # at least (min rounds), at most (the budgets)
    scratch_name: str = ""  # the session's scratch directory in the export
    mount_point: str = ""  # where every visit mounts the export, in turn
    notes: tuple[str, ...] = ()  # what the plan assumed (unknown facts)
    # what the workloads' argv were made with: the engine runs its workloads with these, so that what runs is
    # what the plan showed
    sizes: WorkloadSizes | None = None
    fio_available: bool = True
    server_login: bool = True  # False: the server is only an NFS server to the clients (nothing runs on it)
    # the most the sizes may grow to between rounds (growth.py); None: they never grow
    size_limits: WorkloadSizes | None = None
    # the session's own changes, made before the first recipe and undone at the end: the scratch directory, the
    # small-files tar, nfsd's RDMA listener, fio's servers
    session: Steps = field(default_factory=Steps)


def visit_seconds(visit: Visit, scale: str) -> float:
    per_run = RUN_S.get(scale, RUN_S["normal"])
    per_visit = VISIT_S.get(scale, VISIT_S["normal"])
    changes_server = any(step.host == "server" for step in visit.setup)
    # k clients at once move k files through one link and one disk: a sequential run takes about k times as long
    # (sync-4k's writes wait on the disk's flushes, which the clients share: counted once, an estimate on the low
    # side); each further client adds its mount, flushes and cleanup
    runs = sum(per_run.get(w, 10.0) * (visit.clients if w.startswith("seq-") else 1) for w in visit.workloads)
    return per_visit["server" if changes_server else "client"] * (1 + 0.5 * (visit.clients - 1)) + runs


def rounds_in_budget(rounds: Rounds, budget_s: float, warmup_s: float, round_s: float) -> int:
    """The last round a recipe may reach: its rounds.max, or fewer when the budget holds fewer at the plan's pace,
    never fewer than rounds.min. The verdicts are corrected for a look after every round up to this one
    (statistics/sequential.py): looks the budget can never allow would only widen every interval, and a host faster
    than the plan still stops here, so the correction always covers every look taken."""
    if round_s <= 0:
        return rounds.max
    fit = int((budget_s - warmup_s) // round_s)
    return max(rounds.min, min(rounds.max, fit))


def round_orders(labels: Sequence[str], rounds: int, rng: random.Random) -> list[list[str]]:
    """One order of `labels` per round, shuffled each round; with two or more configurations no round repeats the
    order of the round before (there is always another order)."""
    orders: list[list[str]] = []
    for _ in range(rounds):
        order = list(labels)
        rng.shuffle(order)
        if orders and len(order) > 1 and order == orders[-1]:
            order = order[1:] + order[:1]  # a rotation of distinct labels is a different order
        orders.append(order)
    return orders


def build_plan(
    recipes: Sequence[Recipe],
    facts: Mapping[str, FactValue],
    *,
    scale: str,
    seed: int,
    sizes: WorkloadSizes,
    fio_available: bool,
    share: str,
    server_address: str,
    scratch_name: str,
    appliance: str | None = None,
    size_limits: WorkloadSizes | None = None,
    server_login: bool = True,
) -> Plan:
    """The plan of a session. Configurations whose condition fails on the facts are skipped with the reason (an
    unknown fact: tried); on an appliance (`appliance`: its vendor) so is every one that changes the export, and
    so is every one that changes the server when nfstune cannot log in to it (`server_login` False)."""
    mount_point = mount_point_for(scratch_name)
    context = _Context(
        sizes,
        fio_available,
        share,
        server_address,
        f"{mount_point}/{scratch_name}",
        mount_point,
        size_limits,
        server_login,
    )
    plans: list[RecipePlan] = []
    skipped: list[str] = []
    notes: list[str] = []
    for recipe in recipes:
        kept: list[str] = []
        if not server_login or appliance is not None:
            recipe, kept = _as_the_server_has_it(recipe)
        configs = []
        for config in recipe.configs:
            if config.when.holds(facts) is False:
                skipped.append(f"{recipe.id} {config.label}: skipped: {config.when.why_not(facts)}")
            elif not server_login and config.changes_server:
                skipped.append(
                    f"{recipe.id} {config.label}: skipped (nfstune cannot log in to the server, so it changes nothing "
                    f"there; to try it, change it {_vendor_place(config)}, then compare with a client-side run)"
                )
            elif appliance is not None and config.changes_server:
                skipped.append(
                    f"{recipe.id} {config.label}: skipped (the server is a {appliance} appliance, which owns its "
                    f"NFS settings; set them in its own UI instead: {async_setting_hint(appliance)})"
                )
            else:
                configs.append(config)
        if len(configs) == 1 < len(recipe.configs):
            skipped.append(f"{recipe.id}: skipped: only {configs[0].label} can run here, with nothing to compare it to")
            continue
        if not configs:
            continue
        notes += kept
        rounds = recipe.rounds
        # str seeds are hashed with sha512 by random.Random: the same order on every machine and Python run
        rng = random.Random(f"{seed}:{recipe.id}")
        labels = [c.label for c in configs]
        warm = recipe.baseline if recipe.baseline in labels else labels[0]
        by_label = {c.label: c for c in configs}
        visits = [context.visit(recipe, by_label[warm], 0) for _ in range(rounds.warmup)]
        # every round's order is drawn before the rounds are cut to the budget: the same seed gives the same
        # orders whatever the budget
        orders = round_orders(labels, rounds.max, rng)
        budget = rounds.budget_s(scale)
        warm_s = sum(visit_seconds(v, scale) for v in visits)
        round_s = sum(visit_seconds(context.visit(recipe, by_label[label], 1), scale) for label in labels)
        rounds = dataclasses.replace(rounds, max=rounds_in_budget(rounds, budget, warm_s, round_s))
        for number, order in enumerate(orders[: rounds.max], start=1):
            visits.extend(context.visit(recipe, by_label[label], number) for label in order)
        plans.append(RecipePlan(recipe, tuple(configs), rounds, budget, tuple(visits)))
    low = high = 0.0
    for item in plans:
        warmup = sum(visit_seconds(v, scale) for v in item.visits if v.warmup)
        each = item.round_s(scale)
        low += warmup + item.rounds.min * each
        high += max(warmup + item.rounds.min * each, min(warmup + item.rounds.max * each, item.budget_s))
    return Plan(
        seed,
        scale,
        tuple(plans),
        tuple(skipped),
        (low, high),
        scratch_name,
        mount_point,
        sizes=sizes,
        fio_available=fio_available,
        size_limits=size_limits,
        session=session_steps(plans, share, scratch_name, None if server_login else server_address),
        server_login=server_login,
        notes=tuple(notes),
    )


def _as_the_server_has_it(recipe: Recipe) -> tuple[Recipe, list[str]]:
    """Where nfstune may not change the export (no login, an appliance): a configuration whose only server change
    is the export options its baseline sets too (quick-check pins sync for its client-side comparisons) runs on the
    export as the server has it, as its baseline then does: the two still compare on the same export. The others
    that change the server are skipped by the planner."""
    base = next((c for c in recipe.configs if c.label == recipe.baseline), None)
    if base is None or not _export_only(base):
        return recipe, []
    configs, kept = [], []
    for config in recipe.configs:
        if _export_only(config) and config.export == base.export:
            kept.append(config.label)
            config = dataclasses.replace(config, export=ExportOptionEdit())
        configs.append(config)
    if not kept:
        return recipe, []
    edits = ", ".join(base.export.set) + (f", without {', '.join(base.export.unset)}" if base.export.unset else "")
    verb = "runs" if len(kept) == 1 else "run"
    note = (
        f"{recipe.id}: {', '.join(kept)} {verb} on the export as the server has it, not with {edits} (nfstune does "
        "not change the export here), so every comparison among them is on that same export"
    )
    return dataclasses.replace(recipe, configs=tuple(configs)), [note]


def _export_only(config: Config) -> bool:
    return (
        bool(config.export)
        and config.changes_server
        and not (config.nfsd_threads is not None or config.filesystem is not None or config.rdma_port is not None)
    )


def _vendor_place(config: Config) -> str:
    place = server_setting_hint(config.export.set)
    return f"in the NAS's own interface ({place})" if "async" in config.export.set else place


def session_steps(
    plans: Sequence[RecipePlan], share: str, scratch_name: str, over_nfs_from: str | None = None
) -> Steps:
    """What the engine changes once a session, in its order: the scratch directory in the export (made by the
    client over NFS from `over_nfs_from`, the server's address, when nfstune cannot log in to the server), the
    small-files tar on the client (made by the workload's own prepare step, removed at the end), nfsd's RDMA
    listeners, and fio's server on each client that several-client configurations load the server from."""
    if over_nfs_from is not None:
        steps = nfs_scratch_steps(over_nfs_from, share, scratch_name)
    else:
        steps = scratch_steps(posixpath.join(share, scratch_name))
    if any("small-files" in v.workloads for item in plans for v in item.visits):
        steps = steps.then(Steps((), (undo_tempfile("client", SMALL_FILES_TAR),)))
    for port in sorted({c.rdma_port for item in plans for c in item.configs if c.rdma_port is not None}):
        steps = steps.then(listener_steps(port))
    most = max((c.clients or 0 for item in plans for c in item.configs), default=0)
    for number in range(1, most + 1):
        name = client_name(number)
        steps = steps.then(server_steps(name, f"<the address of {name}>"))
    # each client's fio job file on the first client: journaled when it is first written, removed at the end
    jobs = dict.fromkeys(
        f"{CLIENTS_JOB_PREFIX}{client_name(k)}.fio"
        for item in plans
        for v in item.visits
        for k in range(1, (v.clients if item.recipe.config(v.label).clients else 0) + 1)
    )
    for job in jobs:
        steps = steps.then(Steps((), (undo_tempfile("client", job),)))
    return steps


@dataclass(frozen=True)
class _Context:
    sizes: WorkloadSizes
    fio_available: bool
    share: str
    server_address: str
    scratch: str  # the scratch directory as the client sees it
    mount_point: str
    size_limits: WorkloadSizes | None  # the largest sizes growth may reach (a scratch filesystem is made for them)
    server_login: bool  # False: nothing runs on the server (its cache is not dropped)

    def visit(self, recipe: Recipe, config: Config, number: int) -> Visit:
        """One visit's steps, each change's from its own module in changes/ (what the engine runs); its undo runs
        newest change first, as the engine's transaction undoes them."""
        workloads = config.workloads or recipe.workloads
        options = config.mount.render()
        changes = Steps()
        export_path = self.share
        if config.filesystem is not None:
            image, export_path = isolated_paths(self.share, "<stamp>")
            size = scratch_size_mib(files_bytes(self.size_limits or self.sizes), config.filesystem)
            made = isolated_steps(image, export_path, config.filesystem, size, export_options(config.export.set))
            changes = made.then(scratch_steps(posixpath.join(export_path, posixpath.basename(self.scratch))))
        elif config.export:
            edits = ", ".join([*(f"set {o}" for o in config.export.set), *(f"unset {o}" for o in config.export.unset)])
            changes = export_steps(
                f"<the exports file that defines {self.share}>",
                backup=f"{HOST_JOURNAL_DIR}/<date-time>-<its name>",
                what=f"its new text: {edits} for each of the share's clients",
            ).only("unless the file already says so")
        if config.nfsd_threads is not None:
            changes = changes.then(threads_steps(config.nfsd_threads))
        changes = changes.then(mount_steps(self.server_address, export_path, options, self.mount_point))
        names = [client_name(k) for k in range(1, (config.clients or 0) + 1)]
        for name in names[1:]:  # the further clients mount the export as the first does
            changes = changes.then(mount_steps(self.server_address, export_path, options, self.mount_point, role=name))
        for name in names:
            changes = changes.then(client_directory_steps(name, f"{self.scratch}/{name}"))
        if config.read_ahead_kb is not None:
            device = readahead_path(f"<the device of {self.mount_point}>")
            changes = changes.then(readahead_steps(device, config.read_ahead_kb))
        if config.clients is not None:
            run = [step for w in workloads for step in self.clients_steps(WorkloadId(w), config.clients)]
        else:
            run = [step for w in workloads for step in self.workload_steps(WorkloadId(w))]
        return Visit(
            recipe.id,
            config.label,
            number,
            tuple(workloads),
            changes.do,
            tuple(run),
            changes.undo,
            options,
            config.clients or 1,
        )

    def workload_steps(self, workload: WorkloadId) -> list[Step]:
        commands = workload_commands(workload, self.scratch, self.sizes, fio_available=self.fio_available)
        steps = repeat_steps(commands)
        flush = "drop the page cache" if commands.needs_cold_cache else "flush what the step before left dirty"
        prepare = "prepare (untimed), " if commands.prepare else ""
        cleanup = "clean up, " if steps.cleans_up else ""
        return [
            Step("client", steps.before_client, True, f"{workload}: {prepare}{flush}, read the mount's counters"),
            *self._server_flush(steps.before_server, steps.server_sudo, f"{workload}: {flush} on the server"),
            Step("client", steps.run, True, f"{workload}: the timed run ({commands.tool})"),
            Step("client", steps.after_client, True, f"{workload}: {cleanup}read the mount's counters again"),
        ]

    def _server_flush(self, argv: tuple[str, ...], sudo: bool, what: str) -> list[Step]:
        return [Step("server", argv, sudo, what)] if self.server_login else []

    def clients_steps(self, workload: WorkloadId, clients: int) -> list[Step]:
        """The steps of one workload from `clients` clients at once (bench/clients_runner.py): each in a directory
        of its own in the scratch directory, started together by fio's front end on the first client."""
        names = [client_name(k) for k in range(1, clients + 1)]
        prepared: list[Step] = []
        cleanups: list[Step] = []
        for name in names:
            commands = fio_commands(workload, f"{self.scratch}/{name}", self.sizes)
            steps = repeat_steps(commands)
            job = f"{CLIENTS_JOB_PREFIX}{name}.fio"
            prepared += [
                Step(name, steps.before_client, True, f"{workload}: prepare (untimed) and flush, in its own directory"),
                write(
                    "client",
                    job,
                    f"{workload}: {name}'s fio job file (journaled, removed at the end): {join(commands.run)}",
                ),
            ]
            cleanups.append(Step(name, steps.after_client, True, f"{workload}: clean up"))
        jobs = [ClientJob(n, f"<{n}'s address>,{FIO_SERVER_PORT}", f"{CLIENTS_JOB_PREFIX}{n}.fio") for n in names]
        return [
            *prepared,
            *self._server_flush(steps.before_server, steps.server_sudo, f"{workload}: flush on the server"),
            Step(
                "client",
                tuple(front_end_argv(jobs)),
                True,
                f"{workload}: the timed run: fio's front end on the first client starts the job on every client's "
                "fio server at the same moment",
            ),
            *cleanups,
        ]


def client_name(number: int) -> str:
    """The name nfstune gives the k-th client of a session (the lab's own names: client, client2, ...)."""
    return "client" if number == 1 else f"client{number}"


def rdma_ports_needed(plan: Plan) -> list[int]:
    """The ports nfsd must listen for RDMA on for the plan's proto=rdma configurations (added once a session)."""
    return sorted({c.rdma_port for item in plan.recipes for c in item.configs if c.rdma_port is not None})


def _grows(item: RecipePlan) -> bool:
    """Whether a workload of the recipe can grow (growth.GROWS) in a comparison."""
    grows = {w for _, workloads, _ in GROWS for w in workloads}
    return any(
        set(c.workloads or item.recipe.workloads) & grows for c in item.configs if c.label != item.recipe.baseline
    )


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def plan_text(plan: Plan, rounds_shown: int = 2) -> str:
    """The plan as the admin reads it before it runs: per recipe the visit order of every round up to the minimum,
    and every command of the warm-up and the first `rounds_shown` rounds, with how each change is undone."""
    low, high = plan.estimate_s
    lines = [
        f"Plan: scale {plan.scale}, seed {plan.seed}; at the plan's own pace (the practice lab's), about "
        f"{_minutes(low)} for the minimum rounds, at most {_minutes(high)} (the budgets)",
        f"Mount point {plan.mount_point or MOUNT_ROOT + '/...'}, scratch directory {plan.scratch_name} in the export "
        "(both removed at the end). Every change of a visit is undone when the visit ends, on cancel and on failure.",
    ]
    most = max((c.clients or 0 for item in plan.recipes for c in item.configs), default=0)
    if most:
        lines.append(
            f"fio --server is started once on each of the first {most} clients, bound to its address on the link to "
            f"the server (port {FIO_SERVER_PORT}; journaled, stopped at the end)."
        )
    for port in rdma_ports_needed(plan):
        lines.append(
            f"The NFS server is made to listen for RDMA on port {port} (`echo rdma {port} > {PORTLIST}`; journaled). "
            "The kernel cannot remove that listener while the server runs: at the end nfstune restarts the NFS server "
            "(clients pause for a few seconds; NFSv4 clients reclaim their state) and puts back its thread count."
        )
    if any("small-files" in v.workloads for item in plan.recipes for v in item.visits):
        lines.append(f"The small-files tree is packed once into {SMALL_FILES_TAR} on the client (removed at the end).")
    lines += [f"Note: {note}" for note in plan.notes]
    lines += [f"Skipped: {text}" for text in plan.skipped]
    lines += ["", "session (before the first recipe; undone at the end):"]
    lines += _steps_text(("set up", plan.session.do), ("undo", plan.session.undo), indent="  ")
    for item in plan.recipes:
        rounds = item.rounds
        cut = (
            f"; {rounds.max} is what the {_minutes(item.budget_s)} budget holds at the plan's pace"
            if rounds.max < item.recipe.rounds.max
            else ""
        )
        lines += [
            "",
            f"{item.recipe.id}: {len(item.configs)} configurations, {rounds.min} to {rounds.max} rounds (stops when "
            f"every comparison is settled, at round {rounds.max}, or before the {_minutes(item.budget_s)} budget is "
            f"spent{cut}); about {_minutes(item.round_s(plan.scale))} a round",
        ]
        if rounds.warmup:
            lines.append(f"  warm-up: {', '.join(item.order(0))} (not counted)")
        for number in range(1, rounds.min + 1):
            lines.append(f"  round {number}: {', '.join(item.order(number))}")
        if rounds.max > rounds.min:
            lines.append(f"  rounds {rounds.min + 1} to {rounds.max}, while needed: each in a new order")
        if plan.sizes is not None and plan.size_limits is not None and _grows(item):
            lines.append("  " + growth_rule_text(rounds.min, rounds.grow_spread_percent, plan.size_limits, plan.sizes))
        for visit in item.visits:
            if visit.round > rounds_shown:
                break
            name = "warm-up" if visit.warmup else f"round {visit.round}"
            lines.append(f"  {name}, {visit.label}: {', '.join(visit.workloads)}")
            lines += _steps_text(("set up", visit.setup), ("run", visit.run), ("undo", visit.undo), indent="    ")
    return "\n".join(lines)


def _steps_text(*parts: tuple[str, Sequence[Step]], indent: str) -> list[str]:
    lines = []
    for title, steps in parts:
        lines.append(f"{indent}{title}:")
        lines += [f"{indent}  {step.text()}    # {step.what}{f' ({step.when})' if step.when else ''}" for step in steps]
    return lines


def plan_json(plan: Plan) -> str:
    """What a session stores of its plan: the seed, the rounds and the visit order of every round."""
    return json.dumps(
        {
            "seed": plan.seed,
            "scale": plan.scale,
            "estimate_s": list(plan.estimate_s),
            "skipped": list(plan.skipped),
            "server_login": plan.server_login,
            "sizes": None if plan.sizes is None else dataclasses.asdict(plan.sizes),
            "size_limits": None if plan.size_limits is None else dataclasses.asdict(plan.size_limits),
            "recipes": [
                {
                    "id": item.recipe.id,
                    "configs": [c.label for c in item.configs],
                    "rounds": {
                        "min": item.rounds.min,
                        "max": item.rounds.max,
                        "warmup": item.rounds.warmup,
                        "margin_percent": item.rounds.margin_percent,
                        "grow_spread_percent": item.rounds.grow_spread_percent,
                    },
                    "budget_s": item.budget_s,
                    "order": [item.order(n) for n in range(item.rounds.max + 1)],
                }
                for item in plan.recipes
            ],
        },
        sort_keys=True,
    )
