"""The Help menu: the user guide, diagnostics with the real versions and folders, About with version and licence."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

import nfstune
from nfstune import paths
from nfstune.ui.main_window import MainWindow

REPO = Path(__file__).parents[2]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MainWindow:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    w = MainWindow(store_path=tmp_path / "s.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(w)
    return w


def help_actions(window: MainWindow) -> list[str]:
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return [a.text().replace("&", "") for a in menu.actions()]


def test_the_help_menu_holds_the_guide_the_diagnostics_and_about(window: MainWindow) -> None:
    assert help_actions(window) == ["User guide", "Copy diagnostics", "About nfstune"]


def test_diagnostics_name_the_real_versions_and_folders_and_go_to_the_clipboard(window: MainWindow) -> None:
    window.help_menu.diagnostics_action.trigger()
    dialog = window.help_menu.diagnostics
    assert dialog is not None and dialog.isVisible()
    text = QApplication.clipboard().text()
    assert text == dialog.text
    from PySide6 import QtCore

    for expected in (
        f"nfstune: {metadata.version('nfstune')}",
        f"Python: {platform.python_version()}",
        f"Qt: {QtCore.qVersion()}",
        f"PySide6: {metadata.version('PySide6-Essentials')}",
        f"pyqtgraph: {metadata.version('pyqtgraph')}",
        f"paramiko: {metadata.version('paramiko')}",
        platform.system(),
        f"data folder: {paths.data_dir()}",
        f"log folder: {paths.log_dir()}",
    ):
        assert expected in text


def test_about_says_the_version_the_description_and_the_licence(window: MainWindow) -> None:
    window.help_menu.about_action.trigger()
    box = window.help_menu.about
    assert box is not None and box.isVisible()
    licence = (REPO / "LICENSE").read_text(encoding="utf-8")
    copyright_line = next(line for line in licence.splitlines() if line.startswith("Copyright"))
    summary = metadata.metadata("nfstune")["Summary"]
    text = box.text()
    assert nfstune.__version__ in text and summary in text
    assert "MIT" in text and licence.splitlines()[0].startswith("MIT") and copyright_line in text
    assert box.detailedText() == licence


def test_the_user_guide_opens_the_readmes_user_part_as_a_page(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    window.help_menu.guide_action.trigger()
    assert len(opened) == 1 and opened[0].isLocalFile()
    page = Path(opened[0].toLocalFile()).read_text(encoding="utf-8")
    assert "The desktop assistant" in page and "The practice lab" in page
    assert ">Tests<" not in page  # the developers' part stays in the README
