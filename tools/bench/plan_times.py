"""Benchmark: how long each shipped recipe takes by its plan, at both scales. Builds each recipe's plan exactly as
`nfstune run --dry-run` does (recipes.plan.build_plan through session.workflow.plan_for, every configuration's
condition unknown, so every one is planned) and prints per recipe: the comparisons it judges, the time of its
warm-up and of one round at the plan's pace, the rounds the budget holds (the looks its verdicts are corrected
for), the time of a round once every comparison but one is settled (session/skipping.py: the settled runs leave the
rounds, a configuration with none left is not visited), and the plan's time at the minimum rounds and at most (that
many rounds, or the budget: what is said ahead, although a recipe whose comparisons settle on the way finishes
sooner). The goals of
issue 28 are checked beside the table: quick-check within 15 minutes at the normal scale, every single-pair
recipe within 20, the single-pair set within 2 hours.

Pure: no hosts, no SSH. Prints figures; asserts nothing.

    .venv/bin/python tools/bench/plan_times.py [--link-mbps 1000] [--out docs/bench/plan-times.md]
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
from collections.abc import Sequence
from pathlib import Path

from nfstune import paths
from nfstune.bench.sizing import default_sizes
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.recipes.plan import Plan, RecipePlan, build_plan, visit_seconds
from nfstune.session.skipping import visits_left

ROOT = Path(__file__).resolve().parents[2]
GOALS_MIN = {"quick-check": 15.0}
SINGLE_PAIR_MIN = 20.0
SET_MIN = 120.0


def comparisons(item: RecipePlan) -> int:
    base = item.recipe.baseline
    return sum(len(c.workloads or item.recipe.workloads) for c in item.configs if c.label != base)


def one_left_s(item: RecipePlan, scale: str) -> tuple[float, float] | None:
    """The shortest and longest round in which one comparison alone is still measured, every other one settled
    (its runs and the baseline's on its workload left, the rest skipped); None with nothing to compare. A recipe
    run from several clients compares some configurations step by step instead: there each is paired with the
    baseline, a round of about that size."""
    runs = {(w, v.label) for v in item.visits if v.round == 1 for w in v.workloads}
    labels = [c.label for c in item.configs]
    base = item.recipe.baseline if item.recipe.baseline in labels else labels[0]
    times = [
        sum(visit_seconds(v, scale) for v in visits_left(item, 1, frozenset(runs - {(w, label), (w, base)})))
        for w, label in runs
        if label != base and (w, base) in runs
    ]
    return (min(times), max(times)) if times else None


def plan_of(recipe: Recipe, scale: str, link_mbps: int | None) -> Plan:
    return build_plan(
        [recipe],
        {},
        scale=scale,
        seed=1,
        sizes=default_sizes(scale, link_mbps),
        fio_available=True,
        share="/srv/share",
        server_address="nas",
        scratch_name="nfstune-plan-times",
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--link-mbps", type=int, default=1000, help="the link the normal scale's file is sized for")
    parser.add_argument("--out", type=Path, help="also write the tables to this Markdown file")
    args = parser.parse_args(argv)
    recipes = sorted(load_recipes([paths.recipes_dir()])[0], key=lambda r: r.id)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    lines = [
        "# Each recipe's time by its plan",
        "",
        f"`tools/bench/plan_times.py --link-mbps {args.link_mbps}` (commit {commit.stdout.strip() or '?'}, "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC). The plan's own pace: the per-visit and "
        "per-run seconds of `recipes/plan.py` (`small`: measured on the practice lab; `normal`: a real NAS at the "
        f"sizes `bench/sizing.py` plans for a {args.link_mbps} Mbit/s link, "
        f"{default_sizes('normal', args.link_mbps).seq_file_bytes // 2**20} MiB sequential file). *Rounds*: the "
        "minimum, and the most the budget holds at that pace (the looks the verdicts are corrected for). "
        "*One open*: a round once every comparison but one is settled (the shortest and the longest, by which one "
        "is left), what the rounds past the minimum shrink to as comparisons settle. "
        "*Least*: warm-up and the minimum rounds (hosts quiet enough that every comparison settles there); "
        "*at most*: warm-up and the most rounds at the full round's time, within the budget.",
        "",
    ]
    total = {"small": 0.0, "normal": 0.0}
    rows: dict[str, list[str]] = {}
    for scale in ("small", "normal"):
        lines += [
            f"## Scale {scale}",
            "",
            "| recipe | comparisons | warm-up | a round | one open | rounds | budget | least | at most | goal |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for recipe in recipes:
            plan = plan_of(recipe, scale, args.link_mbps)
            item, (low, high) = plan.recipes[0], plan.estimate_s  # the plan's own least and most
            recipe_id = recipe.id
            warm = sum(visit_seconds(v, scale) for v in item.visits if v.warmup)
            each = item.round_s(scale)
            left = one_left_s(item, scale)
            one_open = "-" if left is None else f"{left[0] / 60:.1f}-{left[1] / 60:.1f} min"
            single = not any(c.clients for c in item.configs)
            goal = "-"
            if scale == "normal":
                limit = GOALS_MIN.get(recipe_id, SINGLE_PAIR_MIN if single else None)
                if limit is not None:
                    goal = f"{'met' if high <= limit * 60 else 'NOT met'} (at most {limit:.0f} min)"
            if single:
                total[scale] += high
            rows.setdefault(recipe_id, []).append(f"{high / 60:.1f}")
            lines.append(
                f"| {recipe_id} | {comparisons(item)} | {warm:.0f} s | {each / 60:.1f} min | {one_open} | "
                f"{item.rounds.min}-{item.rounds.max} (recipe: {item.recipe.rounds.max}) | "
                f"{item.budget_s / 60:.0f} min | "
                f"{low / 60:.1f} min | {high / 60:.1f} min | {goal} |"
            )
        lines += ["", f"Every single-pair recipe (all but many-clients), at most: {total[scale] / 60:.0f} min.", ""]
    met = "met" if total["normal"] <= SET_MIN * 60 else "NOT met"
    lines.append(f"Goal for the single-pair set at the normal scale, at most {SET_MIN:.0f} min: {met}.")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
