"""Where nfstune keeps its data, and where the files it ships are.

The wheel carries the top-level `resources/` and `recipes/` folders as `nfstune/_data/...`; a source checkout
(editable install, tests) reads them from the repository itself.
"""

from __future__ import annotations

import stat
from pathlib import Path

import platformdirs

APP_NAME = "nfstune"
# The desktop's name for nfstune, in the reverse-DNS form the Desktop Entry Specification and AppStream ask for: the
# menu entry's file name (<id>.desktop), the window's Wayland app id, the AppStream component id. nfstune has no
# domain of its own; io.github.<account>.<project> is the form AppStream and Flathub take from a project without
# one, after the GitHub account its public home is to have. Changing it later costs every user an upgrade step (the
# old entry removed, desktop_entry.py), so it stays once published.
APP_ID = "io.github.nfstune.nfstune"
_PACKAGE_DIR = Path(__file__).resolve().parent


def _shipped(name: str) -> Path:
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parents[1] / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"nfstune's {name}/ folder is missing (looked in {_PACKAGE_DIR / '_data'}): reinstall nfstune"
    )


def resources_dir() -> Path:
    return _shipped("resources")


def recipes_dir() -> Path:
    return _shipped("recipes")


def icons_dir() -> Path:
    """nfstune's icon in the freedesktop hicolor layout: <size>x<size>/apps/nfstune.png, scalable/apps/nfstune.svg."""
    return resources_dir() / "icons" / "hicolor"


def fallback_icons_dir() -> Path:
    """The icons nfstune's buttons and messages use, one SVG each named as the freedesktop icon theme names it
    (document-save-as.svg, ...): what ui/icons.py shows where the desktop's theme has no such icon."""
    return resources_dir() / "icons" / "fallback"


def metainfo_file() -> Path:
    """nfstune's AppStream metainfo (what software centres and package checkers read of it)."""
    return resources_dir() / "metainfo" / f"{APP_ID}.metainfo.xml"


def config_dir() -> Path:
    """Settings: the desktop's (settings_file), the watches' descriptions and records (cli/watch.py)."""
    return platformdirs.user_config_path(APP_NAME)


def settings_file() -> Path:
    """Where Qt keeps the desktop's settings (QSettings of the organisation and application both named nfstune, in
    the Linux default format): window size, scale, recent host pairs."""
    return config_dir() / f"{APP_NAME}.conf"


def cache_dir() -> Path:
    """Rebuildable data: the practice lab's images."""
    return platformdirs.user_cache_path(APP_NAME)


def state_dir() -> Path:
    """Per-machine state: the running lab (pid files, keys, disks)."""
    return platformdirs.user_state_path(APP_NAME)


def data_dir() -> Path:
    """What the user would miss: results database, recipes of their own."""
    return platformdirs.user_data_path(APP_NAME)


def log_dir() -> Path:
    return platformdirs.user_log_path(APP_NAME)


def known_hosts() -> Path:
    """Host keys the admin accepted in nfstune (their ~/.ssh/known_hosts is read too, never written)."""
    return data_dir() / "known_hosts"


def file_kind(mode: int) -> str:
    """What a path that is not a regular file is, from its st_mode: said when nfstune refuses to read it."""
    kinds = {
        stat.S_IFIFO: "a named pipe (FIFO)",
        stat.S_IFCHR: "a character device",
        stat.S_IFBLK: "a block device",
        stat.S_IFSOCK: "a socket",
        stat.S_IFDIR: "a folder",
        stat.S_IFLNK: "a symbolic link",
    }
    return kinds.get(stat.S_IFMT(mode), "a regular file" if stat.S_ISREG(mode) else "not a file")
