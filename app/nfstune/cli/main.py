"""The `nfstune` command: each subcommand handed to the code that does it, and whatever goes wrong turned into
its exit status (a bug's traceback, an explained error, Ctrl-C, a reader gone). Without a subcommand it opens the
desktop window. The command line itself is defined in cli/parser.py.

Heavy modules (Qt, paramiko) are imported only by the subcommands that need them, so `nfstune --version`
and `nfstune info` work on a bare install.
"""

from __future__ import annotations

import json
import sys
import textwrap
import traceback
from collections.abc import Sequence
from typing import Any

from nfstune import __version__, paths
from nfstune.cli import display, exits, integration
from nfstune.cli.lab import demo_command, lab_command, lab_config
from nfstune.cli.output import others_to_stderr
from nfstune.cli.parser import parse
from nfstune.cli.progress import Printer
from nfstune.cli.stdout import OutputError, checked_stdout
from nfstune.errors import NfstuneError


def _info(as_json: bool) -> int:
    from nfstune.recipes.loader import default_recipe_dirs, load_recipes

    data: dict[str, Any] = {"version": __version__, "python": sys.version.split()[0]}
    for name in ("resources_dir", "recipes_dir", "config_dir", "data_dir", "cache_dir", "state_dir", "log_dir"):
        data[name] = str(getattr(paths, name)())
    data["user_recipes_dir"] = str(default_recipe_dirs()[-1])
    recipes = sorted(load_recipes(default_recipe_dirs())[0], key=lambda r: r.id)  # `nfstune recipes` says errors
    data["recipes"] = [r.id for r in recipes]  # what --recipe takes
    data["user_recipes"] = [
        {"id": r.id, "source": str(r.source), "replaces": str(r.overrides) if r.overrides else None}
        for r in recipes
        if r.user_provided
    ]
    if as_json:
        print(json.dumps(data, indent=2))
        return 0
    for key, value in data.items():
        if key == "user_recipes":
            for mine in value:
                if mine["replaces"]:
                    print(f"{'':16} {mine['id']}: yours, replaces the shipped one: {mine['source']}")
                    print(f"{'':16} {' ' * len(mine['id'])}  (the shipped one: {mine['replaces']})")
                else:
                    print(f"{'':16} {mine['id']}: yours: {mine['source']}")
        else:
            print(f"{key:16} {', '.join(value) if isinstance(value, list) else value}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command; its exit status (cli/exits.py lists them)."""
    with checked_stdout():
        try:
            try:
                return _command(argv)
            finally:
                # a reader that stopped reading or a full disk shows here, with what is still buffered, and not at
                # the interpreter's exit, where Python would print "Exception ignored" and exit 120
                sys.stdout.flush()
        except BrokenPipeError:
            exits.silence_stdout()
            return exits.READER_GONE
        except OutputError as error:
            print(f"nfstune: error: could not write the output: {error}", file=sys.stderr)
            return exits.BAD_INPUT


def _explained(exc: NfstuneError) -> int:
    print(f"\nnfstune: error: {exc}", file=sys.stderr)
    if exc.details:  # the technical text, for a search or a bug report: after the plain words, set apart
        print(textwrap.indent(f"details: {exc.details.strip()}", "  "), file=sys.stderr)
    return exits.BAD_INPUT


def _command(argv: Sequence[str] | None) -> int:
    parser, args = parse(argv)
    if args.command not in (None, "info", "recipes", "gui", *integration.COMMANDS):
        from nfstune.logs import setup_logging

        setup_logging()  # paramiko's retries while a VM boots go to the log file, not the terminal
    try:
        if args.command == "info":
            return _info(args.json)
        if args.command in integration.COMMANDS:
            return integration.run(parser, args)
        if args.command == "recipes":
            from nfstune.cli.recipe_list import recipes_command

            return recipes_command(args.json, ids_only=args.ids)
        if args.command == "lab":
            return lab_command(args)
        if args.command == "demo":
            return demo_command(args)
        if args.command == "apply":
            from nfstune.cli.apply import apply_command

            return apply_command(args, Printer())
        if args.command == "watch":
            from nfstune.cli.watch import watch_command

            return watch_command(args)
        if args.command == "check":
            from nfstune.cli.check import check_command

            return check_command(args, Printer())
        if args.command in ("history", "report"):
            from nfstune.cli import sessions

            return sessions.history(args.json) if args.command == "history" else sessions.report(args)
        if args.command == "run":
            from nfstune.cli import run as cli_run

            with others_to_stderr(args.html):  # `--html -`: the page alone on standard output
                return cli_run.run(args, Printer())
        if args.command in ("gui", "lab-window", None):
            display.check()  # before Qt: without a display, Qt aborts the process when the application starts
        if args.command == "gui" or args.command is None:
            from nfstune.ui.app import run_main_window

            return int(run_main_window(lab=getattr(args, "lab", False), scale=getattr(args, "scale", None)))
        from nfstune.ui.app import run_lab_window

        return int(run_lab_window(lab_config()))
    except OutputError:
        raise  # main's to say, once what is still buffered has been tried
    except NfstuneError as exc:
        return _explained(exc)
    except KeyboardInterrupt:
        print("\nnfstune: interrupted", file=sys.stderr)
        return exits.INTERRUPTED
    except Exception as exc:
        if exits.reader_gone(exc):
            raise  # `| head -1`: main ends quietly
        import sqlite3  # loaded already if exc is one of its errors

        if isinstance(exc, sqlite3.Error):
            from nfstune.store import default_path, failure

            # the results database locked by another program, made read-only, on a full disk, ...: at any
            # statement of any command, not only while it is opened
            problem = failure(exc, default_path())
            if problem is not None:
                return _explained(problem)
        traceback.print_exc()
        print(
            f"\nnfstune {__version__}: this is a bug in nfstune; please report it with the text above.", file=sys.stderr
        )
        return exits.BUG
