"""nfstune's place on this computer beyond its command: `desktop-entry` (the application menu), `manpage` and
`completion`. The manual page and the completion script are made from the parser at the moment they are asked for,
so they cannot describe another version than the one that prints them.
"""

from __future__ import annotations

import argparse
from typing import Any

from nfstune.cli import exits

COMMANDS = ("desktop-entry", "manpage", "completion")


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
    sub.add_parser("manpage", help="print nfstune's manual page (troff): `nfstune manpage | man -l -`")
    completion = sub.add_parser("completion", help="print the shell's completion script for nfstune")
    completion.add_argument("shell", choices=("bash",), help="the shell (bash, the one supported)")


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "desktop-entry":
        from nfstune.cli.desktop_entry import desktop_entry_command

        return desktop_entry_command(install_it=args.install)
    if args.command == "manpage":
        print(manpage(parser), end="")
        return exits.OK
    from nfstune.cli.completion import completion

    print(completion(parser, args.shell), end="")
    return exits.OK


def manpage(parser: argparse.ArgumentParser) -> str:
    from nfstune.cli.manual import manpage as page

    return page(parser)
