"""The desktop's settings are where the manual page and the README say (paths.settings_file): Qt's own choice of
file for nfstune's QSettings, which follows $XDG_CONFIG_HOME."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from nfstune import paths
from nfstune.cli.manual import FILES, XDG_DEFAULTS
from nfstune.ui.app import application


def test_qt_keeps_the_settings_in_the_file_the_manual_names() -> None:
    application()
    assert QSettings().fileName() == str(paths.settings_file())
    assert paths.settings_file().parent == paths.config_dir()
    listed = [f"{XDG_DEFAULTS[base]}/{below}" for base, below, _ in FILES]
    assert "~/.config/nfstune/nfstune.conf" in listed
