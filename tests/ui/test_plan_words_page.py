"""The desktop's plan in words (issue 42): "Show the plan" for every shipped recipe at both scales with one, two and
three clients connected reads as the dry run does (tests/unit/test_plan_words.py); many-clients with one client is
not offered to run, and says what it needs; the times of a plan say what they rest on."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from nfstune.facts.probe_output import parse_probe_output
from nfstune.recipes.estimate import PastRun
from nfstune.recipes.model import Recipe
from nfstune.remote import Host
from nfstune.session.workflow import Facts, Pair
from nfstune.ui.controller import ConnState, HostSpec
from nfstune.ui.main_window import STEPS, MainWindow
from nfstune.ui.pages.recipes import RecipesPage
from tests.ui import recipes_page_fixtures
from tests.ui.test_first_window import connect_and_probe, settings, window
from tests.ui.test_plan_dialog import item
from tests.unit.test_plan_words import CLIENTS, SCALES, wording_problems

recipes = recipes_page_fixtures.recipes
page = recipes_page_fixtures.page
__all__ = ["settings", "window"]  # the main window's fixtures, shared with the first window's tests

CAPTURES = Path(__file__).parent.parent / "captures" / "probe"


def plan_lines(text: str) -> list[str]:
    """The plan's lines from its first ("Plan: ..."), below the hosts as resolved that lead a plan on real hosts."""
    lines = text.splitlines()
    return lines[next(n for n, line in enumerate(lines) if line.startswith("Plan:")) :]


def pair_of(tmp_path: Path, clients: int) -> tuple[Pair, Facts]:
    """A NAS and `clients` clients, never contacted, with the lab's probed facts."""

    def host(label: str) -> Host:
        return Host("127.0.0.1", port=9, known_hosts=tmp_path / "kh", label=label)

    nas = parse_probe_output((CAPTURES / "lab-nas-root.txt").read_text())
    client = parse_probe_output((CAPTURES / "lab-client-root.txt").read_text())
    laptops = [host("laptop"), *(host(f"pc{n}") for n in range(2, clients + 1))]
    pair = Pair(host("nas"), laptops[0], "nas", "/export", laptops[1:])
    return pair, Facts(replace(nas, appliance=None), client, (client,) * (clients - 1))


def test_every_shipped_plan_reads_as_words(
    page: RecipesPage, recipes: list[Recipe], qtbot: QtBot, tmp_path: Path
) -> None:
    found = []
    for clients in CLIENTS:
        connected = pair_of(tmp_path, clients)
        page.plan_context = lambda connected=connected: connected  # type: ignore[misc]
        for scale in SCALES:
            page.set_scale(scale)
            for recipe in recipes:
                page.recipe_list.setCurrentItem(item(page, recipe.id))
                dialog = page.show_plan()
                assert dialog is not None
                said = "\n".join([dialog.note.text(), dialog.plain_text()])
                found += [f"{recipe.id}, {scale}, {clients}: {p}" for p in wording_problems(said)]
                assert "practice lab's pace" not in said or scale == "small"
                dialog.close()
    assert found == []


def test_many_clients_with_one_client_says_what_it_needs_in_its_plan(
    page: RecipesPage, qtbot: QtBot, tmp_path: Path
) -> None:
    one = pair_of(tmp_path, 1)
    page.plan_context = lambda: one
    page.recipe_list.setCurrentItem(item(page, "many-clients"))
    page.show_hosts("nas \u2192 laptop", probed=True, blocker=None)
    assert page.needs_label.isVisibleTo(page)
    assert item(page, "many-clients").text().splitlines()[1].startswith("needs 2 clients \u00b7 ")  # not a time
    assert "connect at least 2 clients" in page.needs_label.text() and "(laptop)" in page.needs_label.text()
    dialog = page.show_plan()
    assert dialog is not None and dialog.note.isVisibleTo(dialog) and "at least 2 clients" in dialog.note.text()
    text = dialog.plain_text()
    assert plan_lines(text)[0].endswith("; nothing to run: every recipe is skipped (below).")  # no "about 0 s"
    # left out whole, with one reason, rather than run as one client against one client
    assert "many-clients: 1 client, sync" not in text and "\nmany-clients:" not in text
    (skipped,) = [line for line in text.splitlines() if line.startswith("Skipped: many-clients")]
    assert "compares the NAS loaded from 1, 2, 3 and 4 clients at once" in skipped and "has 1" in skipped
    dialog.close()
    two = pair_of(tmp_path, 2)
    page.plan_context = lambda: two
    page.show_hosts("nas \u2192 laptop", probed=True, blocker=None)  # a further client connected
    assert not page.needs_label.isVisibleTo(page)
    assert item(page, "many-clients").text().splitlines()[1].startswith("about ")
    page.recipe_list.setCurrentItem(item(page, "first-look"))
    assert not page.needs_label.isVisibleTo(page)


