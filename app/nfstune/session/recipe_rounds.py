"""The rounds of one recipe: its warm-up visits, then round after round until rounds.stop_reason says why not
another; after each round the runs whose comparisons are settled leave the rounds (skipping.py), and the time left
(rounds.Eta) and the sizes (growth.py) are brought up to date. One run per (configuration, workload), opened at its
first visit and ended with the recipe."""

from __future__ import annotations

import time

from nfstune.bench.workloads import WorkloadSizes
from nfstune.errors import Cancelled
from nfstune.recipes.plan import Plan, RecipePlan
from nfstune.session.admin import Admin, Event
from nfstune.session.growth import next_sizes
from nfstune.session.rounds import Eta, Judgement, RecipeFigures, Run, rounds_to_expect, stop_reason
from nfstune.session.skipping import runs_to_skip, skip_news, visits_left
from nfstune.session.visit import VisitExecutor
from nfstune.store import Results


class RecipeRounds:
    """`sizes`: what every recipe of the plan starts with; growth.py may grow them between its rounds."""

    def __init__(
        self, plan: Plan, sizes: WorkloadSizes, eta: Eta, visits: VisitExecutor, results: Results, admin: Admin
    ) -> None:
        self.plan, self.planned_sizes, self.eta, self.visits = plan, sizes, eta, visits
        self.results, self.admin = results, admin
        self.sizes = sizes

    def run(self, session_id: int, item: RecipePlan) -> None:
        runs: dict[tuple[str, str], int] = {}
        figures = RecipeFigures(item)
        status = "failed"
        skipped: frozenset[Run] = frozenset()  # settled: left out of the rounds to come
        started, round_times = time.monotonic(), []
        self.eta.recipe_started(started)
        self.sizes = self.planned_sizes
        self.admin.emit(recipe_event(item))
        try:
            for number in range(item.rounds.max + 1):
                self.eta.round_started(item, number)
                round_start = time.monotonic()
                for visit in visits_left(item, number, skipped):
                    self.admin.check_cancel()
                    visit_start = time.monotonic()
                    self.visits.run(session_id, item, visit, runs, figures, self.sizes)
                    self.eta.visit_done(visit, time.monotonic() - visit_start)
                if number == 0:
                    continue
                round_times.append(time.monotonic() - round_start)
                # the options read back as the runs opened: the stop rule tells an A/A check as the report does
                stored = self.results.stored_session(session_id)
                figures.runs = {(r.workload, r.config_label): r for r in stored.runs if r.recipe == item.recipe.id}
                elapsed = time.monotonic() - started
                judged = figures.judge()  # once a round: the stop rule, the time left and the Run page's verdicts
                why = stop_reason(figures, number, elapsed, round_times, judged)
                before = skipped
                if why is None:
                    skipped = runs_to_skip(judged, item, number)
                self.admin.emit(verdicts_event(item, number, judged, why, skipped))
                if why is not None:
                    self.admin.log(f"{item.recipe.id}: {why}")
                    break
                for line in skip_news(before, skipped, number, item):
                    self.admin.log(f"{item.recipe.id}: {line}")
                if skipped != before:
                    self.eta.skipping(item, number, skipped)
                if number >= item.rounds.min:  # beyond the minimum: as many rounds as settling needs and fit
                    fit = number + int(max(0.0, item.budget_s - elapsed) // max(max(round_times[-3:]), 1.0))
                    likely = self.eta.likely_rounds[item.recipe.id]
                    self.eta.expect_rounds(item, rounds_to_expect(figures, number, fit, likely, judged))
                self._grow(item, figures, number, time.monotonic() - started, round_times, skipped)
            self.eta.recipe_done(item, number)
            status = "completed"
        except Cancelled:
            status = "cancelled"
            raise
        finally:
            for run_id in runs.values():
                self.results.end_run(run_id, status)

    def _grow(
        self,
        item: RecipePlan,
        figures: RecipeFigures,
        rounds_done: int,
        elapsed_s: float,
        round_times: list[float],
        skipped: frozenset[Run],
    ) -> None:
        limits = self.plan.size_limits
        if limits is None:
            return
        growth = next_sizes(figures, self.sizes, limits, rounds_done, elapsed_s, round_times, skipped)
        if growth is not None:
            self.sizes = growth.sizes
            for reason in growth.reasons:
                self.admin.log(f"{item.recipe.id}, from round {rounds_done + 1}: {reason}")


def recipe_event(item: RecipePlan) -> Event:
    """A recipe starts: what the Run page lays its visits out by (a row per configuration and workload it runs, a
    column per round)."""
    recipe = item.recipe
    runs = {
        c.label: list(dict.fromkeys(w for v in item.visits if v.label == c.label for w in v.workloads))
        for c in item.configs
    }
    return Event(
        "recipe",
        f"{recipe.id}: {recipe.title}",
        {
            "recipe": recipe.id,
            "title": recipe.title,
            "configs": [c.label for c in item.configs],
            # what the others are compared with (comparisons.baseline_of): the recipe's, else the first that runs
            "baseline": recipe.baseline if recipe.baseline in runs else item.configs[0].label,
            "workloads": list(dict.fromkeys(w for ws in runs.values() for w in ws)),
            "config_workloads": runs,  # label -> the workloads its visits run
            "rounds_min": item.rounds.min,
            "rounds_max": item.rounds.max,
            "warmup": any(v.warmup for v in item.visits),
        },
    )


def verdicts_event(
    item: RecipePlan, round_number: int, judged: Judgement, why: str | None, skipped: frozenset[Run] = frozenset()
) -> Event:
    """A round is judged: the recipe's verdict rows as the stop rule judged them, whether (why) it stops, and the
    runs the next rounds leave out, settled (skipping.py), as [configuration, workload]."""
    unsettled = len(judged.unsettled)
    message = f"{item.recipe.id} after round {round_number}: " + (
        why or (f"{unsettled} comparison(s) not settled" if unsettled else "another round")
    )
    return Event(
        "verdicts",
        message,
        {
            "recipe": item.recipe.id,
            "round": round_number,
            "rows": judged.rows,
            "stops": why is not None,
            "why": why,
            "skipped": [[label, workload] for workload, label in sorted(skipped)],
        },
    )
