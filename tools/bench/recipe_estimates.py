"""Benchmark: how close is the Recipes page's estimate to the real run? Runs the shipped recipes one after another
on the practice lab, each its own session exactly as an admin would (`nfstune run --lab --recipe R --no-baselines`,
the session's ceilings left out as the estimate leaves them out), in a store of its own; then, for every run in
the order they ran, prints what the Recipes page would have said just before it (recipes.estimate, from the runs
before it alone) next to what the run took, and whether it is within 30 %.

`--passes 2` runs the list twice: the first pass shows the estimate from the plan and the pace of the recipes run
so far, the second from each recipe's own earlier run on these hosts. Prints figures; asserts nothing. Needs the
lab up and a quiet machine (the lab's CPUs are emulated: anything else running moves its figures):

    .venv/bin/nfstune lab up
    .venv/bin/python tools/bench/recipe_estimates.py --passes 2 --store /tmp/estimates
    .venv/bin/python tools/bench/recipe_estimates.py --store /tmp/estimates --replay   # the table again
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from nfstune.recipes.estimate import PastRun, estimate
from nfstune.recipes.info import format_duration
from nfstune.recipes.loader import default_recipe_dirs, load_recipes

NFSTUNE = [str(Path(sys.executable).parent / "nfstune")]  # the venv's own command, as an admin runs it
SHIPPED = ["readahead", "sync-vs-async", "no-wdelay", "block-size", "nfs-versions", "quick-check", "nconnect"]
WITHIN = 0.30


def run_recipes(store: Path, recipes: list[str]) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(store)}
    for recipe in recipes:
        started = time.monotonic()
        with (store / f"{recipe}.log").open("a") as log:
            code = subprocess.run(
                [*NFSTUNE, "run", "--lab", "--recipe", recipe, "--no-baselines"], env=env, stdout=log, stderr=log
            ).returncode
        print(f"ran {recipe}: exit {code}, {time.monotonic() - started:.0f} s of wall time", flush=True)


def completed_runs(database: Path) -> list[tuple[str, float, int, str, str, str]]:
    """(recipe, seconds, rounds, server key, client key, scale) of every completed run, oldest first: as
    store.Results.past_runs measures them (a recipe's first run to its last repeat's end)."""
    with sqlite3.connect(database) as conn:
        return conn.execute(
            "SELECT r.recipe, MAX(p.started_at + COALESCE(p.seconds, 0)) - MIN(r.started_at), MAX(p.number), "
            "hs.key, hc.key, s.scale "
            "FROM sessions s JOIN hosts hs ON hs.id = s.server_host JOIN hosts hc ON hc.id = s.client_host "
            "JOIN runs r ON r.session_id = s.id JOIN repeats p ON p.run_id = r.id WHERE s.status = 'completed' "
            "GROUP BY s.id, r.recipe ORDER BY s.id, MIN(r.started_at)"
        ).fetchall()


def replay(database: Path) -> None:
    recipes, _ = load_recipes(default_recipe_dirs())
    by_id = {r.id: r for r in recipes}
    runs = completed_runs(database)
    print("| recipe | estimate | from | real run | rounds | real / estimate | within 30 % |")
    print("|---|---|---|---|---|---|---|")
    within = 0
    for index, (recipe_id, seconds, rounds, server, client, scale) in enumerate(runs):
        before = [
            PastRun(r[0], r[1], r[2], (r[3], r[4]) == (server, client)) for r in reversed(runs[:index]) if r[5] == scale
        ]
        likely = estimate(by_id[recipe_id], scale, before, by_id)
        ratio = seconds / likely.seconds
        ok = abs(ratio - 1) <= WITHIN
        within += ok
        print(
            f"| {recipe_id} | {format_duration(likely.seconds)} ({likely.seconds:.0f} s) | {likely.basis} "
            f"| {seconds / 60:.1f} min ({seconds:.0f} s) | {rounds} | {ratio:.2f} | {'yes' if ok else 'no'} |"
        )
    print(f"\n{within} of {len(runs)} runs within {WITHIN:.0%} of the estimate shown before them")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a directory for the runs' own store")
    parser.add_argument("--recipes", nargs="*", default=SHIPPED)
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--replay", action="store_true", help="only print the table of the runs in --store")
    args = parser.parse_args()
    args.store.mkdir(parents=True, exist_ok=True)
    if not args.replay:
        for _ in range(args.passes):
            run_recipes(args.store, args.recipes)
    database = args.store / "nfstune" / "nfstune.sqlite3"
    if not database.exists():
        print(f"{database}: no store there", file=sys.stderr)
        return 2
    replay(database)
    return 0


if __name__ == "__main__":
    sys.exit(main())
