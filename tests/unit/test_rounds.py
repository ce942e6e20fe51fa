"""The stop rule after each round and the time left, from figures by round (pure: no host)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune import paths
from nfstune.bench.workloads import MIB, WorkloadSizes
from nfstune.recipes import Recipe, load_recipes
from nfstune.recipes.estimate import Estimate
from nfstune.recipes.plan import Plan, build_plan, visit_seconds
from nfstune.session.rounds import EXPECT_AHEAD, Eta, RecipeFigures, rounds_to_expect, stop_reason
from nfstune.statistics.verdict import judge
from nfstune.store import Results, open_store

SIZES = WorkloadSizes(seq_file_bytes=8 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=40)


@pytest.fixture(scope="module")
def shipped() -> dict[str, Recipe]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in recipes}


def plan_of(*recipes: Recipe) -> Plan:
    return build_plan(
        list(recipes),
        {},
        scale="small",
        seed=5,
        sizes=SIZES,
        fio_available=True,
        share="/export",
        server_address="nas",
        scratch_name=".nfstune-1",
    )


def figures(plan: Plan, async_factor: dict[int, float]) -> RecipeFigures:
    """sync-vs-async's figures: sync the same every round, async `async_factor[round]` times as fast."""
    found = RecipeFigures(plan.recipes[0])
    base = {"small-files": 10.0, "sync-4k": 8.0, "seq-write": 20.0}
    for number, factor in async_factor.items():
        for workload, value in base.items():
            found.add(workload, "sync", number, value)
            faster = value * factor if workload == "seq-write" else value / factor  # MB/s vs s and ms
            found.add(workload, "async", number, faster)
    found.add("seq-write", "sync", 0, 1.0)  # a warm-up figure is never counted
    return found


def test_no_stop_before_the_minimum_and_always_at_the_maximum(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["sync-vs-async"])
    settled = figures(plan, {1: 5.0, 2: 5.1})
    assert stop_reason(settled, 2, 10.0, [5.0, 5.0]) is None  # min = 3
    last = plan.recipes[0].rounds.max
    noisy = figures(plan, {n: (0.5, 2.0)[n % 2] for n in range(1, last + 1)})
    assert stop_reason(noisy, last - 1, 10.0, [5.0] * (last - 1)) is None
    assert stop_reason(noisy, last, 10.0, [5.0] * last) == f"stopped at the maximum of {last} rounds"


def test_stop_when_every_comparison_is_settled(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["sync-vs-async"])
    assert figures(plan, {1: 5.0}).figures[("seq-write", "sync")] == {1: 20.0}
    assert stop_reason(figures(plan, {1: 5.0, 2: 5.1, 3: 4.9}), 3, 60.0, [20.0] * 3) == (
        "every comparison is settled after 3 rounds"
    )


def test_an_unsettled_recipe_goes_on_while_another_round_fits_the_budget(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["sync-vs-async"])
    budget = plan.recipes[0].budget_s
    noisy = figures(plan, {1: 0.7, 2: 1.6, 3: 1.1})
    assert stop_reason(noisy, 3, budget - 100, [40.0, 60.0, 50.0]) is None
    why = stop_reason(noisy, 3, budget - 50, [40.0, 60.0, 50.0])
    assert why is not None and why.startswith("another round (about 60 s) would not fit in the 15-minute budget")
    assert "3 comparison(s) not settled" in why


def test_the_time_left_follows_the_visits_measured(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["quick-check"])
    item = plan.recipes[0]
    eta = Eta(plan)
    planned = sum(visit_seconds(v, "small") for v in item.visits if v.round <= item.rounds.min)
    assert eta.remaining_s() == pytest.approx(planned)
    first = item.visits[0]
    eta.visit_done(first, 2 * visit_seconds(first, "small"))  # the hosts run at half the planned speed
    left = planned - visit_seconds(first, "small")
    # one visit moves the pace towards what it measured, not all the way: the prior (the plan's, here) weighs
    assert left < eta.remaining_s() < 2 * left
    done = [v for v in item.visits if v.round <= 2][1:]
    for visit in done:
        eta.visit_done(visit, 2 * visit_seconds(visit, "small"))
    left -= sum(visit_seconds(v, "small") for v in done)
    assert 1.75 * left < eta.remaining_s() < 2 * left  # two rounds measured: their pace rules
    before = eta.remaining_s()
    eta.round_started(item, item.rounds.min + 1)  # a round beyond the minimum adds its visits
    extra = sum(visit_seconds(v, "small") for v in item.visits if v.round == item.rounds.min + 1)
    assert eta.remaining_s() == pytest.approx(before * (left + extra) / left)


