"""The lab window shows each host's live state, polled off the GUI thread."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from nfstune.lab import LabConfig
from nfstune.ui.lab_window import COLUMNS, LabWindow


def cells(window: LabWindow, row: int) -> dict[str, str]:
    table = window.table
    return {COLUMNS[c]: (table.item(row, c).text() if table.item(row, c) else "") for c in range(len(COLUMNS))}


def test_shows_a_lab_that_is_down(qtbot: QtBot, tmp_path: Path) -> None:
    window = LabWindow(LabConfig(state_dir=tmp_path / "lab"))
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: cells(window, 1)["VM process"] != "", timeout=10_000)
    assert [cells(window, r)["Host"] for r in (0, 1)] == ["nas", "client"]
    assert [cells(window, r)["VM process"] for r in (0, 1)] == ["down", "down"]
    assert "The lab is down" in window.details.text()
    window.close()


def test_a_lab_of_several_clients_has_a_row_for_each(qtbot: QtBot, tmp_path: Path) -> None:
    window = LabWindow(LabConfig(state_dir=tmp_path / "lab", clients=3))
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.table.rowCount() == 4 and cells(window, 3)["VM process"] != "", timeout=10_000)
    assert [cells(window, r)["Host"] for r in range(4)] == ["nas", "client", "client2", "client3"]
    assert {cells(window, r)["VM process"] for r in range(4)} == {"down"}
    window.close()


@pytest.mark.lab
def test_shows_the_running_lab(qtbot: QtBot, lab: LabConfig) -> None:
    window = LabWindow(lab)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: cells(window, 0)["SSH"] == "ok", timeout=30_000)
    nas, client = cells(window, 0), cells(window, 1)
    assert nas["VM process"].startswith("running (pid ") and client["SSH"] == "ok"
    assert (nas["nfs-server"], nas["Disk"], nas["Link"], client["Link"]) == ("active", "hdd", "50mbit", "50mbit")
    assert nas["Address"] == f"127.0.0.1:{lab.nas_port}"
    assert "/export 10.99.0.0/24(" in window.details.text()
    window.close()
