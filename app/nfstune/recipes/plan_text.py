"""The plan as the admin reads it before it runs (`nfstune run --dry-run`, the desktop's "Show the plan"), and as a
session stores it (its seed, rounds and visit orders)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass

from nfstune.bench.sizing import GROWS, growth_rule_text
from nfstune.bench.workloads import SMALL_FILES_TAR
from nfstune.changes.fio_server import DEFAULT_PORT as FIO_SERVER_PORT
from nfstune.changes.nfs_scratch import WORK
from nfstune.changes.nfsd_listener import PORTLIST
from nfstune.changes.steps import Step
from nfstune.nfs.own_mount import MOUNT_ROOT
from nfstune.recipes.hand_plan import hand_plan_lines
from nfstune.recipes.plan import Plan, RecipePlan, rdma_ports_needed
from nfstune.words import count, numbered_span, span


def _grows(item: RecipePlan) -> bool:
    """Whether a workload of the recipe can grow (growth.GROWS) in a comparison."""
    grows = {w for _, workloads, _ in GROWS for w in workloads}
    return any(
        set(c.workloads or item.recipe.workloads) & grows for c in item.configs if c.label != item.recipe.baseline
    )


def scratch_privacy(plan: Plan) -> list[str]:
    """Who may touch the scratch directory while the session runs (changes/mount.py, changes/nfs_scratch.py), in
    lines short enough for the desktop's plan, which does not wrap."""
    if plan.server_login:
        return [
            "The scratch directory is private to the run: mode 0700, owned by the user the share maps the client's",
            "root to (nobody or the export's anonuid behind root_squash, root with no_root_squash), so no other user",
            "of the share can list, delete or replace the files nfstune measures with.",
        ]
    return [
        f"The workloads write in {plan.scratch_name}/{WORK}, private to the run: mode 0700, owned by the user the",
        "share maps the client's root to (nobody or the export's anonuid behind root_squash, root with",
        "no_root_squash), so no other user of the share can list, delete or replace the files nfstune measures",
        "with. Where only the owner of the share's top folder may write there, that owner makes the directory and",
        f"closes it to others' writes (0711) once the client's root has made {WORK} in it.",
    ]


def duration_words(seconds: float) -> str:
    """'40 s', '3 min'."""
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


@dataclass(frozen=True)
class Pace:
    """How fast the hosts run against the plan's own times (1.0: as the plan), and what that rests on, in words."""

    factor: float
    basis: str


# what the plan's own times (plan.VISIT_S, RUN_S) were taken from, at each scale
SCALE_TIMES = {
    "small": "the small scale's times, measured on the practice lab",
    "normal": "the normal scale's times, for a gigabit NAS on a spinning disk",
}


def plan_pace(scale: str, *, lab: bool = False) -> Pace:
    """What the plan's own times rest on: the practice lab's measured pace at scale small, a gigabit NAS on a
    spinning disk at scale normal. Other hosts run at their own pace, which a first run on them measures (`lab`: the
    hosts are the practice lab's)."""
    if lab and scale == "small":
        return Pace(1.0, "the practice lab's pace, where the small scale's times were measured")
    own = {
        "small": "the plan's for scale small, measured on the practice lab",
        "normal": "the plan's for scale normal, made for a gigabit NAS on a spinning disk",
    }.get(scale, "the plan's own")
    why = "the practice lab is slower" if lab else "a first run measures other hosts' pace"
    return Pace(1.0, f"{own} ({why})")


def measured_pace(factor: float) -> Pace:
    """These hosts' own pace, from their earlier runs (recipes.estimate)."""
    return Pace(factor, f"these hosts' own pace in their earlier runs ({factor:.2g}x the plan's times)")


