"""`nfstune desktop-entry`: nfstune in the desktop's application menu. A desktop entry (freedesktop Desktop Entry
Specification) named by nfstune's reverse-DNS id (paths.APP_ID), its icon in the hicolor theme (Icon Theme
Specification) and its AppStream metainfo, all under $XDG_DATA_HOME (XDG Base Directory Specification), written and
taken out through a record of them (cli/file_record.py).

Before the reverse-DNS id the entry was `nfstune.desktop`. Installing again (after an upgrade) removes that one
when nfstune's record lists it unchanged, so the menu shows nfstune once; one it did not write, or one changed
since, is left and named.

Menus, and the toolkits' icon lookups, watch those folders themselves. The caches update-desktop-database and
gtk-update-icon-cache keep there are refreshed where one already exists and never created, as xdg-utils does: a
cache in a user's folder that nothing refreshes would hide the icons other programs install there later.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from nfstune import paths
from nfstune.cli import file_record
from nfstune.errors import NfstuneError

ENTRY_FILE = f"{paths.APP_ID}.desktop"
OLD_ENTRY_FILE = "nfstune.desktop"  # the entry's name before the reverse-DNS id
METAINFO_FILE = f"{paths.APP_ID}.metainfo.xml"
# one main category (System), or the menu lists nfstune under each; NFS is a file system
CATEGORIES = "System;Filesystem;Qt;"
# the Desktop Entry Specification's characters that an Exec argument must quote
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def data_home(environ: Mapping[str, str] = os.environ) -> Path:
    value = environ.get("XDG_DATA_HOME", "")
    if os.path.isabs(value):  # the Base Directory Specification: a relative path is invalid, and ignored
        return Path(value)
    return Path.home() / ".local" / "share"


def record_path(home: Path) -> Path:
    return home / "nfstune" / "desktop-entry.json"


def places(home: Path) -> file_record.Places:
    """The folders nfstune's files go in, and what they are called: all the record may name."""
    roots = (home / "applications", home / "icons" / "hicolor", home / "metainfo")
    return file_record.Places(base=home, roots=roots, prefix=("nfstune", paths.APP_ID), record=record_path(home))


def nfstune_command(argv0: str = sys.argv[0], executable: str = sys.executable) -> Path:
    """The `nfstune` the menu starts: the one running, when it was started by that name; else the one installed
    beside this Python (`python -m nfstune` in a virtual environment); else the first on PATH. Links are kept,
    not resolved: pipx's ~/.local/bin/nfstune outlives an upgrade of the environment it points into."""
    candidates = [Path(argv0)] if Path(argv0).name == "nfstune" else []
    candidates.append(Path(executable).parent / "nfstune")
    found = shutil.which("nfstune")
    if found:
        candidates.append(Path(found))
    for command in candidates:
        if command.is_file() and os.access(command, os.X_OK):
            return Path(os.path.abspath(command))
    raise NfstuneError(
        "no `nfstune` command found to put in the menu (looked beside this Python and on PATH): install nfstune "
        "with pipx or pip (README, Install) and run `nfstune desktop-entry --install` from there"
    )


def _string(value: str) -> str:
    """A value of type string: backslash and control characters escaped as the specification has them."""
    if any(ord(c) < 32 and c not in "\n\t\r" for c in value):
        raise NfstuneError(f"{value!r}: a control character cannot be written in a desktop entry")
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def exec_argument(argument: str) -> str:
    """One argument of the Exec key, quoted by the specification's rules; `_string` escapes it once more when the
    line is written (the reader undoes that first)."""
    if "\n" in argument:
        raise NfstuneError(f"{argument!r}: a path with a line break cannot be started from a desktop entry")
    if any(c in _RESERVED for c in argument):
        argument = '"' + "".join("\\" + c if c in '"`$\\' else c for c in argument) + '"'
    return argument.replace("%", "%%")


