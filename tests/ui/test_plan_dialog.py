"""The plan dialog (the plan's text in a monospace, scrollable, selectable view, copied whole by a button) and the
Recipes page's "Show the plan" that opens it for the recipe on screen."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontInfo, QGuiApplication
from PySide6.QtWidgets import QListWidgetItem, QPlainTextEdit
from pytestqt.qtbot import QtBot

from nfstune.facts.probe_output import parse_probe_output
from nfstune.recipes.model import Recipe
from nfstune.session.workflow import Facts, plan_for
from nfstune.ui.pages.recipes import ID_ROLE, RecipesPage
from nfstune.ui.plan_dialog import PlanDialog
from tests.ui import recipes_page_fixtures

# the shipped recipes and the Recipes page on them, shared with the page's other tests
recipes = recipes_page_fixtures.recipes
page = recipes_page_fixtures.page

CAPTURES = Path(__file__).parent.parent / "captures" / "probe"

LONG_ARGV = "server: sudo sh -c 'cp /etc/exports /var/lib/nfstune/journal/exports.1 && " + "x" * 300 + "'"
TEXT = "\n".join(["plan: quick-check, seed 7", LONG_ARGV, *(f"round {n}: baseline, async" for n in range(200))])


def make_dialog(qtbot: QtBot) -> PlanDialog:
    dialog = PlanDialog("The plan", TEXT)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_the_text_is_monospace_read_only_and_scrolls_without_wrapping(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    assert dialog.plain_text() == TEXT
    assert dialog.text.isReadOnly()
    assert QFontInfo(dialog.text.font()).fixedPitch()
    assert dialog.text.lineWrapMode() is QPlainTextEdit.LineWrapMode.NoWrap  # an argv stays on its line
    qtbot.waitUntil(lambda: dialog.text.horizontalScrollBar().maximum() > 0)  # laid out after the first paint
    assert dialog.text.verticalScrollBar().maximum() > 0
    flags, selectable = dialog.text.textInteractionFlags(), Qt.TextInteractionFlag
    assert flags & selectable.TextSelectableByMouse and flags & selectable.TextSelectableByKeyboard


def test_copy_all_puts_the_whole_plan_on_the_clipboard_and_close_closes(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    QGuiApplication.clipboard().setText("something else")
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == TEXT
    assert dialog.copy_button.text() == "&Copied"
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()


# --- the Recipes page's "Show the plan" --------------------------------------------------------------------------

ORDER_LINE = re.compile(r"^  round (\d+): (.+)$", re.MULTILINE)
VISIT_LINE = re.compile(r"^  round 1, ([^:]+): ", re.MULTILINE)


def lab_facts(appliance: str | None = None) -> Facts:
    nas = parse_probe_output((CAPTURES / "lab-nas-root.txt").read_text())
    client = parse_probe_output((CAPTURES / "lab-client-root.txt").read_text())
    return Facts(replace(nas, appliance=appliance), client)


def item(page: RecipesPage, recipe_id: str) -> QListWidgetItem:
    rows = [page.recipe_list.item(row) for row in range(page.recipe_list.count())]
    return next(i for i in rows if i.data(ID_ROLE) == recipe_id)


def shown_plan(page: RecipesPage, qtbot: QtBot) -> PlanDialog:
    qtbot.mouseClick(page.plan_button, Qt.MouseButton.LeftButton)
    dialog = page.plan_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


def test_show_the_plan_gives_quick_checks_interleaved_rounds_for_the_seed(
    page: RecipesPage, qtbot: QtBot, recipes: list[Recipe]
) -> None:
    assert page.selected_ids() == ["first-look"]  # offered first; quick-check is one click away
    item(page, "first-look").setCheckState(Qt.CheckState.Unchecked)
    item(page, "quick-check").setCheckState(Qt.CheckState.Checked)
    page.recipe_list.setCurrentItem(item(page, "quick-check"))
    page.plan_seed = 7
    dialog = shown_plan(page, qtbot)
    text = dialog.plain_text()
    assert "seed 7" in dialog.windowTitle() and "default facts" in dialog.windowTitle()
    assert "the hosts were not probed" in text  # not connected: the planner assumed the defaults
    labels = [c.label for c in next(r for r in recipes if r.id == "quick-check").configs]
    orders = {int(n): order.split(", ") for n, order in ORDER_LINE.findall(text)}
    assert sorted(orders) == [1, 2, 3]  # quick-check's minimum of rounds, each listed
    assert all(sorted(order) == sorted(labels) for order in orders.values())  # every configuration once a round
    assert len({tuple(order) for order in orders.values()}) > 1  # the order changes from round to round
    quick_check = next(r for r in recipes if r.id == "quick-check")
    plan = plan_for(None, None, [quick_check], "small", seed=7)
    assert orders == {n: plan.recipes[0].order(n) for n in (1, 2, 3)}  # the planner's order for this seed
    assert VISIT_LINE.findall(text) == orders[1]  # and round 1's commands follow in that order
    page.plan_seed = 8
    assert ORDER_LINE.findall(shown_plan(page, qtbot).plain_text()) != ORDER_LINE.findall(text)


def test_after_probing_the_plan_uses_the_probed_facts(page: RecipesPage, qtbot: QtBot) -> None:
    page.recipe_list.setCurrentItem(item(page, "quick-check"))
    page.plan_context = lambda: (None, lab_facts("OpenMediaVault"))
    dialog = shown_plan(page, qtbot)
    assert "the probed hosts" in dialog.windowTitle()
    text = dialog.plain_text()
    assert "the hosts were not probed" not in text
    skipped = [line for line in text.splitlines() if line.startswith("Skipped: ")]
    assert skipped and all("OpenMediaVault" in line for line in skipped)  # the appliance's export is not changed


def test_the_run_follows_the_order_that_was_shown(page: RecipesPage, qtbot: QtBot) -> None:
    assert page.run_seed() is None  # nothing shown: the run draws its own seed
    title = shown_plan(page, qtbot).windowTitle()
    found = re.search(r"seed (\d+)", title)
    assert found is not None
    assert page.run_seed() == int(found.group(1))
    item(page, "block-size").setCheckState(Qt.CheckState.Checked)  # first-look's order holds beside another
    assert page.run_seed() == int(found.group(1))
    item(page, "first-look").setCheckState(Qt.CheckState.Unchecked)  # the recipe shown is left out
    assert page.run_seed() is None
    item(page, "first-look").setCheckState(Qt.CheckState.Checked)
    page.set_scale("normal")  # another scale: other sizes and rounds
    assert page.run_seed() is None


def test_without_a_checked_recipe_the_one_on_screen_can_still_be_planned(page: RecipesPage) -> None:
    item(page, "first-look").setCheckState(Qt.CheckState.Unchecked)
    assert page.selected_ids() == []
    assert page.plan_button.isEnabled()
    dialog = page.show_plan()
    assert dialog is not None and "not checked" in dialog.heading.text()


def test_the_plan_of_connected_hosts_says_first_where_each_one_is(
    page: RecipesPage, qtbot: QtBot, tmp_path: Path
) -> None:
    """As `nfstune run --dry-run`: each host's role, login, jump host and the SSH config file that named it, above
    the plan. The hosts are resolved by the real `ssh -G` (not connected: a plan needs no login)."""
    from nfstune.remote import Host, resolve
    from nfstune.session.workflow import Pair

    included = tmp_path / "nas.conf"
    included.write_text(
        "Host mynas\n  HostName 127.0.0.1\n  Port 2222\n  User admin\n  ProxyJump bastion\n"
        "Host bastion\n  HostName 127.0.0.2\n  User jumper\n"
    )
    config = tmp_path / "config"
    config.write_text(f"Include {included}\nHost *\n  ServerAliveInterval 15\n")
    server = Host(resolve("mynas", ssh_config=config), known_hosts=tmp_path / "kh")
    client = Host(resolve("admin@127.0.0.1:2223", ssh_config=config), known_hosts=tmp_path / "kh")
    page.plan_context = lambda: (Pair(server, client, "127.0.0.1", "/export"), None)
    text = shown_plan(page, qtbot).plain_text()
    hosts, plan = text.split("\n\n", 1)
    assert hosts.splitlines() == [
        "Hosts, as nfstune reaches them:",
        "  server    mynas: admin@127.0.0.1:2222",
        "            via the jump host bastion (jumper@127.0.0.2:22)",
        f"            from {included} line 1 (Host mynas)",
        "  client    admin@127.0.0.1:2223",
        "            no ssh config entry: ssh's defaults",
    ]
    assert plan.startswith("Plan: ")
