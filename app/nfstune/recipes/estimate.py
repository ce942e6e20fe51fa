"""How long a recipe will take on the hosts at hand: the plan's time for the rounds it is likely to run, at the
pace these hosts have shown. Pure: the caller reads the past runs from the store (Results.past_runs).

The plan's seconds per visit (plan.VISIT_S, RUN_S) were measured on one lab; another lab, or a NAS, runs at its
own pace, and a recipe stops after as many rounds as its comparisons need, which the plan cannot know. So:
- a recipe run before on these hosts at this scale: the median of its last runs there (its rounds included);
- else these hosts' pace (each earlier run's time over the plan's time for the rounds it ran; their median) times
  the plan's time for the rounds it took elsewhere (the median), or else for the rounds other recipes took on
  these hosts (their noise sets how many rounds a comparison needs), or else its minimum rounds;
- else the plan alone, for its minimum rounds.
Never more than the recipe's budget for the scale, which is also the most it can take.
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.bench.sizing import default_sizes
from nfstune.recipes.info import format_duration
from nfstune.recipes.model import Recipe
from nfstune.recipes.plan import build_plan, visit_seconds
from nfstune.recipes.plan_text import SCALE_TIMES
from nfstune.words import count

LAST_RUNS = 3  # the runs of a recipe its estimate takes the median of: recent enough to follow a changed host


@dataclass(frozen=True)
class PastRun:
    """One completed run of a recipe: how long it took (its first visit to its last repeat) and in how many rounds."""

    recipe: str
    seconds: float
    rounds: int
    same_hosts: bool  # on the pair the estimate is for (else: on other hosts, same scale)


@dataclass(frozen=True)
class Estimate:
    seconds: float  # the likely time
    at_most_s: float  # the recipe's budget (its maximum rounds when they take less, its minimum ones when more)
    basis: str  # what the likely time is made from, in words
    # what it is made of, for the Run page's time left to start from (rounds.Eta): the rounds the recipe likely
    # runs, and these hosts' time over the plan's
    rounds: int = 0
    pace: float = 1.0


@functools.lru_cache(maxsize=64)
def _plan_times(recipe: Recipe, scale: str) -> tuple[float, float, float, int]:
    """(warm-up, one round, budget) seconds of the recipe's plan, and the most rounds the budget holds. Cached: a
    plan takes ~9 ms, and the Recipes page
    asks for every past run's recipe at each change of the checked recipes."""
    # the conditions on facts count as if they hold: the planner tries a configuration whose fact is unknown
    plan = build_plan(
        [recipe],
        {},
        scale=scale,
        seed=0,
        sizes=default_sizes(scale),
        fio_available=True,
        share="/share",
        server_address="server",
        scratch_name=".nfstune-0",
    )
    if not plan.recipes:
        return 0.0, 0.0, 0.0, recipe.rounds.max
    item = plan.recipes[0]
    warmup = sum(visit_seconds(v, scale) for v in item.visits if v.warmup)
    return warmup, item.round_s(scale), item.budget_s, item.rounds.max


def plan_seconds(recipe: Recipe, scale: str, rounds: int) -> float:
    """The plan's time for the warm-up and `rounds` rounds, at most the budget or the minimum rounds' time when
    more (the minimum rounds run whatever the budget says)."""
    warmup, round_s, budget, _ = _plan_times(recipe, scale)
    return min(warmup + rounds * round_s, max(budget, warmup + recipe.rounds.min * round_s))


def at_most_seconds(recipe: Recipe, scale: str, pace: float = 1.0) -> float:
    """The most the recipe takes on hosts `pace` times as slow as the plan: its last round (what the budget holds at
    the plan's pace, recipes/plan.rounds_in_budget) or the budget when these hosts are slower than the plan, and
    never less than its minimum rounds, which run whatever the budget says (many-clients' three took 40 min of its
    30 on the 3-client lab)."""
    warmup, round_s, budget, most = _plan_times(recipe, scale)
    return max(min(pace * (warmup + most * round_s), budget), pace * (warmup + recipe.rounds.min * round_s))