def entry_text(command: Path) -> str:
    lines = [
        "[Desktop Entry]",
        "Type=Application",
        # 1.4: the version desktop-file-validate 0.26 (Debian 12) checks; nothing of 1.5 is used
        "Version=1.4",
        "Name=nfstune",
        "GenericName=NFS Tuning Assistant",
        "Comment=Measure NFS export and mount options on your server and client, and get the lines to use",
        "Icon=nfstune",
        f"TryExec={_string(str(command))}",
        f"Exec={_string(exec_argument(str(command)))} gui",
        "Terminal=false",
        f"Categories={CATEGORIES}",
        "Keywords=NFS;NAS;exports;fstab;mount;benchmark;tuning;",
        "StartupNotify=true",
        # Qt names the window's X11 class after the application (ui/app.py), the Wayland app id after the file
        "StartupWMClass=nfstune",
    ]
    return "\n".join(lines) + "\n"


def entry_files(home: Path, command: Path) -> list[tuple[Path, bytes]]:
    files = [(home / "applications" / ENTRY_FILE, entry_text(command).encode())]
    icons = paths.icons_dir()
    for icon in sorted(p for p in icons.rglob("*") if p.is_file()):
        files.append((home / "icons" / "hicolor" / icon.relative_to(icons), icon.read_bytes()))
    files.append((home / "metainfo" / METAINFO_FILE, paths.metainfo_file().read_bytes()))
    return files


def refresh_caches(home: Path) -> list[str]:
    """Refreshes the menu's and the icon theme's caches where they exist; what it did, as lines to print."""
    hicolor = home / "icons" / "hicolor"
    if hicolor.is_dir():
        os.utime(hicolor)  # the theme folder's time is what icon lookups check for a change
    lines = []
    for tool, folder, cache, options in (
        ("update-desktop-database", home / "applications", "mimeinfo.cache", ["-q"]),
        ("gtk-update-icon-cache", hicolor, "icon-theme.cache", ["-q", "-f", "-t"]),
    ):
        if not (folder / cache).is_file():
            continue
        executable = shutil.which(tool)
        if executable is None:
            lines.append(f"not refreshed: {folder / cache} ({tool} is not installed)")
            continue
        argv = [executable, *options, str(folder)]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            lines.append(f"not refreshed: {folder / cache} ({tool}: {exc})")
            continue
        if done.returncode == 0:
            lines.append(f"refreshed {folder / cache}")
        else:
            lines.append(f"not refreshed: {folder / cache} ({tool} exited {done.returncode}: {done.stderr.strip()})")
    return lines


def install(home: Path, command: Path, say: Callable[[str], None]) -> None:
    record = record_path(home)
    old_entry = home / "applications" / OLD_ENTRY_FILE
    earlier = file_record.read_record(places(home))
    theirs = old_entry.exists() and (earlier is None or old_entry not in earlier.files)
    removal = file_record.write_files(places(home), entry_files(home, command), lambda path: say(f"wrote {path}"))
    for path in removal.removed:
        old = f"nfstune's menu entry under its old name, now {ENTRY_FILE}" if path == old_entry else "not written now"
        say(f"removed {path}: {old}")
    for path in removal.kept:
        say(f"left {path}: an earlier nfstune wrote it and it was changed since; remove it if it is not wanted")
    if theirs:
        say(
            f"left {old_entry}: nfstune did not write it (it is not in {record}); if it is an older menu entry for "
            f"nfstune, remove it, or the menu shows nfstune twice"
        )
    for line in refresh_caches(home):
        say(line)
    say(f"recorded in {record}; the menu entry starts {command} gui")


def uninstall(home: Path, say: Callable[[str], None]) -> None:
    removal = file_record.remove_files(places(home))
    if removal is None:
        say(f"nothing to take out: no nfstune menu entry was installed under {home}")
        return
    for path in removal.removed:
        say(f"removed {path}")
    for path in removal.kept:
        say(f"left {path}: it was changed after nfstune wrote it")
    for line in refresh_caches(home):
        say(line)


def desktop_entry_command(install_it: bool) -> int:
    if install_it:
        install(data_home(), nfstune_command(), print)
    else:
        uninstall(data_home(), print)
    return 0
