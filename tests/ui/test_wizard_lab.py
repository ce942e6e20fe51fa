"""The whole desktop flow against the practice lab, driven through the real widgets: connect -> preflight ->
quick-check -> results -> recommendation; and a cancel in the middle of a run that leaves the lab as it was."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QTableWidget
from pytestqt.qtbot import QtBot

from nfstune.lab import LabConfig, host
from nfstune.ui.controller import ConnState
from nfstune.ui.main_window import MainWindow
from nfstune.ui.pages.results_details import VERDICT_COLUMN

pytestmark = pytest.mark.lab

SNAPSHOT = "sha256sum /etc/exports; exportfs -s; ls -A /export; ls -A /etc/exports.d 2>&1; true"
CLIENT_SNAPSHOT = "grep -c ' /mnt/nfstune' /proc/mounts; ls -A /mnt; true"
RUN_LIMIT_MS = 25 * 60 * 1000
# The admin's own quick-check (a user recipe replaces the shipped one of its id): the shipped one runs until its
# comparisons settle or its 13-minute budget is spent; this one keeps the flow to 4 rounds, no warm-up, of the two
# comparisons the test reads (async on small files, no_wdelay on sync-4k): 4 workload runs a round
QUICK_CHECK = """
id = "quick-check"
title = "Quick check"
summary = "sync vs async and no_wdelay, shortened for the desktop's lab test"
why = "A first overview of the four classic knobs, in fewer rounds."
changes_host = "server"
workloads = ["small-files", "sync-4k"]
baseline = "baseline"
warning = "While this recipe runs the async configuration, a server crash can lose data the clients were told is safe."

[rounds]
min = 4
max = 4
warmup = 0

[[configs]]
label = "baseline"
export = { set = ["sync"], unset = ["no_wdelay"] }

[[configs]]
label = "async"
export = { set = ["async"] }
workloads = ["small-files"]
warning = "async acknowledges writes before they reach stable storage (exports(5))."