def test_the_time_left_starts_from_what_these_hosts_took_before(shipped: dict[str, Recipe]) -> None:
    """What the Recipes page said (recipes.estimate): no-wdelay took 8 rounds on these hosts, at 1.5 times the
    plan's time; the Run page starts from that, not from the plan's minimum rounds."""
    plan = plan_of(shipped["no-wdelay"])
    item = plan.recipes[0]
    likely = {"no-wdelay": Estimate(0.0, 0.0, "", rounds=8, pace=1.5)}
    eta = Eta(plan, likely)
    through_8 = sum(visit_seconds(v, "small") for v in item.visits if v.round <= 8)
    assert eta.remaining_s() == pytest.approx(1.5 * through_8)
    assert eta.likely_rounds == {"no-wdelay": 8}
    # at round 3 its comparisons want 2 more rounds at most: the 8 it took before still count
    noisy = RecipeFigures(item)
    assert rounds_to_expect(noisy, 3, fit=20, likely=8) == 8
    assert rounds_to_expect(noisy, 3, fit=6, likely=8) == 6  # within the budget
    too_many = Eta(plan, {"no-wdelay": Estimate(0.0, 0.0, "", rounds=99, pace=1.0)})
    assert too_many.likely_rounds == {"no-wdelay": item.rounds.max}


def test_the_most_time_left_is_the_rest_of_the_budgets(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["quick-check"], shipped["sync-vs-async"])
    quick, sync_async = (item.budget_s for item in plan.recipes)
    eta = Eta(plan)
    assert eta.at_most_s(0.0) == pytest.approx(quick + sync_async)  # before the first recipe: every budget
    eta.recipe_started(1000.0)
    assert eta.at_most_s(1000.0 + 120) == pytest.approx(quick - 120 + sync_async)
    for visit in (v for v in plan.recipes[0].visits if v.round <= 3):  # quick-check's minimum, at the plan's pace
        eta.visit_done(visit, visit_seconds(visit, "small"))
    eta.recipe_done(plan.recipes[0], 3)
    eta.recipe_started(5000.0)  # the second recipe: the first one's budget is gone
    assert eta.at_most_s(5000.0 + 60) == pytest.approx(sync_async - 60)
    # past the last budget nothing more may start: the time left and the most left are both what is in flight
    assert eta.at_most_s(5000.0 + 10 * sync_async) == pytest.approx(eta.remaining_s(5000.0 + 10 * sync_async))


def test_the_time_left_is_never_more_than_the_budgets_allow(shipped: dict[str, Recipe]) -> None:
    # quick-check took 12 rounds on these hosts at 1.2 times the plan's pace: 12 rounds would take about 31 min,
    # but its 13-minute budget stops it first, as the Recipes page's estimate says
    plan = plan_of(shipped["quick-check"], shipped["sync-vs-async"])
    quick, sync_async = (item.budget_s for item in plan.recipes)
    likely = {"quick-check": Estimate(quick, quick, "", rounds=12, pace=1.2)}
    eta = Eta(plan, likely)
    assert eta.remaining_s() > quick + sync_async / 3  # uncapped: what the page showed before
    eta.recipe_started(100.0)
    left = eta.remaining_s(100.0)
    assert left <= quick + sync_async
    assert left == pytest.approx(quick + min(sync_async, eta.expected["sync-vs-async"] * eta.prior_pace))
    # halfway through quick-check's budget with no visit measured, the rest of the budget is left for it, or
    # what its minimum rounds take at these hosts' pace when that is more (they run whatever the budget says)
    minimum = eta.must["quick-check"] * eta.prior_pace
    assert eta.remaining_s(100.0 + quick / 2) == pytest.approx(left - quick + max(quick / 2, minimum))
    assert eta.at_most_s(100.0 + quick / 2) >= eta.remaining_s(100.0 + quick / 2)
    assert eta.remaining_s() > left


def round_seconds(item: object, number: int) -> float:
    return sum(visit_seconds(v, "small") for v in item.visits if v.round == number)  # type: ignore[attr-defined]


def test_beyond_the_minimum_the_time_left_counts_the_rounds_settling_needs(shipped: dict[str, Recipe]) -> None:
    """After round 3 of sync-vs-async, comparisons that need 6 rounds leave 3 rounds to go, not "0 min left"; the
    recipe stopping earlier drops them, so that the next recipe's time is not counted twice."""
    plan = plan_of(shipped["sync-vs-async"], shipped["no-wdelay"])
    item, after = plan.recipes
    eta = Eta(plan)
    for visit in (v for v in item.visits if v.round <= 3):
        eta.visit_done(visit, visit_seconds(visit, "small"))
    second = sum(visit_seconds(v, "small") for v in after.visits if v.round <= after.rounds.min)
    assert eta.remaining_s() == pytest.approx(second)  # the old way: nothing left of this recipe
    eta.expect_rounds(item, 6)
    assert eta.remaining_s() == pytest.approx(second + sum(round_seconds(item, n) for n in (4, 5, 6)))
    eta.round_started(item, 4)  # already counted: not twice
    assert eta.remaining_s() == pytest.approx(second + sum(round_seconds(item, n) for n in (4, 5, 6)))
    eta.expect_rounds(item, 5)  # the verdicts now say fewer
    assert eta.remaining_s() == pytest.approx(second + sum(round_seconds(item, n) for n in (4, 5)))
    eta.recipe_done(item, 3)  # settled after all
    assert eta.remaining_s() == pytest.approx(second)


