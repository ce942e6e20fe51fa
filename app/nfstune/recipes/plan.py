"""A session as a plan, before anything runs: for each recipe, warm-up visits of its baseline, then rounds in which
every configuration is visited once, in an order that changes every round (random from a stored seed), cut to what
its budget holds at the plan's pace; each visit with its host changes (visit_changes.py), their steps and undo, and
its workloads' steps (workload_steps.py). Pure: no SSH. The engine walks the visits and applies their changes;
plan_text.py prints the plan.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from nfstune.bench.workloads import WorkloadId, WorkloadSizes
from nfstune.changes.host_change import HostChange, Where, steps_and_where, steps_of
from nfstune.changes.nfs_scratch import scratch_work
from nfstune.changes.steps import Step, Steps
from nfstune.facts.appliance import async_setting_hint
from nfstune.nfs.export_edit import ExportOptionEdit
from nfstune.nfs.own_mount import mount_point_for
from nfstune.recipes.clients_needed import too_few_clients
from nfstune.recipes.hand_plan import SWITCH_S, HandChange, by_hand, vendor_place
from nfstune.recipes.model import Config, FactValue, Recipe, Rounds
from nfstune.recipes.visit_changes import session_changes, visit_changes
from nfstune.recipes.workload_steps import WorkloadSteps

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
    clients: int = 1  # clients running each workload at once
    changes: tuple[HostChange, ...] = ()  # what `setup` and `undo` are the steps of: the engine applies these

    @property
    def warmup(self) -> bool:
        return self.round == 0

    def only(self, workloads: Sequence[str]) -> Visit:
        """The visit measuring only `workloads` (in its own order): a later round's visit of a configuration some of
        whose comparisons are settled (session/skipping.py). Its run keeps those workloads' steps, each of which
        workload_steps.py names by its workload."""
        kept = tuple(w for w in self.workloads if w in workloads)
        if kept == self.workloads:
            return self
        run = tuple(step for step in self.run if step.what.split(": ", 1)[0] in kept)
        return dataclasses.replace(self, workloads=kept, run=run)


@dataclass(frozen=True)
class RecipePlan:
    recipe: Recipe
    configs: tuple[Config, ...]  # the configurations that run (conditions hold, not an appliance's export)
    rounds: Rounds
    budget_s: float
    visits: tuple[Visit, ...]  # warm-up visits, then rounds 1..rounds.max in their visit order
    # a guided hand change (hand_plan.py): the visits are its blocks' rounds, one configuration a block
    hand: HandChange | None = None

    def round_s(self, scale: str) -> float:
        """The estimated time of one round."""
        return sum(visit_seconds(v, scale) for v in self.visits if v.round == 1)

    def block_s(self, scale: str) -> float:
        """A guided hand change's: the estimated time of one block (0 without one)."""
        rounds = self.hand.rounds_of(0) if self.hand is not None else ()
        return sum(visit_seconds(v, scale) for v in self.visits if v.round in rounds)

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
    # small-files tar, nfsd's RDMA listener, fio's servers (visit_changes.session_changes); `session`: their steps
    session: Steps = field(default_factory=Steps)
    session_changes: tuple[HostChange, ...] = ()


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
    ask_admin: bool = False,
) -> Plan:
    """The plan of a session. Configurations whose condition fails on the facts are skipped with the reason (an
    unknown fact: tried); on an appliance (`appliance`: its vendor) so is every one that changes the export, and
    so is every one that changes the server when nfstune cannot log in to it (`server_login` False). There, when
    someone can be asked (`ask_admin`: a terminal or the desktop), a recipe whose only other configuration changes
    just the export's options runs it as a guided hand change (hand_plan.py) instead."""
    where = Where(share, server_address, mount_point_for(scratch_name), scratch_name, work=scratch_work(server_login))
    workload_steps = WorkloadSteps(sizes, fio_available, where.scratch, where.mount_point, server_login)
    context = _Visits(where, workload_steps, size_limits or sizes)
    plans: list[RecipePlan] = []
    skipped: list[str] = []
    notes: list[str] = []
    for recipe in recipes:
        kept: list[str] = []
        mark = len(skipped)  # this recipe's own skip reasons follow
        baseline = next((c for c in recipe.configs if c.label == recipe.baseline), None)  # before it is kept as is
        if not server_login or appliance is not None:
            recipe, kept = _as_the_server_has_it(recipe)
        configs: list[Config] = []
        candidates: list[tuple[Config, str]] = []  # (configuration, why it is skipped unless changed by hand)
        for config in recipe.configs:
            if config.when.holds(facts) is False:
                skipped.append(f"{recipe.id} {config.label}: skipped: {config.when.why_not(facts)}")
            elif not server_login and config.changes_server:
                why = (
                    f"{recipe.id} {config.label}: skipped (nfstune cannot log in to the server, so it changes nothing "
                    f"there; to try it, change it {vendor_place(config)}, then compare with a client-side run)"
                )
                _hand_or_skip(config, why, candidates, skipped)
            elif appliance is not None and config.changes_server:
                why = (
                    f"{recipe.id} {config.label}: skipped (the server is a {appliance} appliance, which owns its "
                    f"NFS settings; set them in its own UI instead: {async_setting_hint(appliance)})"
                )
                _hand_or_skip(config, why, candidates, skipped)
            else:
                configs.append(config)
        have = facts.get("clients_connected")
        too_few = too_few_clients(recipe, have) if isinstance(have, int) and not isinstance(have, bool) else None
        if too_few is not None:  # one line says why the whole recipe is left out, not one per configuration
            del skipped[mark:]
            skipped.append(f"{recipe.id}: skipped: {too_few}")
            continue
        hand = by_hand(recipe, baseline, configs, candidates, appliance, ask_admin, skipped)
        if hand is not None:
            notes += kept
            plans.append(_hand_recipe(context, recipe, configs[0], hand, scale))
            continue
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
        if item.hand is not None:  # every block runs unless the admin stops; the admin's own time comes on top
            whole = sum(visit_seconds(v, scale) for v in item.visits) + item.hand.switches * SWITCH_S
            low, high = low + whole, high + whole
            continue
        warmup = sum(visit_seconds(v, scale) for v in item.visits if v.warmup)
        each = item.round_s(scale)
        low += warmup + item.rounds.min * each
        high += max(warmup + item.rounds.min * each, min(warmup + item.rounds.max * each, item.budget_s))
    once = session_changes(
        [c for item in plans for c in item.configs],
        [(item.recipe.config(v.label), v.workloads) for item in plans for v in item.visits],
        server_login=server_login,
    )
    return Plan(
        seed,
        scale,
        tuple(plans),
        tuple(skipped),
        (low, high),
        scratch_name,
        where.mount_point,
        sizes=sizes,
        fio_available=fio_available,
        size_limits=size_limits,
        session=steps_of(once, where),
        session_changes=once,
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


def _hand_or_skip(config: Config, why: str, candidates: list[tuple[Config, str]], skipped: list[str]) -> None:
    """Only the export's options can be set by hand in a NAS's interface; threads, a filesystem, RDMA cannot."""
    if _export_only(config):
        candidates.append((config, why))
    else:
        skipped.append(why)


def _hand_recipe(context: _Visits, recipe: Recipe, base: Config, hand: HandChange, scale: str) -> RecipePlan:
    """The recipe as a guided hand change: warm-ups of the NAS as it is, then its blocks' rounds, one visit
    each. The changed configuration's visits change nothing on the server: the admin does."""
    changed = dataclasses.replace(recipe.config(hand.changed), export=ExportOptionEdit())
    recipe = dataclasses.replace(recipe, configs=(base, changed))
    rounds = dataclasses.replace(recipe.rounds, min=hand.rounds, max=hand.rounds)
    visits = [context.visit(recipe, base, 0) for _ in range(rounds.warmup)]
    for block, label in enumerate(hand.labels()):
        config = base if label == base.label else changed
        visits += [context.visit(recipe, config, number) for number in hand.rounds_of(block)]
    budget = sum(visit_seconds(v, scale) for v in visits) + hand.switches * SWITCH_S
    return RecipePlan(recipe, (base, changed), rounds, budget, tuple(visits), hand)


@dataclass(frozen=True)
class _Visits:
    where: Where
    workloads: WorkloadSteps
    largest: WorkloadSizes  # the largest sizes growth may reach (a scratch filesystem is made for them)

    def visit(self, recipe: Recipe, config: Config, number: int) -> Visit:
        """One visit: its changes' steps, and their undo newest change first, as the engine's transaction undoes
        them; then its workloads' steps."""
        workloads = config.workloads or recipe.workloads
        changes = visit_changes(config, self.largest)
        steps, where = steps_and_where(changes, self.where)
        run = [step for w in workloads for step in self.workloads.of(WorkloadId(w), config.clients, where.export_path)]
        return Visit(
            recipe.id,
            config.label,
            number,
            tuple(workloads),
            steps.do,
            tuple(run),
            steps.undo,
            config.clients or 1,
            changes,
        )


def rdma_ports_needed(plan: Plan) -> list[int]:
    """The ports nfsd must listen for RDMA on for the plan's proto=rdma configurations (added once a session)."""
    return sorted({c.rdma_port for item in plan.recipes for c in item.configs if c.rdma_port is not None})
