"""The first window a new user sees (offscreen; tests/ui/test_first_window_xvfb.py looks at it in a real X window):
sized from the screen, the focus on the server's host, every button named, and the recipes browsable before any
host is connected, with the hosts' own facts once they are."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QMargins, QRect, QSettings, QSize, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication
from pytestqt.qtbot import QtBot

from nfstune.facts.probe_output import parse_probe_output
from nfstune.remote import SshTarget
from nfstune.session.workflow import Facts
from nfstune.ui.controller import ConnState, HostSpec
from nfstune.ui.main_window import STEPS, MainWindow
from nfstune.ui.pages.recipes import CONFIG_HEADER, RowsTable
from nfstune.ui.screen_fit import FRAME_GUESS, centred, fitted

CAPTURES = Path(__file__).parent.parent / "captures" / "probe"
RECIPES = STEPS.index("Recipes")


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, settings: QSettings) -> MainWindow:
    w = MainWindow(store_path=tmp_path / "nfstune.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def unnamed(buttons: list[QAbstractButton]) -> list[str]:
    return [
        f"{type(b).__name__} {b.objectName()!r} in {type(b.parent()).__name__}"
        for b in buttons
        if not b.text() and not b.accessibleName()
    ]


def test_every_button_has_a_text_or_an_accessible_name(window: MainWindow) -> None:
    """Qt's own buttons included (a table's corner, the menu bar's overflow): a screen reader says what each does."""
    for index in range(len(STEPS)):
        window.stack.setCurrentIndex(index)  # each page shown once: whatever a page makes on show is there
    assert unnamed(window.findChildren(QAbstractButton)) == []
    later = RowsTable(CONFIG_HEADER, stretch=CONFIG_HEADER[1:])  # as the Results page makes them, after the window
    assert unnamed(later.findChildren(QAbstractButton)) == []
    later.deleteLater()


def test_the_focus_starts_on_the_servers_host(window: MainWindow, qtbot: QtBot) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    assert QApplication.focusWidget() is window.connect_page.panels["server"].target


def test_the_window_fits_the_screen_it_opens_on(window: MainWindow) -> None:
    available = window.screen().availableGeometry()
    assert available.contains(window.geometry().marginsAdded(FRAME_GUESS))


def test_a_saved_geometry_larger_than_the_screen_or_off_it_is_brought_inside(
    qtbot: QtBot, tmp_path: Path, settings: QSettings
) -> None:
    first = MainWindow(store_path=tmp_path / "first.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(first)
    available = first.screen().availableGeometry()
    first.setGeometry(QRect(available.right() + 500, -300, available.width() * 3, available.height() * 2))
    settings.setValue("window/geometry", first.saveGeometry())  # as its close would, on a screen since gone
    second = MainWindow(store_path=tmp_path / "second.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(second)
    assert available.contains(second.geometry().marginsAdded(FRAME_GUESS)), second.geometry()


@pytest.mark.parametrize(
    ("wanted", "fits"),
    [
        (QRect(100, 100, 800, 500), QRect(100, 100, 800, 500)),  # fits already: kept
        (QRect(0, 0, 1280, 740), QRect(4, 32, 1016, 664)),  # too large: shrunk, its title bar on the screen
        (QRect(900, 650, 400, 300), QRect(620, 396, 400, 300)),  # past the bottom right: moved in
        (QRect(-2000, -50, 400, 300), QRect(4, 32, 400, 300)),  # on a screen since unplugged: moved in
    ],
)
def test_fitted_keeps_the_frame_inside_the_available_area(wanted: QRect, fits: QRect) -> None:
    available = QRect(0, 0, 1024, 700)
    assert fitted(wanted, available, FRAME_GUESS) == fits
    assert available.contains(fits.marginsAdded(FRAME_GUESS))


def test_centred_is_the_wished_size_in_the_middle_or_what_a_small_screen_holds() -> None:
    frame = QMargins(0, 0, 0, 0)
    assert centred(QSize(1280, 740), QRect(0, 0, 1920, 1080), frame) == QRect(320, 170, 1280, 740)
    assert centred(QSize(1280, 740), QRect(0, 24, 1024, 676), frame) == QRect(0, 24, 1024, 676)  # a top panel


# --- the recipes before connecting -----------------------------------------------------------------------------


def lab_facts() -> Facts:
    nas = parse_probe_output((CAPTURES / "lab-nas-root.txt").read_text())
    client = parse_probe_output((CAPTURES / "lab-client-root.txt").read_text())
    return Facts(replace(nas, appliance=None), client)


def connect_and_probe(window: MainWindow) -> None:
    """Both hosts connected (a NAS without login, a client that is never contacted) and probed."""
    c = window.controller
    c.connect_host("server", HostSpec("nas", no_login=True), server_address="nas")
    target = SshTarget("client.lab", "client.lab", 22, "root")  # as resolved: the plan says it first
    c.hosts["client"] = SimpleNamespace(label="root@client.lab", target=target, close=lambda: None)  # type: ignore[assignment]
    c._set_state("client", ConnState.CONNECTED, "root@client.lab")
    c.share = "/export"
    assert window.connect_page.is_complete()
    c.probe = SimpleNamespace(facts=lab_facts())  # type: ignore[assignment]
    window._update_nav()


def test_the_recipes_and_their_plans_can_be_read_before_connecting(window: MainWindow, qtbot: QtBot) -> None:
    assert window.steps.item(RECIPES).flags() & Qt.ItemFlag.ItemIsEnabled  # picked from the step list
    window.steps.setCurrentRow(RECIPES)
    page = window.recipes_page
    assert window.stack.currentWidget() is page
    assert "Hosts not connected yet" in page.hosts_label.text()
    assert "no hosts connected yet" in page.estimate_label.text()  # the plan's own time, said so
    start = window.next_button
    assert start.text() == "&Start run >" and not start.isEnabled()
    assert "Connect both hosts first" in start.toolTip() and window.nav_note.text() == start.toolTip()
    dialog = page.show_plan()
    assert dialog is not None and "placeholder hosts" in dialog.windowTitle()
    assert (
        dialog.note.isVisibleTo(dialog) and "\u201cserver\u201d and \u201c/share\u201d stand for" in dialog.note.text()
    )
    assert "server:/share" in dialog.plain_text()  # the placeholders the note names
    dialog.close()
    assert window.back_button.isEnabled()
    qtbot.mouseClick(window.back_button, Qt.MouseButton.LeftButton)
    assert window.stack.currentIndex() == STEPS.index("Connect")  # Preflight needs the hosts: back to Connect


def test_once_connected_and_probed_the_recipes_speak_of_these_hosts_and_a_run_can_start(window: MainWindow) -> None:
    window.steps.setCurrentRow(RECIPES)
    page = window.recipes_page
    connect_and_probe(window)
    assert "For nas" in page.hosts_label.text() and "root@client.lab" in page.hosts_label.text()
    assert "their probed facts" in page.hosts_label.text()
    assert "no run on these hosts yet" in page.estimate_label.text()
    assert window.next_button.isEnabled() and window.next_button.toolTip() == "" and window.nav_note.text() == ""
    dialog = page.show_plan()
    assert dialog is not None and "the probed hosts" in dialog.windowTitle() and not dialog.note.isVisibleTo(dialog)
    assert "nas:/export" in dialog.plain_text()
    dialog.close()