def test_rounds_to_settle_follows_the_verdicts_estimate(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["sync-vs-async"])
    settled = figures(plan, {1: 5.0, 2: 5.1, 3: 4.9})
    assert settled.rounds_to_settle(3) == 4  # nothing unsettled: at least the next round (the stop rule ends it)
    # async 10 % faster on average with round-to-round noise: a handful of rounds more, within the maximum
    close = figures(plan, {1: 1.05, 2: 1.15, 3: 1.08})
    wanted = close.rounds_to_settle(3)
    assert 4 <= wanted <= plan.recipes[0].rounds.max


def test_each_question_is_judged_over_the_rounds_the_stop_rule_looks_at(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["sync-vs-async"])
    close = figures(plan, {1: 1.05, 2: 1.15, 3: 1.08})
    rounds = plan.recipes[0].rounds
    assert {q.looks for q in close.questions()} == {(rounds.min, rounds.max)} == {(3, 8)}
    # "about N more rounds" never goes past the last look, and the time left counts no round beyond it
    assert all((v.rounds_needed or 0) <= rounds.max for v in judge(close.questions()))
    assert close.rounds_to_settle(3) <= rounds.max


def test_the_time_left_counts_a_few_rounds_ahead_at_a_time(shipped: dict[str, Recipe]) -> None:
    """A verdict's estimate after three rounds is noisy: the time left grows by at most EXPECT_AHEAD rounds a
    round, within what fits in the budget, and always counts the next round."""
    plan = plan_of(shipped["sync-vs-async"])
    noisy = figures(plan, {1: 0.9, 2: 1.3, 3: 1.02})  # async somewhere between 10 % slower and 30 % faster
    assert noisy.rounds_to_settle(3) > 3 + EXPECT_AHEAD  # what the verdicts alone would count
    assert rounds_to_expect(noisy, 3, fit=20) == 3 + EXPECT_AHEAD
    assert rounds_to_expect(noisy, 3, fit=4) == 4  # one more round is all the budget has
    assert rounds_to_expect(noisy, 3, fit=3) == 4  # a round is counted until the stop rule says none is left
    settled = figures(plan, {1: 5.0, 2: 5.1, 3: 4.9})
    assert rounds_to_expect(settled, 3, fit=20) == 4


def test_the_minimum_rounds_count_in_full_when_they_outrun_the_budget(shipped: dict[str, Recipe]) -> None:
    # many-clients on the 3-client lab: its 3 minimum rounds took 40 min of its 30-minute budget, and the bar said
    # 100 % and "about 1 min left" for the last 8 minutes: the minimum rounds run whatever the budget says
    plan = plan_of(shipped["many-clients"])
    item = plan.recipes[0]
    eta = Eta(plan)
    eta.recipe_started(0.0)
    for visit in [v for v in item.visits if v.round <= 1]:
        eta.visit_done(visit, visit_seconds(visit, "small"))  # at the plan's pace
    now = 0.95 * item.budget_s  # most of the budget spent, two of the three minimum rounds still to run
    still = sum(visit_seconds(v, "small") for v in item.visits if 1 < v.round <= item.rounds.min)
    assert still > item.budget_s - now
    assert eta.remaining_s(now) == pytest.approx(still)  # not the budget's rest
    assert eta.at_most_s(now) >= eta.remaining_s(now)


def test_the_stop_rule_reads_the_options_in_force_from_the_stored_runs(
    shipped: dict[str, Recipe], tmp_path: Path
) -> None:
    """A server that kept "sync" when async was asked: the runs as stored say the same settings were in force, so the
    stop rule asks an A/A check, as the report does; before the store opened the runs, the plan alone says nothing."""
    plan = plan_of(shipped["sync-vs-async"])
    item = plan.recipes[0]
    found = figures(plan, {1: 1.0, 2: 1.01, 3: 0.99})
    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid = results.start_session(
        server_host=results.upsert_host("root@nas:22", "nas", None),
        client_host=results.upsert_host("root@client:22", "client", None),
        share="/export",
        scale="small",
        recipes=[item.recipe.id],
    )
    for workload in ("small-files", "sync-4k", "seq-write"):
        for label in ("sync", "async"):
            config = item.recipe.config(label)
            run = results.start_run(
                sid, recipe=item.recipe.id, config_label=label, config={"expect": config.expect}, workload=workload
            )
            results.set_run_options(run, requested="vers=4.2", negotiated="rw,vers=4.2,hard", export="sync,wdelay")
    assert not any(q.expect_same for q in found.questions())
    found.runs = {(r.workload, r.config_label): r for r in results.stored_session(sid).runs}
    checks = [q for q in found.questions() if q.expect_same]
    assert len(checks) == 3 and all(q.why_same.startswith("the same settings were in force") for q in checks)
