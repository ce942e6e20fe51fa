"""`nfstune check N`: whether the applied recommendation of session N held. The plan is printed and confirmed (y on
a terminal, or --yes); the applied settings are verified in force first (a difference is said and stops the check
unless the admin goes on); then the ceilings and the workloads behind the recommendation are measured again in a
session of their own and compared with session N's (session/check_run.py). When the change measured slower, the
Undo of the last Apply is offered (asked on a terminal, never assumed by --yes)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from contextlib import ExitStack
from typing import Any

from nfstune.changes.transaction import recover_on_connect
from nfstune.cli.run import connect_pair
from nfstune.errors import ConfigError
from nfstune.recipes.loader import recipes_by_id
from nfstune.results.check_text import check_lines
from nfstune.results.in_force import InForce
from nfstune.session.check_run import CheckResult, engine_plan, plan_check, run_check
from nfstune.session.check_words import check_plan_text, step_words
from nfstune.session.engine import Event
from nfstune.session.workflow import probe_pair
from nfstune.signals import terminate_as_interrupt
from nfstune.store import Journal, Results, open_store


def check_command(args: argparse.Namespace, printer: Any) -> int:
    conn = open_store()
    results, journal = Results(conn), Journal(conn)
    try:
        share = results.stored_session(args.session).share
    except KeyError:
        raise ConfigError(f"there is no session {args.session}: see `nfstune history`") from None
    with ExitStack() as stack:
        stack.enter_context(terminate_as_interrupt())  # SIGTERM and SIGHUP undo as Ctrl-C does
        pair = connect_pair(args, stack, share)
        if pair.server is None:
            raise ConfigError(
                f"`nfstune check` reads the server's export and nfsd, so it needs a login on {pair.address}"
            )
        recover_on_connect([pair.server, pair.client], journal, printer)
        plan = plan_check(results, journal, pair, args.session, recipes_by_id(), args.rounds)
        printer(f"probing {pair.server_label} and {pair.client.label}")
        facts = probe_pair(pair)
        built = engine_plan(plan, pair, facts) if plan.workloads else None
        print(check_plan_text(plan, built))
        if not _confirmed(args, "Run this check?"):
            print("Not checked: nothing was changed.")
            return 1

        def on_event(event: Event) -> None:
            if event.kind == "progress":
                fraction = float(event.data.get("fraction") or 0)  # type: ignore[arg-type]
                printer(f"{fraction:4.0%} {step_words(event.message, plan)}")
            elif event.kind in ("repeat", "log", "warning", "baseline"):
                printer(event.message)

        def go_on(found: InForce) -> bool:
            print("\nThe applied settings are not all in force:")
            for mismatch in found.mismatches:
                print(f"  {mismatch.text}")
            for note in found.notes:
                print(f"  note: {note}")
            return _confirmed(args, "Measure anyway (the comparison is then of the settings in force)?", assume=False)

        result = run_check(
            plan,
            pair,
            facts,
            results=results,
            journal=journal,
            emit=on_event,
            cancel=threading.Event(),
            go_on=go_on,
            built=built,
        )
    print("\n" + result_text(result, args.session))
    if result.outcome is not None and result.outcome.slower:
        return _offer_undo(args)
    return 0 if result.stopped is None or result.in_force.ok else 1


def result_text(result: CheckResult, session_id: int) -> str:
    """The check's outcome as `nfstune check` and `nfstune report` print it: the headline first."""
    return "\n".join(check_lines(json.loads(result.to_json(session_id)), result.check_id))


def _offer_undo(args: argparse.Namespace) -> int:
    hosts = "--lab" if args.lab else f"--server {args.server} --client {args.client[0]}"
    print(f"\nThe change measured slower than before it. To put the files back: nfstune apply --undo {hosts}")
    if not sys.stdin.isatty():
        return 1
    if input("Undo the last Apply now? [y/N] ").strip().lower() not in ("y", "yes"):
        return 1
    from nfstune.cli.apply import apply_command
    from nfstune.cli.progress import Printer

    undo = argparse.Namespace(**{**vars(args), "undo": True, "session": None, "yes": False, "mount_point": None})
    return apply_command(undo, Printer())


def _confirmed(args: argparse.Namespace, question: str, *, assume: bool = True) -> bool:
    """`assume`: whether --yes answers it (never for going on past settings that are not in force)."""
    if args.yes and assume:
        print("--yes: going on")
        return True
    if not sys.stdin.isatty():
        print("No terminal to ask on: run again with --yes." if assume else "No terminal to ask on: stopped.")
        return False
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
