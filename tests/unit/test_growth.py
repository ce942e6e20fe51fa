"""Growing the files between rounds when short runs spread widely (pure: no host), and the limits growth keeps."""

from __future__ import annotations

import dataclasses

import pytest

from nfstune import paths
from nfstune.bench.sizing import GIB, growth_limits, plan_sizes
from nfstune.bench.workloads import MIB, WorkloadSizes
from nfstune.recipes import Recipe, load_recipes
from nfstune.recipes.plan import Plan, build_plan
from nfstune.recipes.plan_text import plan_json, plan_text
from nfstune.session.growth import next_sizes, spread
from nfstune.session.rounds import RecipeFigures

SIZES = WorkloadSizes(seq_file_bytes=96 * MIB, small_file_count=20, small_file_bytes=4096, sync_4k_count=50)
LIMITS = WorkloadSizes(seq_file_bytes=384 * MIB, small_file_count=20, small_file_bytes=4096, sync_4k_count=200)


@pytest.fixture(scope="module")
def quick() -> Recipe:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return next(r for r in recipes if r.id == "quick-check")


def plan_of(recipe: Recipe, limits: WorkloadSizes | None = LIMITS) -> Plan:
    return build_plan(
        [recipe],
        {},
        scale="small",
        seed=5,
        sizes=SIZES,
        fio_available=True,
        share="/export",
        server_address="nas",
        scratch_name=".nfstune-1",
        size_limits=limits,
    )


def figures(plan: Plan, ratios: list[float], *, seq_s: float, sync_s: float) -> RecipeFigures:
    """quick-check's seq-read and sync-4k by round: the baseline steady, each other configuration `ratios[r-1]`
    times the baseline in round r; seq runs take `seq_s` seconds, sync-4k runs `sync_s`."""
    found = RecipeFigures(plan.recipes[0])
    for number, ratio in enumerate(ratios, start=1):
        found.add("seq-read", "baseline", number, 10.0, seq_s)
        found.add("seq-read", "vers=3", number, 10.0 * ratio, seq_s)
        found.add("sync-4k", "baseline", number, 60.0, sync_s)
        found.add("sync-4k", "async", number, 50.0, sync_s)  # the same ratio every round: no spread
    return found


def test_a_short_workload_that_spreads_doubles_and_says_why(quick: Recipe) -> None:
    plan = plan_of(quick)
    noisy = figures(plan, [0.7, 1.4], seq_s=8.0, sync_s=3.0)
    assert spread(noisy, "sync-4k") == pytest.approx(0.0)
    growth = next_sizes(noisy, SIZES, LIMITS, 2, 300.0, [120.0, 120.0])
    assert growth is not None
    assert growth.sizes.seq_file_bytes == 192 * MIB
    assert growth.sizes.sync_4k_count == 50  # its ratios do not spread
    assert growth.sizes.small_file_count == 20  # small-files never grows
    (reason,) = growth.reasons
    assert reason.startswith("seq-read: its per-round ratios spread 63 % and its runs took at most 8.0 s")
    assert reason.endswith("the sequential file grows from 96 MiB to 192 MiB")


def test_nothing_grows_when_the_runs_are_long_or_steady_or_after_one_round(quick: Recipe) -> None:
    plan = plan_of(quick)
    assert next_sizes(figures(plan, [0.7, 1.4], seq_s=12.0, sync_s=3.0), SIZES, LIMITS, 2, 300.0, [120.0]) is None
    assert next_sizes(figures(plan, [1.02, 0.99], seq_s=8.0, sync_s=3.0), SIZES, LIMITS, 2, 300.0, [120.0]) is None
    assert next_sizes(figures(plan, [0.7], seq_s=8.0, sync_s=3.0), SIZES, LIMITS, 1, 300.0, [120.0]) is None


