"""The one "Details" disclosure every page uses (ui/widgets/disclosure.py): a part under it or laid out elsewhere,
opened by a click, by the keyboard or from code, a screen reader's name for each state; and the pages that moved to
it keep their keyboard order and what they show."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from nfstune.ui.controller import ConnState, Controller
from nfstune.ui.jobs import Prompter
from nfstune.ui.pages.connect import ConnectPage
from nfstune.ui.pages.run import RunPage
from nfstune.ui.widgets.disclosure import Disclosure
from tests.ui.test_history_page import next_tab_stop


def window(qtbot: QtBot, *parts: QWidget) -> QWidget:
    holder = QWidget()
    layout = QVBoxLayout(holder)
    for part in parts:
        layout.addWidget(part)
    qtbot.addWidget(holder)
    holder.show()
    qtbot.waitExposed(holder)
    return holder


def top(widget: QWidget, page: QWidget) -> int:
    return widget.mapTo(page, widget.rect().topLeft()).y()


def test_a_part_laid_out_elsewhere_opens_and_closes_with_the_button(qtbot: QtBot) -> None:
    log = QPlainTextEdit()
    toggle = Disclosure("Log", shows=log, names=("Show the log", "Hide the log"))
    seen: list[tuple[bool, bool]] = []  # (what the signal said, whether the part was shown by then)
    toggle.toggled.connect(lambda shown: seen.append((shown, log.isVisible())))
    _holder = window(qtbot, log, toggle)  # the part above its button, as the Run page has it
    assert not log.isVisible() and not toggle.is_open()
    assert toggle.button.arrowType() == Qt.ArrowType.RightArrow
    assert toggle.button.accessibleName() == "Show the log"
    qtbot.mouseClick(toggle.button, Qt.MouseButton.LeftButton)
    assert log.isVisible() and toggle.is_open() and seen == [(True, True)]
    assert toggle.button.arrowType() == Qt.ArrowType.DownArrow
    assert toggle.button.accessibleName() == "Hide the log"
    assert not toggle.body.isVisible()  # nothing added under it: no empty line below the button
    toggle.set_open(False)  # from code, as a new run folds the log again
    assert not log.isVisible() and seen == [(True, True), (False, False)]
    assert toggle.button.accessibleName() == "Show the log"


def test_space_opens_what_is_added_under_it(qtbot: QtBot) -> None:
    toggle = Disclosure("Details")
    words = QLabel("every note in full")
    toggle.add(words)
    _holder = window(qtbot, toggle)
    assert toggle.button.accessibleName() in ("", "Details")  # no name given: its text is read out
    toggle.button.setFocus()
    qtbot.keyClick(toggle.button, Qt.Key.Key_Space)
    assert toggle.is_open() and toggle.body.isVisible() and words.isVisible()
    assert words.mapTo(toggle, words.rect().topLeft()).x() > toggle.button.x()  # indented past the arrow


def test_a_failed_hosts_details_keep_their_place_in_the_keyboard_order(qtbot: QtBot, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    page = ConnectPage(Controller(Prompter(), tmp_path / "s.sqlite3"), settings)
    _holder = window(qtbot, page)
    panel = page.panels["server"]
    panel.show_state(ConnState.FAILED, "nas (port 22) refused the connection", "nas port 22: ConnectionRefusedError")
    assert panel.details_button.isVisible() and not panel.details.isVisible()
    assert panel.details_button.accessibleName() == "Technical details of the server's connection failure"
    panel.details_button.click()
    assert panel.details.isVisible() and panel.details.text() == "nas port 22: ConnectionRefusedError"
    assert next_tab_stop(panel.details_button) is panel.retry
    assert next_tab_stop(panel.retry) is page.panels["client"].this_computer  # then on to the client's panel
    # connected on a retry: no failure to detail, though the admin left Details open
    panel.show_state(ConnState.CONNECTED, "nas")
    assert not panel.details_button.isVisible() and not panel.details.isVisible()
    panel.show_state(ConnState.FAILED, "nas (port 22) refused the connection", "nas port 22: again")
    assert panel.details.isVisible()  # open as they left it


def test_the_run_log_is_folded_at_the_start_and_named_for_a_screen_reader(qtbot: QtBot, tmp_path: Path) -> None:
    run = RunPage(Controller(Prompter(), store_path=tmp_path / "s.sqlite3"))
    run.resize(1024, 700)
    _holder = window(qtbot, run)
    assert not run.log.isVisible() and run.log_button.accessibleName() == "Show the run log"
    # Tab: Cancel, the live plot's stops, then Log
    between, stop = [], next_tab_stop(run.cancel_button)
    while stop is not run.log_button:
        between.append(stop)
        stop = next_tab_stop(stop)
    assert between and all(run.plot.isAncestorOf(w) or w is run.plot for w in between)
    run.log_button.click()
    assert run.log.isVisible() and run.log_button.accessibleName() == "Hide the run log"
    assert top(run.log_button, run) > top(run.log, run)  # the button stays under the log it opened