[[configs]]
label = "no_wdelay"
export = { set = ["sync", "no_wdelay"] }
workloads = ["sync-4k"]
never_recommend = true
expect = "same"
"""


def snapshot(lab: LabConfig) -> tuple[str, str]:
    with host(lab, "nas") as nas, host(lab, "client") as client:
        return nas.run(SNAPSHOT, sudo=True).stdout, client.run(CLIENT_SNAPSHOT).stdout


def cells(table: QTableWidget) -> list[list[str]]:
    return [
        [table.item(r, c).text() if table.item(r, c) else "" for c in range(table.columnCount())]
        for r in range(table.rowCount())
    ]


def verdict_kinds(table: QTableWidget) -> dict[str, str]:
    """Configuration -> the first line of its verdict cell (the kind, in words)."""
    header = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    column = header.index(VERDICT_COLUMN)
    return {row[0]: row[column].splitlines()[0] if row[column] else "" for row in cells(table)}


@pytest.fixture
def window(qtbot: QtBot, lab: LabConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MainWindow]:
    # the user's recipe folder is the real mechanism (paths.data_dir() follows XDG_DATA_HOME)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    own = tmp_path / "data" / "nfstune" / "recipes"
    own.mkdir(parents=True)
    (own / "quick-check.toml").write_text(QUICK_CHECK)
    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    w = MainWindow(store_path=tmp_path / "nfstune.sqlite3", scale="small", settings=settings, lab_config=lab)
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    yield w
    qtbot.waitUntil(w.controller.shutdown, timeout=180_000)  # the jobs end (a run undoes its changes first)


def connect_and_pick(qtbot: QtBot, w: MainWindow) -> None:
    qtbot.mouseClick(w.connect_page.lab_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(w.connect_page.is_complete, timeout=120_000)
    assert w.controller.states == {"server": ConnState.CONNECTED, "client": ConnState.CONNECTED}
    assert "connected: lab nas" in w.connect_page.panels["server"].state.text()
    assert w.next_button.isEnabled()
    qtbot.mouseClick(w.next_button, Qt.MouseButton.LeftButton)  # -> Preflight, which probes both hosts
    assert w.stack.currentWidget() is w.preflight_page
    qtbot.waitUntil(lambda: w.controller.probe is not None, timeout=120_000)
    cards = (w.preflight_page.server_card, w.preflight_page.client_card)
    assert all("kernel 6." in card.summary.accessibleName() for card in cards)  # its text keeps words whole
    assert w.preflight_page.server_card.rows["Max block size"].text() == "128 KiB"
    assert w.preflight_page.share == "/export" and not w.preflight_page.blocking()
    qtbot.mouseClick(w.next_button, Qt.MouseButton.LeftButton)  # -> Recipes
    assert w.stack.currentWidget() is w.recipes_page
    assert w.recipes_page.selected_ids() == ["first-look"]  # offered first
    for row in range(w.recipes_page.recipe_list.count()):  # quick-check is one click away: this test runs it
        item = w.recipes_page.recipe_list.item(row)
        wanted = w.recipes_page._id_at(row) == "quick-check"
        item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)
    assert w.recipes_page.selected_ids() == ["quick-check"]
    assert w.next_button.text() == "&Start run >"


def test_connect_quick_check_recommendation(qtbot: QtBot, window: MainWindow, lab: LabConfig) -> None:
    w = window
    before = snapshot(lab)
    connect_and_pick(qtbot, w)
    qtbot.mouseClick(w.next_button, Qt.MouseButton.LeftButton)  # Start run
    assert w.stack.currentWidget() is w.run_page and w.run_page.running
    assert not w.back_button.isEnabled()  # no leaving a run half-way but by Cancel
    # the live plot fills from the samplers, the ceilings from the baselines
    qtbot.waitUntil(lambda: len(w.run_page.plot.buffers["client_write"]) > 3, timeout=300_000)
    qtbot.waitUntil(lambda: w.run_page.progress.value() > 0, timeout=300_000)
    qtbot.waitUntil(lambda: not w.run_page.running, timeout=RUN_LIMIT_MS)
    assert w.controller.outcome is not None and w.controller.outcome.status == "completed", w.run_page.current.text()
    assert w.run_page.plot.ceilings, "no network or disk ceiling drawn"
    assert "network (iperf3" in w.run_page.log.toPlainText()
    # Results: async faster than sync on small files, with its CI; no_wdelay as measured, never an effect
    assert w.stack.currentWidget() is w.results_page
    verdict = w.results_page.verdict_labels["quick-check"].text()
    assert "async is" in verdict and "faster" in verdict and "95 % CI" in verdict, verdict
    kinds = verdict_kinds(w.results_page.tables[("quick-check", "small-files")])
    assert kinds["async"] == "faster", kinds
    # the answer in three lines and what limits each workload stand above the verdicts
    answer = w.results_page.answer_label.text()
    assert w.results_page.answer_label.isVisible() and "Change: " in answer and "Risk: " in answer, answer
    assert "async" not in answer.split("<br>")[0] or "keep sync" in answer  # async is never the change itself
    # the verdict plot leads: a row for async on small-files, drawn as the table's verdict says
    plotted = {(r.workload, r.label): r.kind for r in w.results_page.verdict_plot.rows}
    assert w.results_page.verdict_plot.isVisible() and plotted[("small-files", "async")] == "faster", plotted
    # the sentences are behind Details, there when opened
    assert not w.results_page.diagnosis_label.isVisible()
    w.results_page.details_button.setChecked(True)
    assert w.results_page.diagnosis_label.isVisible() and "sync-4k" in w.results_page.diagnosis_label.text()
    # the kernel ignores no_wdelay on v3/v4: whatever the lab's noise, it is never shown as an effect
    kinds = verdict_kinds(w.results_page.tables[("quick-check", "sync-4k")])
    assert kinds["no_wdelay"] in ("no difference that matters", "not settled", "unreliable"), kinds
    # Recommendation: sync, never async in the line; async only behind the checkbox with the exports(5) text
    qtbot.mouseClick(w.next_button, Qt.MouseButton.LeftButton)
    assert w.stack.currentWidget() is w.recommendation_page
    page = w.recommendation_page
    assert "/export" in page.exports_line.text() and "async" not in page.exports_line.text()
    assert "nas:/export" in page.fstab_line.text()
    assert not page.async_box.isVisible()
    page.show_async_check.setChecked(True)
    assert page.async_box.isVisible()
    assert "violate the NFS protocol" in page.async_warning.text()
    # everything is stored, and the lab is as it was
    assert w.results_store.session(w.controller.outcome.session_id)["status"] == "completed"
    assert snapshot(lab) == before


def test_cancel_during_a_run_restores_the_lab(qtbot: QtBot, window: MainWindow, lab: LabConfig) -> None:
    w = window
    before = snapshot(lab)
    connect_and_pick(qtbot, w)
    qtbot.mouseClick(w.next_button, Qt.MouseButton.LeftButton)  # Start run
    # wait until the export has been changed and a workload has run: the first repeat of round 1, whichever of the
    # configurations the round starts with (no warm-up)
    first = re.compile(r"quick-check (baseline|async|no_wdelay) (small-files|sync-4k) round 1: ")
    qtbot.waitUntil(lambda: first.search(w.run_page.log.toPlainText()) is not None, timeout=300_000)
    with host(lab, "nas") as nas:
        assert "sync" in nas.run("exportfs -s", sudo=True).stdout
    qtbot.mouseClick(w.run_page.cancel_button, Qt.MouseButton.LeftButton)
    assert "Cancelling" in w.run_page.current.text()
    qtbot.waitUntil(lambda: not w.run_page.running, timeout=180_000)
    assert w.controller.outcome is not None and w.controller.outcome.status == "cancelled"
    assert w.run_page.current.text().startswith("Cancelled: every change was undone")
    assert snapshot(lab) == before
