"""Which runs the later rounds leave out (session/skipping.py), from a recipe's real plan and its figures judged by
the real RecipeFigures.judge(): a settled comparison's run, the baseline's only once no comparison on the workload
is open, nothing before rounds.min, and a comparison that a later judgement un-settles measured again. Pure: no
host."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.recipes.plan import RecipePlan, visit_seconds
from nfstune.session.rounds import Eta, RecipeFigures, Run
from nfstune.session.skipping import runs_to_skip, skip_news, visits_left
from tests.unit.test_plan_is_what_runs import plan_of_text

RECIPE = """id = "skips"
title = "Three configurations on two workloads"
summary = "s"
why = "w"
changes_host = "client"
workloads = ["sync-4k", "seq-read"]
baseline = "baseline"
[rounds]
min = 3
max = 8
warmup = 1
[[configs]]
label = "baseline"
[[configs]]
label = "calm"
read_ahead_kb = 1024
[[configs]]
label = "noisy"
read_ahead_kb = 2048
workloads = ["seq-read"]
"""
BASE_MS, BASE_MBS = 4.0, 100.0


def the_item(tmp_path: Path) -> RecipePlan:
    return plan_of_text(tmp_path, "skips", RECIPE).recipes[0]


def measured(item: RecipePlan, rounds: int, noisy: float = 0.4, calm: float = 0.01) -> RecipeFigures:
    """calm: twice as fast on both workloads, within +-`calm`; noisy: seq-read within +-`noisy` of the baseline's."""
    figures = RecipeFigures(item)
    for number in range(1, rounds + 1):
        wobble = (-1) ** number * calm
        figures.add("sync-4k", "baseline", number, BASE_MS)
        figures.add("seq-read", "baseline", number, BASE_MBS)
        figures.add("sync-4k", "calm", number, BASE_MS / 2 * (1 + wobble))
        figures.add("seq-read", "calm", number, BASE_MBS * 2 * (1 + wobble))
        figures.add("seq-read", "noisy", number, BASE_MBS * (1 + (-1) ** number * noisy))
    return figures


def test_a_settled_run_leaves_the_rounds_and_the_baseline_stays_while_another_comparison_is_open(
    tmp_path: Path,
) -> None:
    item = the_item(tmp_path)
    judged = measured(item, 4).judge()
    kinds = {(row.workload, row.label): row.kind for row in judged.rows}
    assert kinds == {
        ("sync-4k", "calm"): "faster",
        ("seq-read", "calm"): "faster",
        ("seq-read", "noisy"): "not settled",
    }
    skipped = runs_to_skip(judged, item, 4)
    # sync-4k: its one comparison settled, so its baseline's run goes too; seq-read: noisy still needs the baseline
    assert skipped == {("sync-4k", "calm"), ("seq-read", "calm"), ("sync-4k", "baseline")}
    left = {v.label: v.workloads for v in visits_left(item, 5, skipped)}
    assert left == {"baseline": ("seq-read",), "noisy": ("seq-read",)}  # calm: not visited at all
    assert [v.label for v in visits_left(item, 5, skipped)] == [
        label for label in item.order(5) if label != "calm"
    ]  # the round's interleaved order kept for what still runs
    (baseline,) = (v for v in visits_left(item, 5, skipped) if v.label == "baseline")
    assert baseline.run and all(step.what.startswith("seq-read: ") for step in baseline.run)


def test_nothing_leaves_before_the_minimum_rounds_nor_before_the_carry_over_check(tmp_path: Path) -> None:
    item = the_item(tmp_path)
    judged = measured(item, 2, calm=1e-4).judge()
    assert any(row.kind == "faster" for row in judged.rows)  # settled already at round 2, before the first look
    assert runs_to_skip(judged, item, 2) == frozenset()
    # round 3 is the recipe's first look, but the carry-over check needs 4 rounds: a comparison leaving sooner
    # would escape it (statistics/serial.py)
    judged = measured(item, 3, calm=1e-4).judge()
    assert any(row.kind == "faster" for row in judged.rows)
    assert runs_to_skip(judged, item, 3) == frozenset()


def test_every_run_leaves_once_every_comparison_is_settled(tmp_path: Path) -> None:
    item = the_item(tmp_path)
    judged = measured(item, 4, noisy=0.0).judge()
    assert not judged.unsettled
    every = {(w, v.label) for v in item.visits for w in v.workloads}
    assert runs_to_skip(judged, item, 4) == every
    assert list(visits_left(item, 5, frozenset(every))) == []


UNSETTLED = """id = "unsettles"
title = "One comparison judged alone, then in a family of two"
summary = "s"
why = "w"
changes_host = "client"
workloads = ["sync-4k"]
baseline = "baseline"
[rounds]
min = 3
max = 8
[[configs]]
label = "baseline"
[[configs]]
label = "same"
read_ahead_kb = 1024
[[configs]]
label = "late"
read_ahead_kb = 2048
"""


