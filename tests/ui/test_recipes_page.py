"""The recipes page with the shipped recipes: the checkable list, the details of the current recipe, estimates."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from nfstune import paths
from nfstune.recipes.estimate import PastRun, at_most_seconds, plan_seconds
from nfstune.recipes.info import format_duration
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.ui.main_window import STEPS, MainWindow
from nfstune.ui.pages.recipes import CONFIG_HEADER, CONFIG_WORKLOADS_MIN_WIDTH, RecipesPage

ORDER = [
    "first-look",
    "quick-check",
    "sync-vs-async",
    "block-size",
    "nfs-versions",
    "nconnect",
    "readahead",
    "no-wdelay",
    "many-clients",
    "filesystems",
    "transport",
]


@pytest.fixture(scope="module")
def recipes() -> list[Recipe]:
    loaded, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return sorted(loaded, key=lambda r: ORDER.index(r.id))


@pytest.fixture
def page(qtbot: QtBot, recipes: list[Recipe]) -> RecipesPage:
    widget = RecipesPage(recipes, "small")
    qtbot.addWidget(widget)
    widget.resize(1366, 768)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def select(page: RecipesPage, recipe_id: str) -> None:
    page.recipe_list.setCurrentRow(ORDER.index(recipe_id))


def table_column(page: RecipesPage, name: str) -> list[str]:
    table = page.config_table
    return [table.item(row, CONFIG_HEADER.index(name)).text() for row in range(table.rowCount())]


def test_the_first_look_is_offered_first_and_quick_check_is_one_click_away(
    page: RecipesPage, recipes: list[Recipe]
) -> None:
    assert page.selected_ids() == ["first-look"] and page._id_at(0) == "first-look"
    first = page.current_recipe()
    assert first is not None and first.id == "first-look" and page.title_label.text() == "First look"
    assert "Changes the server" not in page.changes_label.text() and not page.warning_label.isVisible()
    look = format_duration(plan_seconds(first, "small", first.rounds.min))
    assert f"Checked: 1 recipe, {look}" in page.total_label.text()
    select(page, "quick-check")
    current = page.current_recipe()
    assert current is not None and current.id == "quick-check"
    assert page.title_label.text() == "Quick check"
    assert "Why:" in page.why_label.text() and "four classic knobs" in page.why_label.text()
    assert "export async" in page.varies_label.text()
    changes = page.changes_label.text()
    assert "Changes the server" in changes and "restored at the end, on cancel, on failure" in changes
    assert page.warning_label.isVisible() and "exports(5) on async" in page.warning_label.text()
    assert table_column(page, "Configuration") == ["baseline", "async", "no_wdelay", "rsize=128K", "vers=3"]
    assert table_column(page, "Server\n(export, nfsd)")[:3] == ["sync · remove no_wdelay", "async", "sync, no_wdelay"]
    assert table_column(page, "Mount options\n(client)")[3] == "vers=4.2, rsize=131072, wsize=131072"  # wraps
    assert table_column(page, "Workloads")[2] == "sync-4k"
    quick = recipes[ORDER.index("quick-check")]
    likely = format_duration(plan_seconds(quick, "small", quick.rounds.min))  # no past: the plan
    at_most = format_duration(at_most_seconds(quick, "small")).removeprefix("about ")
    assert f"{likely}, at most {at_most}" in page.estimate_label.text()
    # the table shows every row itself; the details pane scrolls instead
    table = page.config_table
    assert table.height() >= table.horizontalHeader().height() + sum(table.rowHeight(r) for r in range(5))


def test_client_side_recipe_has_no_warning_and_says_the_server_is_untouched(page: RecipesPage) -> None:
    select(page, "readahead")
    assert not page.warning_label.isVisible()
    assert "Changes the client only" in page.changes_label.text()
    assert "read_ahead_kb of nfstune" in page.changes_label.text()
    assert table_column(page, "Mount options\n(client)") == ["readahead 128 KiB", "readahead 1 MiB", "readahead 15 MiB"]
    assert table_column(page, "Server\n(export, nfsd)") == ["unchanged"] * 3
    select(page, "filesystems")
    assert table_column(page, "Server\n(export, nfsd)") == [
        "scratch ext4 exported alone (sync)",
        "scratch xfs exported alone (sync)",
        "scratch btrfs exported alone (sync)",
    ]
    select(page, "many-clients")
    assert table_column(page, "Server\n(export, nfsd)")[-1] == "sync · 64 nfsd threads"
    select(page, "nfs-versions")
    assert table_column(page, "Configuration")[1] == "vers=4.0\nonly with a server that offers NFS 4.0"
    assert table_column(page, "Configuration")[3] == "vers=4.2 (baseline)"


def test_space_checks_the_current_recipe_and_signals(page: RecipesPage, qtbot: QtBot) -> None:
    select(page, "block-size")
    page.recipe_list.setFocus()
    with qtbot.waitSignal(page.selection_changed):
        qtbot.keyClick(page.recipe_list, Qt.Key.Key_Space)
    assert page.selected_ids() == ["first-look", "block-size"]
    assert "Checked: 2 recipes" in page.total_label.text()
    with qtbot.waitSignal(page.selection_changed):
        qtbot.keyClick(page.recipe_list, Qt.Key.Key_Space)
    assert page.selected_ids() == ["first-look"]
    select(page, "first-look")
    qtbot.keyClick(page.recipe_list, Qt.Key.Key_Space)
    assert page.selected_ids() == []
    assert "No recipe checked" in page.total_label.text()


def test_set_scale_updates_the_estimates(page: RecipesPage, recipes: list[Recipe]) -> None:
    small_total, small_details = page.total_label.text(), page.estimate_label.text()
    page.set_scale("normal")
    normal = format_duration(plan_seconds(recipes[0], "normal", recipes[0].rounds.min))  # first-look, checked
    assert normal in page.estimate_label.text() and normal in page.total_label.text()
    assert "scale normal" in page.total_label.text()
    assert (page.total_label.text(), page.estimate_label.text()) != (small_total, small_details)


def test_at_1024_every_configuration_column_shows_whole(qtbot: QtBot, tmp_path: Path) -> None:
    """The options and the workloads wrap, so that at 1024 px the table fits its pane: no column cut, no header
    cut, nothing to scroll sideways for."""
    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_path=tmp_path / "nfstune.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(window)
    window.stack.setCurrentIndex(STEPS.index("Recipes"))
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    table = window.recipes_page.config_table
    header = table.horizontalHeader()
    qtbot.waitUntil(lambda: header.length() > 0)
    for column, name in enumerate(CONFIG_HEADER):
        if column == 0:
            assert header.sectionSize(column) >= table.sizeHintForColumn(column), name  # labels whole
        else:
            assert header.sectionSize(column) >= CONFIG_WORKLOADS_MIN_WIDTH, name  # wraps, never squeezed away
        assert header.sectionSize(column) >= header.sectionSizeHint(column), name  # the header's text whole
    assert header.length() <= table.viewport().width()
    assert not table.horizontalScrollBar().isVisible()
    for row in range(table.rowCount()):
        assert table.rowHeight(row) >= table.sizeHintForRow(row)  # every wrapped line shows


def test_the_estimate_follows_what_these_hosts_took_before(qtbot: QtBot) -> None:
    recipes, _ = load_recipes([paths.recipes_dir()])
    page = RecipesPage(recipes, "small")
    qtbot.addWidget(page)
    page.show_hosts("nas \u2192 client", probed=True, blocker=None)  # as the main window says once connected
    rows = {page._id_at(i): i for i in range(len(recipes))}
    page.recipe_list.item(rows["first-look"]).setCheckState(Qt.CheckState.Unchecked)
    page.recipe_list.item(rows["quick-check"]).setCheckState(Qt.CheckState.Checked)
    page.recipe_list.setCurrentRow(rows["quick-check"])
    assert "no run on these hosts yet" in page.estimate_label.text()
    before_total = page.total_label.text()
    quick = next(r for r in recipes if r.id == "quick-check")
    took = 1.5 * plan_seconds(quick, "small", 4)  # these hosts half as slow again as the plan, 4 rounds
    runs = [PastRun("quick-check", took, 4, True), PastRun("readahead", 60.0, 3, True)]
    page.past_runs = lambda scale: runs if scale == "small" else []
    page.refresh()
    # at that pace the budget ends it before the last round the plan expects
    at_most = at_most_seconds(quick, "small", 1.5)
    assert at_most == quick.rounds.budget_s("small")
    shown = f"{format_duration(took)}, at most {format_duration(at_most).removeprefix('about ')}"
    assert shown in page.estimate_label.text()
    assert "From its last run on these hosts (4 rounds)." in page.estimate_label.text()
    assert "up to 7 rounds" in page.estimate_label.text()  # what the plan holds in the budget, with the noise
    assert format_duration(took) in page.total_label.text() and page.total_label.text() != before_total
    page.set_scale("normal")  # no run at this scale
    assert "no run on these hosts yet" in page.estimate_label.text()


def test_transport_says_the_server_restarts_for_rdma_and_that_the_export_stays(page: RecipesPage) -> None:
    select(page, "transport")
    changes = page.changes_label.text()
    assert "nfsd listens for RDMA (port 20049)" in changes and "the NFS server is restarted at the end" in changes
    assert "/etc/exports" not in changes and "The export and its options are not touched" in changes
    assert page.warning_label.isVisible() and "restarts the NFS" in page.warning_label.text()
    assert table_column(page, "Server\n(export, nfsd)") == [
        "unchanged",
        "unchanged",
        "nfsd listens for RDMA (port 20049)",
    ]
    assert table_column(page, "Configuration")[2] == "rdma\nonly with an active RDMA device on both hosts"
