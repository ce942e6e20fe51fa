"""The Recipes page's list says each recipe's time, the host it changes and whether it runs async; "Show the plan"
plans the recipe on screen (not the checked one) and names it; a workload's name never breaks inside its cell."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QTextLayout, QTextOption
from PySide6.QtWidgets import QStyle
from pytestqt.qtbot import QtBot

from nfstune.recipes.estimate import estimate
from nfstune.recipes.info import describe, format_duration
from nfstune.recipes.model import Recipe
from nfstune.ui.pages.recipes import CONFIG_HEADER, ID_ROLE, RecipesPage
from tests.ui import recipes_page_fixtures

# the shipped recipes and the Recipes page on them, shared with the page's other tests
recipes = recipes_page_fixtures.recipes
page = recipes_page_fixtures.page


def row_of(page: RecipesPage, recipe_id: str) -> int:
    return next(r for r in range(page.recipe_list.count()) if page.recipe_list.item(r).data(ID_ROLE) == recipe_id)


def runs_async(recipe: Recipe) -> bool:
    return any("async" in config.export.set for config in recipe.configs)


def test_show_the_plan_plans_the_recipe_on_screen_and_names_it(
    page: RecipesPage, qtbot: QtBot, recipes: list[Recipe]
) -> None:
    assert page.selected_ids() == ["first-look"]
    page.recipe_list.setCurrentRow(row_of(page, "quick-check"))  # highlighted, its warning shown; not checked
    quick = next(r for r in recipes if r.id == "quick-check")
    look = next(r for r in recipes if r.id == "first-look")
    assert page.warning_label.isVisible()
    qtbot.mouseClick(page.plan_button, Qt.MouseButton.LeftButton)
    dialog = page.plan_dialog
    assert dialog is not None and dialog.isVisible()
    assert quick.title in dialog.windowTitle() and look.title not in dialog.windowTitle()
    assert quick.title in dialog.heading.text() and dialog.heading.isVisible()
    assert "not checked" in dialog.heading.text()  # a run of the checked recipes would not include it
    text = dialog.plain_text()
    for config in quick.configs:
        assert config.label in text
    assert "first-look" not in text
    assert quick.title in page.plan_button.text()  # the button says which recipe it plans
    page.recipe_list.setCurrentRow(row_of(page, "first-look"))
    qtbot.mouseClick(page.plan_button, Qt.MouseButton.LeftButton)
    assert page.plan_dialog is not None and "not checked" not in page.plan_dialog.heading.text()
    assert look.title in page.plan_dialog.heading.text() and "quick-check" not in page.plan_dialog.plain_text()


def test_the_list_says_each_recipes_time_host_and_async_risk(page: RecipesPage, recipes: list[Recipe]) -> None:
    by_id = {r.id: r for r in recipes}
    marked = []
    for row in range(page.recipe_list.count()):
        item = page.recipe_list.item(row)
        recipe = by_id[item.data(ID_ROLE)]
        text = item.text()
        likely = estimate(recipe, "small", [], by_id, hosts_known=False)
        assert text.startswith(recipe.title + "\n")
        assert format_duration(likely.seconds) in text, text
        host = describe(recipe).host
        assert ("changes the server" in text) == (host == "server"), text
        assert ("changes the client only" in text) == (host == "client"), text
        assert ("\u26a0" in text) == runs_async(recipe), text
        if runs_async(recipe):
            marked.append(recipe.id)
            assert "async" in item.data(Qt.ItemDataRole.AccessibleTextRole)  # said in words, not by the sign alone
    assert "quick-check" in marked and "first-look" not in marked
    page.set_scale("normal")  # the times follow the scale
    quick = page.recipe_list.item(row_of(page, "quick-check"))
    normal = estimate(by_id["quick-check"], "normal", [], by_id, hosts_known=False)
    assert format_duration(normal.seconds) in quick.text()


def test_a_workload_name_never_breaks_inside_its_cell(page: RecipesPage, recipes: list[Recipe]) -> None:
    """Each cell's text laid out at its column's width as the table draws it (wrapped at word boundaries): every
    workload's name sits whole on one line ("seq-" at a line's end and "read" on the next misread)."""
    table = page.config_table
    column = CONFIG_HEADER.index("Workloads")
    margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    checked = 0
    for recipe in recipes:
        page.recipe_list.setCurrentRow(row_of(page, recipe.id))
        width = table.columnWidth(column) - margin
        metrics = QFontMetrics(table.font())
        for row in range(table.rowCount()):
            cell = table.item(row, column).text().replace("\n", "\u2028")  # as the item delegate lays it out
            layout = QTextLayout(cell, table.font())
            layout.setTextOption(option)
            layout.beginLayout()
            lines = []
            while (line := layout.createLine()).isValid():
                line.setLineWidth(width)
                lines.append(cell[line.textStart() : line.textStart() + line.textLength()])
            layout.endLayout()
            config = recipe.configs[row]
            for name in config.workloads or recipe.workloads:
                assert any(name in line for line in lines), (recipe.id, name, lines, width)
                assert metrics.horizontalAdvance(name) <= width
                checked += 1
    assert checked > 0
