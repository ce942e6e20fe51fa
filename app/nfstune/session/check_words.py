"""A check of an applied recommendation in the admin's words, before and while it runs: the plan as a decision
(what is verified, what is measured and for how long, what it is compared with, what is touched), the exact
commands behind it (recipes/plan_text.py, the engine's own plan), and each progress event as the step it is
("Round 2 of 6: small-files, seq-read"). Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from nfstune.nfs.own_mount import MOUNT_ROOT
from nfstune.recipes.plan import Plan
from nfstune.recipes.plan_text import duration_words, plan_text
from nfstune.session.check_run import CHECK_RECIPE, CheckPlan
from nfstune.statistics.verdict import format_change

VERIFYING = "Verifying the applied settings are in force"


@dataclass(frozen=True)
class PlanWords:
    title: str
    steps: tuple[str, ...]  # in the order the check takes them
    touched: str  # what on the hosts the check changes, and that it is put back
    notes: tuple[str, ...]


def _applied(plan: CheckPlan) -> str:
    """'the Apply of 2026-11-28 14:05'; 'the last Apply' when the journal kept no time."""
    return f"the Apply of {plan.applied.when}" if plan.applied.at > 0 else "the last Apply"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def plan_words(plan: CheckPlan, built: Plan | None) -> PlanWords:
    """`built`: the engine's plan of the measuring (its time and mount point); None: said without them."""
    n = plan.session_id
    steps = [
        "Verify that the applied settings are in force: the mount options the client negotiated (/proc/mounts), "
        "the server's export (exportfs -s), and nfsd's threads where the Apply set them."
    ]
    checked = [t for t in plan.thens if t.checkable]
    if checked:
        rounds = f"{plan.rounds} round{'' if plan.rounds == 1 else 's'} after a warm-up"
        took = f", about {duration_words(built.estimate_s[1])}" if built is not None else ""
        steps.append(
            f"Measure the network and the server's disk (the ceilings), then {_and(list(plan.workloads))} on the "
            f"applied mount options: {rounds}{took}."
        )
        labels = _and(sorted({t.label for t in checked}))
        gains = _and([f"{t.workload} {format_change(t.gain)}" for t in checked if t.gain is not None])
        steps.append(
            f"Compare each with what session {n} measured for {labels}, the configuration it recommended, against "
            f"the gain it predicted ({gains}): held, did not hold, or not settled."
        )
        where = built.mount_point if built is not None and built.mount_point else f"{MOUNT_ROOT}/…"
        touched = (
            f"Only nfstune's own mount ({where}) and a scratch directory in the export are used, both removed at "
            "the end; Cancel undoes them at once. Your own mounts, files and settings are not changed."
        )
    else:
        touched = "Nothing is mounted or written: the settings are only read."
    return PlanWords(
        f"Check that {_applied(plan)} (session {n}'s recommendation) held", tuple(steps), touched, plan.notes
    )


def plan_lines(words: PlanWords) -> list[str]:
    """The plan's words as `nfstune check` prints them."""
    lines = [f"{words.title}:"]
    lines += [f"  {number}. {step}" for number, step in enumerate(words.steps, start=1)]
    lines.append(f"  {words.touched}")
    lines += [f"  note: {note}" for note in words.notes]
    return lines


def commands_text(built: Plan | None) -> str:
    """The exact commands behind the plan (every command and its undo); '' when nothing is measured."""
    return plan_text(built) if built is not None else ""


def check_plan_text(plan: CheckPlan, built: Plan | None) -> str:
    """The plan, then the exact commands of its measuring."""
    text = "\n".join(plan_lines(plan_words(plan, built)))
    commands = commands_text(built)
    return f"{text}\n\nThe exact commands:\n{commands}" if commands else text


_VISIT = re.compile(rf"^{re.escape(CHECK_RECIPE)} (warm-up|round (\d+)): ")


def step_words(message: str, plan: CheckPlan) -> str:
    """A progress event's message as the step of the check it is."""
    if message.startswith("verifying"):
        return VERIFYING
    if message.startswith("ceilings: the network round trip"):
        return "Measuring the ceilings: the network's round trip"
    if message.startswith("ceilings"):
        return "Measuring the ceilings: the network and the server's disk"
    visit = _VISIT.match(message)
    if visit is None:
        return message[:1].upper() + message[1:]
    workloads = _and(list(plan.workloads)) if plan.workloads else ""
    if visit.group(2) is None:
        return f"Warming up (not counted): {workloads}"
    return f"Round {visit.group(2)} of {plan.rounds}: {workloads}"
