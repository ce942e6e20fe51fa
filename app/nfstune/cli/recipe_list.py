"""`nfstune recipes`: every recipe nfstune would run (the shipped ones and the user's), what it changes, and how long
it takes by its plan at both scales, as a table or as JSON.

The times are the plan's own (recipes/estimate.py, as the desktop's Recipes page starts from before these hosts
have run anything): the least is the warm-up and the minimum rounds, when every comparison settles there; the
most is the rounds the recipe's budget holds at the plan's pace. Hosts slower than the lab or the NAS the pace was
measured on take longer, never beyond the budget.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from nfstune.recipes.estimate import at_most_seconds, plan_seconds
from nfstune.recipes.info import describe, format_duration
from nfstune.recipes.loader import default_recipe_dirs, load_recipes
from nfstune.recipes.model import Recipe

SCALES = ("small", "normal")


def recipes_command(as_json: bool, ids_only: bool = False) -> int:
    recipes, errors = load_recipes(default_recipe_dirs())
    for error in errors:  # a broken user recipe costs only itself; said where a script's pipe does not read it
        print(f"nfstune: warning: {error}", file=sys.stderr)
    if ids_only:
        print("\n".join(sorted(r.id for r in recipes)))
        return 0
    rows = [recipe_row(r) for r in recipes]
    print(json.dumps(rows, indent=2) if as_json else table(rows))
    return 0


def recipe_row(recipe: Recipe) -> dict[str, Any]:
    info = describe(recipe)
    return {
        "id": recipe.id,
        "title": recipe.title,
        "changes": recipe.changes_host,  # "server" or "client": the host whose configuration it changes
        "varies": info.varies,
        "what_it_changes": info.changes,
        "warning": info.risks,
        "user_provided": recipe.user_provided,
        "source": str(recipe.source),
        "replaces": str(recipe.overrides) if recipe.overrides else None,  # the shipped file it stands in for
        "time": {
            scale: {
                "least_s": round(plan_seconds(recipe, scale, recipe.rounds.min)),
                "at_most_s": round(at_most_seconds(recipe, scale)),
            }
            for scale in SCALES
        },
    }


def table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no recipes: see `nfstune info` for where nfstune looks for them"
    # a user's recipe in place of a shipped one of that id: marked after its id, and said under the table
    ids = [r["id"] + ("*" if r["replaces"] else "") for r in rows]
    width = max(len(i) for i in ids)
    title_width = min(48, max(len(r["title"]) for r in rows))
    lines = [f"{'recipe':{width}}  {'title':{title_width}}  {'changes':7}  {'small':14}  normal"]
    for r, shown in zip(rows, ids, strict=True):
        title = r["title"] if len(r["title"]) <= title_width else r["title"][: title_width - 1] + "\u2026"
        small, normal = (_duration(r["time"][scale]) for scale in SCALES)
        lines.append(f"{shown:{width}}  {title:{title_width}}  {r['changes']:7}  {small:14}  {normal}")
    lines.append(
        "\nTime by the plan: the least (every comparison settled at the minimum rounds) to the most (the rounds\n"
        "the budget holds). small: the quick setting, for the emulated lab; normal: a real NAS."
    )
    replacing = [r for r in rows if r["replaces"]]
    if replacing:  # nfstune runs the user's: the shipped one of that id is out of use while it is there
        lines.append(
            "\n* yours, replaces the shipped one (nfstune runs yours; remove it to run the shipped one again):"
        )
        lines += [f"  {r['id']}: {r['source']}\n    in place of {r['replaces']}" for r in replacing]
    return "\n".join(lines)


def _duration(time: dict[str, int]) -> str:
    return format_duration((time["least_s"], time["at_most_s"])).removeprefix("about ")
