"""The shipped recipes and the Recipes page on them at 1024x700: the fixtures the page's tests share (a test module
imports them by name)."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from nfstune import paths
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.ui.pages.recipes import RecipesPage


@pytest.fixture(scope="module")
def recipes() -> list[Recipe]:
    loaded, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return loaded


@pytest.fixture
def page(qtbot: QtBot, recipes: list[Recipe]) -> RecipesPage:
    widget = RecipesPage(recipes, "small")
    qtbot.addWidget(widget)
    widget.resize(1024, 700)
    widget.show()
    qtbot.waitExposed(widget)
    return widget