def test_a_comparison_a_later_judgement_unsettles_is_measured_again(tmp_path: Path) -> None:
    item = plan_of_text(tmp_path, "unsettles", UNSETTLED).recipes[0]
    figures = RecipeFigures(item)
    # `same` within 2 % of the baseline: no difference that matters while it is judged alone; `late` measured
    # nothing its first four rounds (a 0: no ratio), so it is not in the family yet
    for number, factor in ((1, 1.02), (2, 0.98), (3, 1.01), (4, 0.99)):
        figures.add("sync-4k", "baseline", number, BASE_MS)
        figures.add("sync-4k", "same", number, BASE_MS * factor)
        figures.add("sync-4k", "late", number, 0.0)
    fourth = figures.judge()
    assert [(row.label, row.kind) for row in fourth.rows] == [("same", "same")]
    skipped = runs_to_skip(fourth, item, 4)
    assert skipped == {("sync-4k", "same")}  # the baseline stays: late's comparison is open
    assert {v.label for v in visits_left(item, 5, skipped)} == {"baseline", "late"}
    # rounds 5 and 6 measure late alone with the baseline; with two ratios it joins the family, whose Holm level
    # for `same` is now half: its interval no longer fits in the margin
    for number, value in ((5, 3.0), (6, 5.0)):
        figures.add("sync-4k", "baseline", number, BASE_MS)
        figures.add("sync-4k", "late", number, value)
    sixth = figures.judge()
    assert {row.label: row.kind for row in sixth.rows} == {"same": "not settled", "late": "not settled"}
    again = runs_to_skip(sixth, item, 6)
    assert again == frozenset()
    assert {v.label for v in visits_left(item, 7, again)} == {"baseline", "same", "late"}
    assert skip_news(skipped, again, 6, item) == [
        "same · sync-4k: not settled any more after round 6 (its corrected level moved with the other comparisons): "
        "measured again"
    ]


def test_the_log_says_each_comparison_once_and_a_configuration_no_longer_visited(tmp_path: Path) -> None:
    item = the_item(tmp_path)
    first: frozenset[Run] = frozenset({("sync-4k", "calm"), ("seq-read", "calm"), ("sync-4k", "baseline")})
    assert skip_news(frozenset(), first, 3, item) == [
        "calm · seq-read settled after round 3: no longer measured",
        "calm · sync-4k settled after round 3: no longer measured",
        "calm: nothing left to measure after round 3: no longer visited",
    ]
    assert skip_news(first, first, 4, item) == []  # said once


def test_the_time_left_counts_only_the_runs_still_measured(tmp_path: Path) -> None:
    plan = plan_of_text(tmp_path, "skips", RECIPE)
    item = plan.recipes[0]
    eta = Eta(plan)
    eta.recipe_started(0.0)
    for number in range(0, 4):
        eta.round_started(item, number)
        for visit in visits_left(item, number, frozenset()):
            eta.visit_done(visit, 10.0)
    eta.expect_rounds(item, 6)  # three rounds more expected
    full = eta.remaining_s()
    skipped: frozenset[Run] = frozenset({("sync-4k", "calm"), ("seq-read", "calm"), ("sync-4k", "baseline")})
    eta.skipping(item, 3, skipped)
    shorter = eta.remaining_s()
    assert 0 < shorter < full

    # the visits left of rounds 4 to 6 at the plan's seconds, as a share of all of theirs: what the time left keeps
    def planned(skip: frozenset[Run]) -> float:
        return sum(visit_seconds(v, plan.scale) for n in (4, 5, 6) for v in visits_left(item, n, skip))

    assert shorter / full == pytest.approx(planned(skipped) / planned(frozenset()))
    # un-settled again: the time left is the full rounds' again
    eta.skipping(item, 3, frozenset())
    assert eta.remaining_s() == pytest.approx(full)


def test_a_recipe_from_several_clients_keeps_both_ends_of_an_open_step(tmp_path: Path) -> None:
    from nfstune import paths
    from nfstune.recipes.loader import load_recipes
    from nfstune.recipes.plan import build_plan
    from tests.unit.test_plan_is_what_runs import SIZES

    recipes, _ = load_recipes([paths.recipes_dir()])
    (recipe,) = (r for r in recipes if r.id == "many-clients")
    plan = build_plan(
        [recipe],
        {},
        scale="normal",
        seed=1,
        sizes=SIZES,
        fio_available=True,
        share="/export",
        server_address="nas",
        scratch_name=".nfstune-1",
    )
    item = plan.recipes[0]
    figures = RecipeFigures(item)
    # every configuration's aggregate calm and far from its neighbours' (each client adds half again), but the step
    # from 2 to 3 clients under sync on seq-read, which spreads
    for number in (1, 2, 3, 4):
        for config in item.configs:
            clients = config.clients or 1
            for workload in config.workloads or recipe.workloads:
                value = 100.0 * 1.5**clients * (2.0 if "async" in config.label else 1.0)
                if "threads" in config.label:
                    value *= 3.0
                if (config.label, workload) == ("3 clients, sync", "seq-read"):
                    value = 100.0 * 1.5**2 * (1 + (-1) ** number * 0.5)
                figures.add(workload, config.label, number, value * (1 + (-1) ** number * 0.001))
    judged = figures.judge()
    open_steps = [v for v in judged.verdicts if not v.settled]
    assert open_steps and all(judged.compared[v.key][0] == "seq-read" for v in open_steps)
    skipped = runs_to_skip(judged, item, 4)
    kept = {(w, v.label) for v in item.visits if v.round == 5 for w in v.workloads} - skipped
    # the open comparisons' two ends go on: the steps 2 -> 3 -> 4 clients under sync, and the 3-client async and
    # 64-thread configurations compared with 3 clients under sync; every other run leaves
    ends = {(w, end) for v in open_steps for w, *pair in [judged.compared[v.key]] for end in pair}
    assert (
        kept
        == ends
        == {
            ("seq-read", "2 clients, sync"),
            ("seq-read", "3 clients, sync"),
            ("seq-read", "4 clients, sync"),
            ("seq-read", "3 clients, async"),
            ("seq-read", "3 clients, 64 threads"),
        }
    )
