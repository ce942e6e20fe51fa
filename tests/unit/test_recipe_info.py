"""Recipes in plain words (recipe_info.py), from the shipped recipe files: what varies, what changes where, how
long it takes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nfstune import paths
from nfstune.recipe_info import describe, estimate_seconds, estimate_total, format_duration, size_text
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe, Rounds


@pytest.fixture(scope="module")
def shipped() -> dict[str, Recipe]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in recipes}


def test_server_side_recipe_says_the_server_changes_and_how_they_are_restored(shipped: dict[str, Recipe]) -> None:
    info = describe(shipped["quick-check"])
    assert info.host == "server"
    assert "server" in info.changes and "/etc/exports" in info.changes and "journaled" in info.changes
    assert "restored at the end, on cancel, on failure, or at the next start after a crash" in info.changes
    assert info.risks is not None and "exports(5)" in info.risks  # the async window
    assert info.varies == (
        "each against the baseline: export async; export no_wdelay; rsize/wsize 128 KiB; NFS version 3"
    )


def test_client_side_recipes_leave_the_server_and_the_users_mounts_alone(shipped: dict[str, Recipe]) -> None:
    info = describe(shipped["block-size"])
    assert info.host == "client" and info.risks is None
    assert "nosharecache" in info.changes and "your own mounts are untouched" in info.changes
    assert "/etc/exports" not in info.changes and "server's configuration is not touched" in info.changes
    readahead = describe(shipped["readahead"])
    assert "read_ahead_kb of nfstune's own mount only" in readahead.changes
    assert "read_ahead_kb" not in info.changes


def test_varies_is_built_from_the_configurations(shipped: dict[str, Recipe]) -> None:
    block = describe(shipped["block-size"]).varies
    assert "8 KiB" in block and "1 MiB" in block and block.startswith("rsize/wsize")
    assert describe(shipped["sync-vs-async"]).varies == "export sync vs async"
    assert describe(shipped["no-wdelay"]).varies == "export wdelay vs no_wdelay"
    assert describe(shipped["nconnect"]).varies == "nconnect 1, 2, 4"
    assert describe(shipped["readahead"]).varies == "client readahead 128 KiB, 1 MiB, 15 MiB"
    versions = describe(shipped["nfs-versions"]).varies
    assert versions.startswith("NFS version 3, 4.0, 4.1, 4.2") and "vers=4.0 only when" in versions


def low_estimate(recipe: Recipe, min_rounds: int, scale: str) -> float:
    return estimate_seconds(replace(recipe, rounds=replace(recipe.rounds, min=min_rounds)), scale)[0]


def test_estimate_runs_from_the_minimum_rounds_to_the_budget(shipped: dict[str, Recipe]) -> None:
    recipe = shipped["sync-vs-async"]  # 2 server-side configurations, the same workloads each: every visit alike
    configs = len(recipe.configs)
    visit = (low_estimate(recipe, 4, "normal") - low_estimate(recipe, 3, "normal")) / configs  # a round more
    assert visit > 0
    low, high = estimate_seconds(recipe, "normal")
    assert low == pytest.approx((recipe.rounds.warmup + recipe.rounds.min * configs) * visit)  # warm-up, min rounds
    assert high == recipe.rounds.budget_s("normal") < recipe.rounds.max * configs * visit  # the budget comes first
    assert estimate_seconds(recipe, "small")[1] == recipe.rounds.budget_s("small")


def test_a_quick_check_round_is_estimated_as_long_as_the_lab_measured_it(shipped: dict[str, Recipe]) -> None:
    """Three quick-check sessions in the practice lab (hdd profile, 2026-11-23) took 136 s a round (the measurement
    the small-scale times of recipes/plan.py come from); the estimate keeps within a fifth of it."""
    recipe = shipped["quick-check"]
    round_s = low_estimate(recipe, 4, "small") - low_estimate(recipe, 3, "small")
    assert 0.8 * 136 <= round_s <= 1.2 * 136


def test_estimate_grows_with_scale_and_with_rounds(shipped: dict[str, Recipe]) -> None:
    for recipe in shipped.values():
        small, normal = estimate_seconds(recipe, "small"), estimate_seconds(recipe, "normal")
        assert small[0] <= small[1] and small[0] < normal[0] <= normal[1] and small[1] <= normal[1]
    recipe = shipped["block-size"]
    more = replace(recipe, rounds=Rounds(min=8, max=20))
    assert estimate_seconds(more, "normal")[0] > estimate_seconds(recipe, "normal")[0]
    assert estimate_seconds(more, "normal")[1] == estimate_seconds(recipe, "normal")[1]  # the budget caps both
    both = estimate_total([shipped["block-size"], shipped["nconnect"]], "small")
    assert both[0] == estimate_seconds(recipe, "small")[0] + estimate_seconds(shipped["nconnect"], "small")[0]
    assert estimate_total([], "small") == (0.0, 0.0)


def test_format_duration() -> None:
    assert format_duration((240, 420)) == "about 4\u20137 min"
    assert format_duration(300) == "about 5 min"
    assert format_duration(20) == "under a minute"
    assert format_duration((2400, 7200)) == "about 40 min\u20132 h"
    assert format_duration((5400, 9000)) == "about 1.5\u20132.5 h"


def test_size_text() -> None:
    assert [size_text(n) for n in (8192, 1048576, 15 << 20, 1000, 1536)] == [
        "8 KiB", "1 MiB", "15 MiB", "1000 bytes", "1.5 KiB",
    ]  # fmt: skip
