"""The first window a new user sees: sized from the screen it opens on."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMargins, QRect, QSettings, QSize
from pytestqt.qtbot import QtBot

from nfstune.ui.main_window import MainWindow
from nfstune.ui.screen_fit import FRAME_GUESS, centred, fitted


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
