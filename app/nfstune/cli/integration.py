"""nfstune's place on this computer beyond its command: `desktop-entry` (the application menu)."""

from __future__ import annotations

import argparse
from typing import Any

COMMANDS = ("desktop-entry",)


def add_parsers(sub: Any) -> None:
    entry = sub.add_parser(
        "desktop-entry",
        help="put nfstune in your desktop's application menu, with its icon (--install), or take it out again "
        "(--uninstall): files under $XDG_DATA_HOME (~/.local/share)",
    )
    action = entry.add_mutually_exclusive_group(required=True)
    action.add_argument(
        "--install", action="store_true", help="write the menu entry and the icon, and say what was written"
    )
    action.add_argument(
        "--uninstall", action="store_true", help="remove what --install wrote (a file changed since is left)"
    )


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from nfstune.cli.desktop_entry import desktop_entry_command

    return desktop_entry_command(install_it=args.install)
