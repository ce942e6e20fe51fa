"""When a recipe's rounds stop, and how long the session still has to go. Pure: the engine feeds it what it
measured (each visit's figures by round, each visit's time) and asks after every round.

The stop rule: never before `min` rounds; then stop when every comparison of the recipe is settled (faster, slower,
no difference that matters, or unreliable), when another round would not fit in the recipe's budget (the rounds
measured so far say how long one takes), or at `max` rounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nfstune.bench.figure import RepeatFigures
from nfstune.recipes.hand_plan import SWITCH_S
from nfstune.recipes.plan import Plan, RecipePlan, Visit, visit_seconds
from nfstune.results.judged_figures import group_figures
from nfstune.words import count

if TYPE_CHECKING:
    from nfstune.recipes.estimate import Estimate
    from nfstune.results.verdict_rows import AskedWorkload, VerdictRow
    from nfstune.statistics.verdict import Question, Verdict
    from nfstune.store import StoredRun

Compared = tuple[str, str, str]  # (workload, the configuration compared with, the configuration) of a comparison
Run = tuple[str, str]  # (workload, configuration label): the run of a workload by a configuration

# The time left counts at most this many rounds beyond the current one: a verdict's own estimate of the rounds it
# needs is noisy after a few rounds (no-wdelay on the lab: "about 6 min left" at round 4, then settled 70 s later),
# so the expectation grows by a round or two at a time and the budget ("at most") says how long it can go.
EXPECT_AHEAD = 2


@dataclass
class RecipeFigures:
    """One recipe's figures: (workload, configuration label) -> round -> that round's repeat's figures (bench.figure:
    a latency workload's typical write, tail and mean besides), judged on the basis results/judged_figures.py gives
    the recipe's runs of that workload, as every view of the stored session judges them."""

    item: RecipePlan
    repeats: dict[tuple[str, str], dict[int, RepeatFigures]] = field(default_factory=dict)
    # how long each run took, seconds (the tool's timed part): whether a workload is short (growth.py)
    seconds: dict[tuple[str, str], dict[int, float]] = field(default_factory=dict)
    # (workload, configuration label) -> the run as the store keeps it, once opened: the options read back tell
    # an A/A check (the same settings in force) as the report tells it
    runs: dict[tuple[str, str], StoredRun] = field(default_factory=dict)

    def add(
        self, workload: str, label: str, round_number: int, value: float | RepeatFigures, seconds: float | None = None
    ) -> None:
        """`value`: the repeat's figures (bench.figure.repeat_figures of the record the store keeps), or a figure
        alone (a workload with one figure)."""
        if round_number > 0:  # warm-ups are never counted
            figures = value if isinstance(value, RepeatFigures) else RepeatFigures(value)
            self.repeats.setdefault((workload, label), {})[round_number] = figures
            if seconds is not None:
                self.seconds.setdefault((workload, label), {})[round_number] = seconds

    @property
    def figures(self) -> dict[tuple[str, str], dict[int, float]]:
        """(workload, configuration label) -> round -> the figure judged, on its workload's basis."""
        found = {}
        for workload in dict.fromkeys(w for w, _ in self.repeats):
            members = {label: rounds for (w, label), rounds in self.repeats.items() if w == workload}
            judged = group_figures(workload, members).judged
            found.update({(workload, label): rounds for label, rounds in judged.items()})
        return found

    def tail_questions(self) -> list[Question]:
        """The tails' (p99) comparisons of the recipe's latency workloads, their own family: what the Results page
        reports beside the typical write's verdict. The stop rule never asks them."""
        return self._asked()[3]

    def questions(self) -> list[Question]:
        """The recipe's comparisons as every view of the stored session asks them (results/comparisons.py), one
        family, each judged with the boundary of the looks stop_reason takes (rounds.min to rounds.max)."""
        return self._asked()[0]

    def _asked(
        self,
    ) -> tuple[list[Question], list[AskedWorkload], dict[tuple[str, ...], Compared], list[Question]]:
        """The questions, how they were asked, the runs each judges, and the tails' questions."""
        from nfstune.results.comparisons import (  # scipy loads only when judged
            baseline_of,
            compared_labels,
            planned_run,
            stored_run,
            tail_questions,
            workload_questions,
        )
        from nfstune.results.verdict_rows import AskedWorkload

        recipe = self.item.recipe
        found: list[Question] = []
        asked: list[AskedWorkload] = []
        compared: dict[tuple[str, ...], Compared] = {}
        tails: list[Question] = []
        hand = self.item.hand
        hand_blocks = None if hand is None else hand.as_blocks()
        for workload in dict.fromkeys(w for w, _ in self.repeats):
            runs = {
                c.label: stored_run(run) if (run := self.runs.get((workload, c.label))) is not None else planned_run(c)
                for c in self.item.configs
                if (workload, c.label) in self.repeats
            }
            figures = group_figures(workload, {label: self.repeats[(workload, label)] for label in runs})
            margin, looks = self.item.rounds.margin_percent, (self.item.rounds.min, self.item.rounds.max)
            # looks: stop_reason may stop at any of them
            questions, same = workload_questions(
                recipe.id,
                workload,
                runs,
                figures.judged,
                recipe,
                margin_percent=margin,
                looks=looks,
                paired=True,
                steps=figures.own,
                blocks=hand_blocks,
            )
            found += questions
            if hand is None:  # a tail's rounds from blocks are not asked: the typical write's verdict says it
                tails += tail_questions(
                    recipe.id, workload, runs, figures.tail, recipe, margin_percent=margin, looks=looks, paired=True
                )
            asked.append(AskedWorkload(workload, baseline_of(recipe, runs), runs, same))
            for key, (against, label) in compared_labels(recipe.id, workload, runs, figures.judged, recipe).items():
                compared[key] = (workload, against, label)
        return found, asked, compared, tails

    def judge(self) -> Judgement:
        """The recipe's comparisons judged on the figures so far: once a round, for the stop rule, the time left
        and the verdicts the Run page shows (one verdict for all of them)."""
        from nfstune.results.verdict_rows import judged_rows
        from nfstune.statistics.verdict import judge

        questions, asked, compared, _ = self._asked()
        verdicts = judge(questions)
        rows = judged_rows(self.item.recipe.id, asked, verdicts, self.item.rounds.margin_percent)
        return Judgement(questions, verdicts, rows, compared)

    def rounds_to_settle(self, rounds_done: int, judged: Judgement | None = None) -> int:
        """The rounds in all that the comparisons not settled yet would take to settle, as their verdicts
        estimate it (a comparison more rounds alone will not settle counts as the recipe's maximum); at least one
        more than `rounds_done`. What the time left is worked out from, beyond the minimum rounds. `judged`: the
        round's judgement (judge()), else judged here."""
        judged = judged or self.judge()
        needed = [v.rounds_needed or self.item.rounds.max for v in judged.verdicts if not v.settled]
        return min(self.item.rounds.max, max([rounds_done + 1, *needed]))

    def unsettled(self) -> list[str]:
        """The comparisons not settled yet, as their verdicts' texts."""
        return self.judge().unsettled


