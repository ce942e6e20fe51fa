"""Recipes: declarative TOML files saying what to vary, on which host, with which workloads and rounds."""

from nfstune.recipes.loader import RecipeError, default_recipe_dirs, load_recipe_file, load_recipes
from nfstune.recipes.model import (
    FACTS,
    WORKLOADS,
    Condition,
    Config,
    FactTest,
    Note,
    Recipe,
    Rounds,
    recipe_facts,
)

__all__ = [
    "FACTS",
    "WORKLOADS",
    "Condition",
    "Config",
    "FactTest",
    "Note",
    "Recipe",
    "RecipeError",
    "Rounds",
    "default_recipe_dirs",
    "load_recipe_file",
    "load_recipes",
    "recipe_facts",
]