def plan_text(plan: Plan, rounds_shown: int = 2, pace: Pace | None = None) -> str:
    """The plan as the admin reads it before it runs: per recipe the visit order of every round up to the minimum,
    and every command of the warm-up and the first `rounds_shown` rounds, with how each change is undone. `pace`:
    what the times rest on (default: the plan's own times, not the lab's, said as such)."""
    pace = pace or plan_pace(plan.scale, lab=False)
    low, high = (pace.factor * seconds for seconds in plan.estimate_s)
    took = (
        f"about {duration_words(low)}"
        if duration_words(low) == duration_words(high)  # fixed rounds: nothing between a least and a most
        else f"about {duration_words(low)} for the minimum rounds, at most {duration_words(high)} (the budgets)"
    )
    # every recipe left out: no time to estimate, and the reasons follow
    head = f"{took}.\nTimes: {pace.basis}" if plan.recipes else "nothing to run: every recipe is skipped (below)"
    lines = [
        f"Plan: scale {plan.scale}, seed {plan.seed}; {head}.",
        f"Mount point {plan.mount_point or MOUNT_ROOT + '/...'}, scratch directory {plan.scratch_name} in the export "
        "(both removed at the end). Every change of a visit is undone when the visit ends, on cancel and on failure.",
        *scratch_privacy(plan),
    ]
    most = max((c.clients or 0 for item in plan.recipes for c in item.configs), default=0)
    if most:
        where = "on the client" if most == 1 else f"once on each of the {most} clients that load the server together"
        lines.append(
            f"fio --server is started {where}, bound to its address on the link to the server (port "
            f"{FIO_SERVER_PORT}; journaled, stopped at the end)."
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
    lines += [skipped_line(text) for text in plan.skipped]
    lines += ["", "session (before the first recipe; undone at the end):"]
    lines += _steps_text(("set up", plan.session.do), ("undo", plan.session.undo), indent="  ")
    for item in plan.recipes:
        rounds = item.rounds
        if item.hand is not None:
            lines += ["", f"{item.recipe.id}: {item.hand.changed} against the NAS as it is, changed by you"]
            lines += hand_plan_lines(item.hand, item.block_s(plan.scale))
            lines += _visits_text(item, 1)
            continue
        lines += [
            "",
            f"{item.recipe.id}: {_rounds_words(item)}; about {duration_words(pace.factor * item.round_s(plan.scale))} "
            "a round",
        ]
        if rounds.warmup:
            lines.append(f"  warm-up: {', '.join(item.order(0))} (not counted)")
        if len(item.configs) == 1:  # one configuration visits alone every round: one line says each round's order
            lines.append(f"  {numbered_span(1, rounds.min, 'round')}: {', '.join(item.order(1))}")
        else:
            for number in range(1, rounds.min + 1):
                lines.append(f"  round {number}: {', '.join(item.order(number))}")
        if rounds.max > rounds.min:
            lines.append(
                f"  {numbered_span(rounds.min + 1, rounds.max, 'round')}, while needed: each in a new order, without "
                "the runs "
                "whose comparisons are settled (a configuration with none left is not visited)"
            )
        if plan.sizes is not None and plan.size_limits is not None and _grows(item):
            lines.append("  " + growth_rule_text(rounds.min, rounds.grow_spread_percent, plan.size_limits, plan.sizes))
        lines += _visits_text(item, rounds_shown)
    return "\n".join(lines)


def skipped_line(text: str) -> str:
    """'Skipped: many-clients 3 clients, sync: it needs ...': the planner's reason, which says "skipped" itself for
    the run's log, said once."""
    return "Skipped: " + text.replace(": skipped: ", ": ", 1).replace(": skipped (", " (", 1)


def _rounds_words(item: RecipePlan) -> str:
    """'1 configuration, 6 rounds', or '4 configurations, 3 to 8 rounds (stops when every comparison is settled,
    ...)': a fixed number of rounds has no stop rule to explain, nor a budget that could cut it."""
    rounds, budget = item.rounds, duration_words(item.budget_s)
    configs = count(len(item.configs), "configuration")
    if rounds.min == rounds.max:
        return f"{configs}, {count(rounds.max, 'round')}"
    cut = (
        f"; {rounds.max} is what the {budget} budget holds at the plan's pace"
        if rounds.max < item.recipe.rounds.max
        else ""
    )
    return (
        f"{configs}, {span(rounds.min, rounds.max, 'round')} (stops when every comparison is settled, at round "
        f"{rounds.max}, or before the {budget} budget is spent{cut})"
    )


def _visits_text(item: RecipePlan, rounds_shown: int) -> list[str]:
    lines = []
    for visit in item.visits:
        if visit.round > rounds_shown:
            break
        name = "warm-up" if visit.warmup else f"round {visit.round}"
        lines.append(f"  {name}, {visit.label}: {', '.join(visit.workloads)}")
        lines += _steps_text(("set up", visit.setup), ("run", visit.run), ("undo", visit.undo), indent="    ")
    return lines


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
                    # a guided hand change: each block's configuration and rounds
                    "hand": None
                    if item.hand is None
                    else [[label, list(item.hand.rounds_of(b))] for b, label in enumerate(item.hand.labels())],
                }
                for item in plan.recipes
            ],
        },
        sort_keys=True,
    )