@dataclass(frozen=True)
class Judgement:
    """A recipe's comparisons judged after one round, a family: what the stop rule decides by, and the rows the
    verdict plot draws (results.verdict_rows), from the same verdicts."""

    questions: list[Question]
    verdicts: list[Verdict]
    rows: list[VerdictRow]  # the verdicts as the Results page's rows, in its order
    # a question's key -> (workload, what it is compared with, configuration): the runs it judges
    compared: Mapping[tuple[str, ...], Compared] = field(default_factory=dict)

    @property
    def unsettled(self) -> list[str]:
        """The comparisons not settled yet, as their verdicts' texts."""
        return [v.text for v in self.verdicts if not v.settled]


def rounds_to_expect(
    figures: RecipeFigures, rounds_done: int, fit: int, likely: int = 0, judged: Judgement | None = None
) -> int:
    """The rounds in all the time left counts, beyond the minimum: as many as the unsettled comparisons need,
    at most EXPECT_AHEAD past `rounds_done`, or the `likely` rounds it took on these hosts before when more; as
    many as `fit` in the budget; at least the next."""
    ahead = min(figures.rounds_to_settle(rounds_done, judged), rounds_done + EXPECT_AHEAD)
    return max(rounds_done + 1, min(fit, max(ahead, likely)))