def test_a_comparison_no_longer_measured_grows_nothing(quick: Recipe) -> None:
    # vers=3's seq-read spreads, but its comparison is settled and its run left out of the rounds to come
    # (session/skipping.py): larger files would settle nothing
    noisy = figures(plan_of(quick), [0.7, 1.4], seq_s=8.0, sync_s=3.0)
    assert spread(noisy, "seq-read", {("seq-read", "vers=3")}) is None
    assert next_sizes(noisy, SIZES, LIMITS, 2, 300.0, [120.0, 120.0], {("seq-read", "vers=3")}) is None
    assert next_sizes(noisy, SIZES, LIMITS, 2, 300.0, [120.0, 120.0], {("sync-4k", "async")}) is not None


def test_the_recipes_spread_threshold_is_used(quick: Recipe) -> None:
    wide = dataclasses.replace(quick, rounds=dataclasses.replace(quick.rounds, grow_spread_percent=80.0))
    noisy = figures(plan_of(wide), [0.7, 1.4], seq_s=8.0, sync_s=3.0)  # 63 % apart: under 80 %
    assert next_sizes(noisy, SIZES, LIMITS, 2, 300.0, [120.0, 120.0]) is None


def test_growth_stops_at_the_limits_and_when_the_budget_has_no_room(quick: Recipe) -> None:
    plan = plan_of(quick)
    noisy = figures(plan, [0.7, 1.4], seq_s=8.0, sync_s=3.0)
    near = dataclasses.replace(SIZES, seq_file_bytes=300 * MIB)
    growth = next_sizes(noisy, near, LIMITS, 2, 300.0, [120.0, 120.0])
    assert growth is not None and growth.sizes.seq_file_bytes == 384 * MIB  # capped, not 600 MiB
    at_cap = dataclasses.replace(SIZES, seq_file_bytes=384 * MIB)
    assert next_sizes(noisy, at_cap, LIMITS, 2, 300.0, [120.0, 120.0]) is None
    budget = plan.recipes[0].budget_s  # 13 min: three more rounds of 120 s + the larger files' extra do not fit
    assert next_sizes(noisy, SIZES, LIMITS, 2, budget - 3 * 125.0, [120.0, 120.0]) is None
    assert next_sizes(noisy, SIZES, LIMITS, 2, budget - 3 * 140.0, [120.0, 120.0]) is not None


def test_the_limits_keep_the_ram_and_free_space_rules() -> None:
    assert growth_limits(SIZES, None, None).seq_file_bytes == 4 * 96 * MIB
    assert growth_limits(SIZES, 128 * MIB, None).seq_file_bytes == 256 * MIB  # twice the larger RAM
    # half of 600 MiB free, less the small files and the grown sync-4k file: 300 - 0.078 - 0.78 MiB, whole MiB
    assert growth_limits(SIZES, None, 600 * MIB).seq_file_bytes == 299 * MIB
    assert growth_limits(SIZES, None, 100 * MIB).seq_file_bytes == 96 * MIB  # never below the planned size
    sizing = plan_sizes(1 * GIB, 2 * GIB, 100 * GIB, "normal")
    assert sizing.limits.seq_file_bytes == 4 * GIB  # 4x the planned 2 GiB, but twice the larger RAM
    assert sizing.limits.sync_4k_count == 4 * sizing.sizes.sync_4k_count


def test_the_plan_states_the_rule_and_stores_the_sizes(quick: Recipe) -> None:
    plan = plan_of(quick)
    text = plan_text(plan)
    assert "When a workload's runs take under 10 s and its per-round ratios spread more than 10 %" in text
    assert "the sequential file (96 MiB) or sync-4k's count (50 writes) doubles" in text
    assert "(at most 384 MiB and 200 writes)" in text
    assert "small-files keeps its tree" in text
    assert '"size_limits": {' in plan_json(plan) and '"seq_file_bytes": 402653184' in plan_json(plan)
    assert "doubles for the rounds after" not in plan_text(plan_of(quick, limits=None))
