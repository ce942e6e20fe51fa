"""The icons of nfstune's buttons, menus and messages: the desktop's icon theme's (freedesktop names, so Breeze,
Papirus, ... draw them in their own style), else our own drawing of each (resources/icons/fallback/<name>.svg: a
mid grey, or for a severity a shape of its colour with a white mark, so that each reads on a light and on a dark
window). Dialog buttons get none: the theme keeps their words alone (theme.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

from nfstune import paths

# what an icon stands for in nfstune -> its name in the freedesktop Icon Naming Specification (dialog-ok-apply and
# network-connect are not in it; the themes that have them, KDE's and Papirus, name them so)
NAMES: dict[str, str] = {
    "connect": "network-connect",
    "run": "media-playback-start",
    "cancel": "process-stop",
    "undo": "edit-undo",
    "apply": "dialog-ok-apply",
    "save": "document-save-as",
    "copy": "edit-copy",
    "help": "help-contents",
    "refresh": "view-refresh",
    "error": "dialog-error",
    "warning": "dialog-warning",
    "info": "dialog-information",
}


def fallback_file(name: str) -> Path:
    """Our drawing of the icon the theme calls `name`."""
    return paths.fallback_icons_dir() / f"{name}.svg"


def icon(what: str) -> QIcon:
    """The theme's icon for `what` (a key of NAMES), else ours."""
    name = NAMES[what]
    return QIcon.fromTheme(name, QIcon(str(fallback_file(name))))


def add_fallback_path() -> None:
    """Our drawings found by name too, where the theme has none (QIcon.fromTheme with no fallback of its own)."""
    folder = str(paths.fallback_icons_dir())
    if folder not in QIcon.fallbackSearchPaths():
        QIcon.setFallbackSearchPaths([*QIcon.fallbackSearchPaths(), folder])