def stop_reason(
    figures: RecipeFigures,
    rounds_done: int,
    elapsed_s: float,
    round_times: Sequence[float],
    judged: Judgement | None = None,
) -> str | None:
    """Why the recipe stops after `rounds_done` rounds (`elapsed_s` spent on it, warm-up included), or None to go
    on with another round. `judged`: the round's judgement (RecipeFigures.judge()), else judged here when needed."""
    rounds, budget = figures.item.rounds, figures.item.budget_s
    if rounds_done < rounds.min:
        return None
    if len(figures.item.configs) == 1:
        return f"measured in {count(rounds_done, 'round')} (one configuration: nothing to compare)"
    if rounds_done >= rounds.max:
        return f"stopped at the maximum of {count(rounds.max, 'round')}"
    unsettled = (judged or figures.judge()).unsettled
    if not unsettled:
        return f"every comparison is settled after {count(rounds_done, 'round')}"
    next_round = max(round_times[-3:]) if round_times else 0.0  # the slowest of the last rounds: drift is upward
    if elapsed_s + next_round > budget:
        return (
            f"another round (about {next_round:.0f} s) would not fit in the {budget / 60:.0f}-minute budget "
            f"({elapsed_s / 60:.1f} min spent); {len(unsettled)} comparison(s) not settled"
        )
    return None


# How much of the plan's time the hosts' past pace weighs, against the visits measured so far: about two of a
# lab's visits. Without it the first visit alone (a warm-up that also lays out the files) set the pace of the
# whole session.
PRIOR_WEIGHT_S = 60.0


