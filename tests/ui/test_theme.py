"""The look follows the desktop's scheme: a dark palette when it asks for dark, text colours that read on both, and
dialog buttons without icons."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QStyle, QWidget
from pytestqt.qtbot import QtBot

from nfstune.store import Results, SessionRow, open_store
from nfstune.ui import theme
from nfstune.ui.main_window import MainWindow
from nfstune.ui.pages.history_list import SessionTableModel
from tests.ui.theme_checks import nfstune_app, wcag


@pytest.fixture
def app(qapp: QApplication) -> Iterator[QApplication]:
    yield from nfstune_app(qapp)


Role = QPalette.ColorRole
AA_TEXT = 4.5  # WCAG 2 AA for body text
WINDOW_TEXT_ROLES = ((Role.WindowText, Role.Window), (Role.Text, Role.Base), (Role.ButtonText, Role.Button))


def force(app: QApplication, scheme: Qt.ColorScheme, qtbot: QtBot) -> None:
    """The desktop switching its scheme. Qt's setColorScheme asks the platform, and the offscreen one (as X
    without a desktop) keeps none: the signal a desktop's switch sends is sent here instead."""
    app.styleHints().setColorScheme(scheme)
    if app.styleHints().colorScheme() != scheme:
        app.styleHints().colorSchemeChanged.emit(scheme)


def test_a_dark_desktop_gets_a_dark_window_whose_text_reads(app: QApplication, qtbot: QtBot) -> None:
    force(app, Qt.ColorScheme.Dark, qtbot)
    palette = app.palette()
    assert palette.color(Role.Window).lightnessF() < 0.3
    for text, background in WINDOW_TEXT_ROLES:
        assert wcag(palette.color(text), palette.color(background)) >= AA_TEXT
    force(app, Qt.ColorScheme.Light, qtbot)  # and back, as the desktop switches
    assert app.palette().color(Role.Window).lightnessF() > 0.7


@pytest.mark.parametrize("scheme", [Qt.ColorScheme.Light, Qt.ColorScheme.Dark])
def test_every_text_colour_set_reads_on_its_schemes_window(
    app: QApplication, qtbot: QtBot, scheme: Qt.ColorScheme
) -> None:
    force(app, scheme, qtbot)
    palette = app.palette()
    for meaning in theme.TEXT_COLOURS:
        colour = theme.text_colour(meaning)
        for background in (Role.Window, Role.Base, Role.AlternateBase):
            ratio = wcag(colour, palette.color(background))
            assert ratio >= AA_TEXT, f"{meaning} {colour.name()} on {background.name}: {ratio:.2f}"


def test_the_history_lists_statuses_in_colours_that_read_on_a_dark_table(app: QApplication, qtbot: QtBot) -> None:
    force(app, Qt.ColorScheme.Dark, qtbot)
    model = SessionTableModel()
    model.set_sessions([SessionRow(1, 1.0, 2.0, "failed", "/srv", "small", ["r"], "nas", "client", "lost")])
    colour = model.index(0, 2).data(Qt.ItemDataRole.ForegroundRole)
    assert wcag(QColor(colour), app.palette().color(Role.Base)) >= AA_TEXT


def test_dialog_buttons_carry_no_icons(app: QApplication, qtbot: QtBot) -> None:
    assert app.style().styleHint(QStyle.StyleHint.SH_DialogButtonBox_ButtonsHaveIcons) == 0
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    qtbot.addWidget(box)
    box.show()
    assert all(button.icon().isNull() for button in box.buttons())


def test_the_window_made_after_the_theme_is_dark_too(app: QApplication, qtbot: QtBot, tmp_path: Path) -> None:
    force(app, Qt.ColorScheme.Dark, qtbot)
    settings = QSettings(str(tmp_path / "n.ini"), QSettings.Format.IniFormat)
    Results(open_store(tmp_path / "s.sqlite3"))
    window = MainWindow(store_path=tmp_path / "s.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(window)
    window.show()
    assert window.palette().color(Role.Window).lightnessF() < 0.3
    assert window.history_page.palette().color(Role.Base).lightnessF() < 0.3


def test_the_suggested_action_reads_in_either_scheme_and_follows_a_switch(app: QApplication, qtbot: QtBot) -> None:
    from nfstune.advice.recommend import Measured, recommend
    from nfstune.ui.pages.recommendation import RecommendationPage

    force(app, Qt.ColorScheme.Light, qtbot)
    page = RecommendationPage()
    qtbot.addWidget(page)
    rec = recommend(share="/srv", server="nas", exports="/srv h(rw,async)\n", measured=Measured())
    page.show_recommendation(rec, server_label="nas", client_label="laptop")

    def drawn() -> tuple[QColor, QColor]:
        found = re.search(r"QPushButton \{ background: (#\w+); color: (#\w+)", page.apply_button.styleSheet())
        assert found is not None, page.apply_button.styleSheet()
        return QColor(found.group(1)), QColor(found.group(2))

    light = drawn()
    force(app, Qt.ColorScheme.Dark, qtbot)
    qtbot.waitUntil(lambda: drawn() != light, timeout=5000)  # the page draws its Apply again for the new scheme
    dark = drawn()
    for fill, text in (light, dark):
        assert wcag(text, fill) >= AA_TEXT, (fill.name(), text.name())


@pytest.mark.parametrize("kind", ["check box", "list item"])
def test_an_unticked_box_stands_out_from_a_dark_window(app: QApplication, qtbot: QtBot, kind: str) -> None:
    # Fusion outlines it in the window's colour darkened: on the dark window the box was all but invisible
    from PySide6.QtWidgets import QCheckBox, QListWidget, QListWidgetItem

    force(app, Qt.ColorScheme.Dark, qtbot)
    if kind == "check box":
        widget: QWidget = QCheckBox("I cannot log in to this NAS")
    else:
        widget = QListWidget()
        item = QListWidgetItem("Quick check")
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Unchecked)
        widget.addItem(item)
    qtbot.addWidget(widget)
    widget.resize(300, 60)
    widget.show()
    qtbot.waitExposed(widget)
    image = widget.grab().toImage()
    ground = app.palette().color(Role.Base if kind == "list item" else Role.Window)
    # the strongest edge among the pixels of the box itself (left of its words): at least 3:1, WCAG's figure for
    # the parts of a control
    box_end = 16 if kind == "check box" else 20  # Fusion's 13 px box (a list's after a 3 px margin); words from 19
    best = max(wcag(QColor(image.pixel(x, y)), ground) for x in range(box_end) for y in range(min(40, image.height())))
    assert best >= 3.0, f"the {kind}'s outline reads at {best:.2f}:1 on {ground.name()}"