def test_start_run_is_not_offered_for_many_clients_until_a_second_client_is_connected(window: MainWindow) -> None:
    window.steps.setCurrentRow(STEPS.index("Recipes"))
    page = window.recipes_page
    connect_and_probe(window)
    assert window.next_button.isEnabled()  # first-look, checked from the start, runs on one client
    item(page, "many-clients").setCheckState(Qt.CheckState.Checked)
    start = window.next_button
    assert not start.isEnabled()
    said = window.nav_note.text()
    assert said == start.toolTip()
    assert "\u201cMany clients at once\u201d compares the NAS loaded from 1, 2, 3 and 4 clients at once" in said
    assert "connect at least 2 clients" in said and "one is connected now (root@client.lab)" in said
    assert "Or uncheck it." in said
    item(page, "many-clients").setCheckState(Qt.CheckState.Unchecked)  # the others run
    assert start.isEnabled() and window.nav_note.text() == ""
    item(page, "many-clients").setCheckState(Qt.CheckState.Checked)
    c = window.controller  # a second client connects (never contacted)
    c.specs["client2"] = HostSpec("pc2")
    target = SimpleNamespace(user="root", hostname="pc2.lab", port=22, warnings=())
    c.hosts["client2"] = SimpleNamespace(label="root@pc2.lab", target=target, close=lambda: None)  # type: ignore[assignment]
    c._set_state("client2", ConnState.CONNECTED, "root@pc2.lab")
    window._update_nav()
    assert start.isEnabled() and window.nav_note.text() == ""


@pytest.mark.parametrize("scale", SCALES)
def test_a_plan_for_a_real_nas_never_says_its_times_are_the_labs(page: RecipesPage, tmp_path: Path, scale: str) -> None:
    connected = pair_of(tmp_path, 1)
    page.plan_context = lambda: connected
    page.set_scale(scale)
    page.recipe_list.setCurrentItem(item(page, "quick-check"))
    dialog = page.show_plan()
    assert dialog is not None
    head = "\n".join(plan_lines(dialog.plain_text())[:2])
    assert "the plan's own pace (the practice lab's)" not in head
    assert ("measured on the practice lab" in head) == (scale == "small"), head
    assert ("gigabit NAS on a spinning disk" in head) == (scale == "normal"), head
    assert "(a first run measures other hosts' pace)" in head
    dialog.close()


def test_a_plan_on_hosts_that_ran_before_goes_at_their_own_pace(page: RecipesPage, tmp_path: Path) -> None:
    connected = pair_of(tmp_path, 1)
    page.plan_context = lambda: connected
    page.past_runs = lambda scale: [PastRun("quick-check", 1200.0, 3, True)]  # its last run here: 20 min
    page.show_hosts("nas \u2192 laptop", probed=True, blocker=None)  # reads the past runs again
    page.recipe_list.setCurrentItem(item(page, "quick-check"))
    dialog = page.show_plan()
    assert dialog is not None
    head, times = plan_lines(dialog.plain_text())[:2]
    assert times.startswith("Times: these hosts' own pace in their earlier runs (") and "lab" not in times, times
    assert "about 20 min for the minimum rounds" in head, head  # its 3 rounds took 20 min here
    dialog.close()
