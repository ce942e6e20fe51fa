"""What the Recipes page says of a recipe on the hosts connected, beside its description: that it needs more clients
than are connected (many-clients with one: a run is not offered until there are, or it is unchecked), and what the
times of its plan rest on. Words only; the page draws them."""

from __future__ import annotations

from collections.abc import Sequence

from nfstune.recipes.clients_needed import clients_needed, compares_text, too_few_clients
from nfstune.recipes.estimate import Estimate
from nfstune.recipes.model import Recipe
from nfstune.recipes.plan_text import Pace, measured_pace, plan_pace
from nfstune.session.workflow import Pair
from nfstune.words import count

WHERE_TO_ADD = "Further clients, on step 1, Connect"


def clients_short(recipe: Recipe, pair: Pair | None, *, named: bool = True) -> str | None:
    """'“many clients at once” compares the NAS loaded from 1, 2, 3 and 4 clients at once: connect at least 2
    clients (...); one is connected now (laptop).' (`named` False: 'It compares ...', beside its own title). None
    when the connected clients are enough, or not known yet."""
    if pair is None:
        return None
    have = len(pair.clients)
    if too_few_clients(recipe, have) is None:
        return None
    names = ", ".join(client.label for client in pair.clients)
    connected = "one is connected now" if have == 1 else f"{have} are connected now"
    who = f"“{recipe.title}”" if named else "It"
    return (
        f"{who} {compares_text(recipe)}: connect at least {count(clients_needed(recipe), 'client')} "
        f"({WHERE_TO_ADD}); {connected} ({names})."
    )


def run_blocker(recipes: Sequence[Recipe], pair: Pair | None) -> str | None:
    """Why the checked recipes cannot start on the clients connected: each one short of clients, and the way out
    (connect more, or uncheck it). None when they can."""
    short = [text for recipe in recipes if (text := clients_short(recipe, pair)) is not None]
    if not short:
        return None
    return " ".join([*short, f"Or uncheck {'it' if len(short) == 1 else 'them'}."])


def estimate_pace(likely: Estimate, scale: str) -> Pace:
    """What a plan's times rest on: these hosts' own pace when their earlier runs gave one, else the plan's."""
    return measured_pace(likely.pace) if likely.pace != 1.0 else plan_pace(scale)
