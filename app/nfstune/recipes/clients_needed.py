"""A recipe that compares the NAS loaded from several clients at once (many-clients) needs at least two: with one,
what is left of it compares one client with one client, which is not what the admin asked for. The planner skips it
whole with the reason, the command line refuses to start it when it was asked for by name, the desktop does not
offer to run it. Pure."""

from __future__ import annotations

from nfstune.recipes.model import Recipe
from nfstune.words import and_list, count


def client_counts(recipe: Recipe) -> list[int]:
    """The numbers of clients at once the recipe compares, smallest first ([] when it does not vary them)."""
    counts = sorted({c.clients or 1 for c in recipe.configs})
    return counts if len(counts) > 1 else []


def clients_needed(recipe: Recipe) -> int:
    """The fewest clients a session needs for the recipe to compare anything it is for: the second-smallest count
    of clients it loads the NAS from; 1 for a recipe that does not vary them."""
    counts = client_counts(recipe)
    return counts[1] if counts else 1


def compares_text(recipe: Recipe) -> str:
    """'compares the NAS loaded from 1, 2, 3 and 4 clients at once'."""
    return f"compares the NAS loaded from {and_list([str(n) for n in client_counts(recipe)])} clients at once"


def too_few_clients(recipe: Recipe, have: int) -> str | None:
    """Why the recipe cannot run with `have` clients ('it compares ..., so it needs at least 2 clients, and this
    session has 1'), None when it can."""
    needed = clients_needed(recipe)
    if have >= needed:
        return None
    return f"it {compares_text(recipe)}, so it needs at least {count(needed, 'client')}, and this session has {have}"