class Eta:
    """The time left: what the plan still expects (warm-ups and the rounds each recipe likely runs: its minimum,
    or as many as it took on these hosts before, plus each round started beyond them) at the hosts' pace: their
    past pace (recipes.estimate, what the Recipes page said) blended with how the visits measured so far compare
    with the plan."""

    def __init__(self, plan: Plan, likely: Mapping[str, Estimate] | None = None) -> None:
        likely = likely or {}
        self.scale = plan.scale
        # recipe id -> the last round whose visits expected_s holds (the likely rounds at first; then what the
        # comparisons' own estimates say it takes to settle them)
        self.likely_rounds = {
            item.recipe.id: min(item.rounds.max, max(item.rounds.min, likely[item.recipe.id].rounds))
            if item.recipe.id in likely
            else item.rounds.min
            for item in plan.recipes
        }
        self.counted = dict(self.likely_rounds)
        # recipe id -> the plan's seconds of its visits still expected
        self.expected = {
            item.recipe.id: sum(
                visit_seconds(v, plan.scale) for v in item.visits if v.round <= self.counted[item.recipe.id]
            )
            for item in plan.recipes
        }
        weighed = sum((likely[r].pace if r in likely else 1.0) * s for r, s in self.expected.items())
        self.prior_pace = weighed / self.expected_s if self.expected_s > 0 else 1.0
        self.planned_done_s = 0.0
        self.measured_done_s = 0.0
        # the recipes' budgets, for the most the session can still take (a recipe whose comparisons do not
        # settle runs until its budget is spent), in the plan's order
        self.order = [item.recipe.id for item in plan.recipes]
        # (less a guided hand change's allowance for the admin's switches: the admin's turns are not measuring time,
        # progress.py leaves them out of the clock)
        self.budgets = [item.budget_s - (item.hand.switches * SWITCH_S if item.hand else 0.0) for item in plan.recipes]
        # recipe id -> the plan's seconds of its warm-ups and minimum rounds still to run: they run whatever the
        # budget says (many-clients on the 3-client lab: 3 rounds took 40 min of its 30, the bar at 100 % for
        # the last 8)
        self.min_rounds = {item.recipe.id: item.rounds.min for item in plan.recipes}
        self.must = {
            item.recipe.id: sum(visit_seconds(v, plan.scale) for v in item.visits if v.round <= item.rounds.min)
            for item in plan.recipes
        }
        self.recipe_index = -1
        self.recipe_start = 0.0
        # recipe id -> the runs its later rounds leave out (session/skipping.py): their visits count only the rest
        self.skipped: dict[str, frozenset[Run]] = {}

    @property
    def expected_s(self) -> float:
        return sum(self.expected.values())

    def recipe_started(self, now: float) -> None:
        self.recipe_index += 1
        self.recipe_start = now

    def paused(self, seconds: float) -> None:
        """The recipe waited `seconds` for the admin (a change by hand): not spent from its budget."""
        self.recipe_start += seconds

    def at_most_s(self, now: float) -> float:
        """The most the recipes can still take: the rest of the current one's budget and the later ones' budgets
        (never less than the time left shown, remaining_s(now))."""
        index = max(self.recipe_index, 0)
        current = self.budgets[index] - (now - self.recipe_start) if self.recipe_index >= 0 else self.budgets[0]
        later = sum(self.budgets[index + 1 :]) if self.budgets else 0.0
        return max(self.remaining_s(now), max(0.0, current) + later)

    def round_started(self, item: RecipePlan, round_number: int) -> None:
        if round_number > self.counted[item.recipe.id]:
            self.expect_rounds(item, round_number)

    def expect_rounds(self, item: RecipePlan, total: int) -> None:
        """The recipe is now expected to run `total` rounds: the visits of the rounds this adds (or drops) count
        in the time left. Without it, every round beyond the minimum read as "about 0 min left" until the recipe
        stopped (no-wdelay on the lab: 3.5 minutes of it, the bar at 86-91 %)."""
        counted = self.counted[item.recipe.id]
        if total == counted:
            return
        low, high, sign = (counted, total, 1.0) if total > counted else (total, counted, -1.0)
        change = sum(self._left_s(v) for v in item.visits if low < v.round <= high)
        self.expected[item.recipe.id] = max(0.0, self.expected[item.recipe.id] + sign * change)
        self.counted[item.recipe.id] = total

    def skipping(self, item: RecipePlan, rounds_done: int, skipped: frozenset[Run]) -> None:
        """From the round after `rounds_done` the recipe leaves out the runs `skipped` (their comparisons are
        settled), a configuration with none left is not visited: the rounds still expected count only the rest."""
        recipe = item.recipe.id
        self.skipped[recipe] = skipped
        later = [v for v in item.visits if v.round > rounds_done]
        self.expected[recipe] = sum(self._left_s(v) for v in later if v.round <= self.counted[recipe])
        self.must[recipe] = sum(self._left_s(v) for v in later if v.round <= self.min_rounds[recipe])

    def _left_s(self, visit: Visit) -> float:
        """The plan's seconds of what the visit will still measure: nothing when every run of it is left out."""
        skipped = self.skipped.get(visit.recipe, frozenset())
        kept = [w for w in visit.workloads if (w, visit.label) not in skipped]
        return visit_seconds(visit.only(kept), self.scale) if kept else 0.0

    def recipe_done(self, item: RecipePlan, rounds_done: int) -> None:
        """The recipe stopped after `rounds_done` rounds: rounds expected beyond them no longer count."""
        if self.counted[item.recipe.id] > rounds_done:
            self.expect_rounds(item, rounds_done)

    def visit_done(self, visit: Visit, seconds: float) -> None:
        """`visit`: as it ran (Visit.only: the workloads it still measured)."""
        planned = visit_seconds(visit, self.scale)
        if visit.recipe in self.expected:
            self.expected[visit.recipe] = max(0.0, self.expected[visit.recipe] - planned)
        if visit.recipe in self.must and visit.round <= self.min_rounds[visit.recipe]:
            self.must[visit.recipe] = max(0.0, self.must[visit.recipe] - planned)
        self.planned_done_s += planned
        self.measured_done_s += seconds

    def remaining_s(self, now: float | None = None) -> float:
        """The expected time left at the hosts' pace. With `now`, each recipe's part is at most what its budget
        still allows: a recipe stops when its next round would not fit, so quick-check's 12 likely rounds at the
        lab's pace (31 min) take its 13-minute budget, not more (the Run page said "about 32 min left" while the
        Recipes page, which caps the same way, said 13)."""
        factor = (self.measured_done_s + self.prior_pace * PRIOR_WEIGHT_S) / (self.planned_done_s + PRIOR_WEIGHT_S)
        if now is None:
            return self.expected_s * factor
        left = 0.0
        for index, recipe in enumerate(self.order):
            part = self.expected[recipe] * factor
            if index == self.recipe_index:
                budget_left = max(0.0, self.budgets[index] - (now - self.recipe_start))
                part = min(part, max(budget_left, self.must[recipe] * factor))
            elif index > self.recipe_index:
                part = min(part, max(self.budgets[index], self.must[recipe] * factor))
            left += part
        return left