def noise_text(recipe: Recipe, scale: str) -> str:
    """How the hosts' noise sets the recipe's time, for the Recipes page."""
    warmup, round_s, _, most = _plan_times(recipe, scale)
    least = format_duration(warmup + recipe.rounds.min * round_s)
    fewest = count(recipe.rounds.min, "round")
    longest = format_duration(warmup + most * round_s)
    if most <= recipe.rounds.min:
        return (
            f"It runs {fewest} ({least}): enough for large differences (30 % or more) on quiet "
            "hosts (about 5 % spread on a round's ratio); smaller ones, or noisier hosts, are reported as not "
            "settled, with the rounds that would settle them."
        )
    return (
        f"At least {fewest} ({least}): enough for large differences (30 % or more) on quiet hosts "
        f"(about 5 % spread on a round's ratio). Smaller differences and noise lengthen it (twice the spread needs "
        f"about four times the rounds), up to {most} rounds ({longest}, what the budget holds). A comparison settled "
        "on the way is no longer measured, so the later rounds are shorter and it may finish sooner; one still open "
        "at the end is reported as not settled, with the rounds that would settle it."
    )


def _rounds_text(rounds: float) -> str:
    return count(round(rounds), "round")


def estimate(
    recipe: Recipe, scale: str, past: Sequence[PastRun], recipes: Mapping[str, Recipe], *, hosts_known: bool = True
) -> Estimate:
    """`past`: completed runs at this scale, newest first; `recipes`: the recipes by id, for the plan's time of
    the other recipes' runs (a run of a recipe no longer known is left out of the pace); `hosts_known`: False
    before any host is connected (no run of `past` is then on "these hosts", and the basis says why)."""
    at_most = at_most_seconds(recipe, scale)
    own_here = [p for p in past if p.recipe == recipe.id and p.same_hosts][:LAST_RUNS]
    if own_here:
        seconds = statistics.median(p.seconds for p in own_here)
        runs = "its last run" if len(own_here) == 1 else f"its last {len(own_here)} runs"
        rounds = statistics.median(p.rounds for p in own_here)
        basis = f"{runs} on these hosts ({_rounds_text(rounds)})"
        pace = seconds / plan_seconds(recipe, scale, round(rounds))
        at_most = at_most_seconds(recipe, scale, pace)
        return Estimate(min(seconds, at_most), at_most, basis, round(rounds), pace)
    paces = [
        p.seconds / planned
        for p in past
        if p.same_hosts and p.recipe in recipes and (planned := plan_seconds(recipes[p.recipe], scale, p.rounds)) > 0
    ][: LAST_RUNS * 3]
    own_elsewhere = [p.rounds for p in past if p.recipe == recipe.id][:LAST_RUNS]
    others_here = [p.rounds for p in past if p.same_hosts and p.recipe != recipe.id][: LAST_RUNS * 3]
    if own_elsewhere:
        rounds = round(statistics.median(own_elsewhere))
        rounds_basis = f"{_rounds_text(rounds)}, as it took on other hosts"
    elif others_here:
        # how noisy these hosts are sets how many rounds a comparison needs to settle, whatever the recipe
        rounds = min(recipe.rounds.max, max(recipe.rounds.min, round(statistics.median(others_here))))
        rounds_basis = f"{_rounds_text(rounds)}, as other recipes took on these hosts"
    else:
        rounds = recipe.rounds.min
        rounds_basis = f"its minimum {_rounds_text(rounds)}; it may need more"
    if paces:
        pace = statistics.median(paces)
        runs = "1 earlier run" if len(paces) == 1 else f"{len(paces)} earlier runs"
        basis = f"these hosts' pace in {runs} of other recipes ({pace:.1f}x the plan), {rounds_basis}"
        at_most = at_most_seconds(recipe, scale, pace)
        return Estimate(min(pace * plan_seconds(recipe, scale, rounds), at_most), at_most, basis, rounds, pace)
    times = SCALE_TIMES.get(scale, "the plan's own times")
    basis = f"{times} ({rounds_basis}): " + ("no run on these hosts yet" if hosts_known else "no hosts connected yet")
    return Estimate(plan_seconds(recipe, scale, rounds), at_most, basis, rounds, 1.0)
