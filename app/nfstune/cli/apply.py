"""`nfstune apply`: a session's recommendation written for good, or the last Apply undone. Either only after the
exact diff and the steps that make it are printed and confirmed (y on a terminal, or --yes), and verified as the
desktop's Apply is (changes.apply, changes.apply_undo): on any failure both files are put back."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from typing import Any

from nfstune.advice.outcome import session_outcome
from nfstune.advice.recommend import DEFAULT_MOUNT_POINT
from nfstune.advice.session import recommendation
from nfstune.changes.apply import ApplyResult, apply, prepare
from nfstune.changes.apply_undo import UndoResult, prepare_undo, undo_apply
from nfstune.changes.transaction import recover_on_connect
from nfstune.cli.run import connect_pair
from nfstune.errors import ConfigError
from nfstune.recipes.loader import recipes_by_id
from nfstune.remote.probe import probe
from nfstune.session.workflow import current_export
from nfstune.signals import terminate_as_interrupt
from nfstune.store import Journal, Results, open_store


def apply_command(args: argparse.Namespace, printer: Any) -> int:
    conn = open_store()
    results, journal = Results(conn), Journal(conn)
    outcome = None
    if not args.undo:
        recipes = recipes_by_id()
        try:  # the session judged once, as its report judges it; only the files Apply edits are read live, below
            outcome = session_outcome(results, args.session, recipes)
        except KeyError:
            raise ConfigError(f"there is no session {args.session}: see `nfstune history`") from None
    share = outcome.session.share if outcome is not None else None
    with ExitStack() as stack:
        stack.enter_context(terminate_as_interrupt())  # SIGTERM and SIGHUP roll back as Ctrl-C does
        pair = connect_pair(args, stack, share, need_share=not args.undo)
        if pair.server is None:
            raise ConfigError(
                f"`nfstune apply` writes the server's exports file too, so it needs a login on {pair.address}. "
                "Without one, copy the recommended /etc/fstab line from `nfstune report` by hand."
            )
        recover_on_connect([pair.server, pair.client], journal, printer)
        if outcome is None:  # --undo
            return _undo(args, pair, journal, printer)
        # the session's verdicts on the files as they are now: an edit made since the session is kept
        current = current_export(pair.server, pair.share, pair.client, pair.address)
        rec = recommendation(
            results,
            args.session,
            share=pair.share,
            server=pair.address,
            current=current,
            recipes=recipes,
            mount_point=args.mount_point or DEFAULT_MOUNT_POINT,
            measured=outcome.measured,
        )
        appliance = probe(pair.server).appliance
        threads = rec.threads.threads if rec.threads is not None else None
        plan = prepare(
            pair.server,
            pair.client,
            pair.share,
            rec.exports_line,
            rec.fstab_line,
            appliance=appliance,
            nfsd_threads=threads,
            session_id=args.session,
        )
        if plan.noop:
            print("Every file already reads as recommended: nothing to change.")
            return 0
        print(plan.review)
        for finding in plan.findings:
            print(f"note: look at this in the server's exports files: {finding}")
        if not _confirmed(args, "Apply these changes (a dated backup of each file is kept beside it)?"):
            print("Not applied: nothing was changed.")
            return 1
        _say_applied(apply(plan, pair.server, pair.client, journal, printer))
    return 0


def _undo(args: argparse.Namespace, pair: Any, journal: Journal, printer: Any) -> int:
    plan = prepare_undo(pair.server, pair.client, journal)
    print(plan.review)
    if not _confirmed(args, f"Put these files back as they were before the Apply of {plan.applied.when}?"):
        print("Not undone: nothing was changed.")
        return 1
    _say_undone(undo_apply(plan, pair.server, pair.client, journal, printer))
    return 0


def _confirmed(args: argparse.Namespace, question: str) -> bool:
    if args.yes:
        print("--yes: going on")
        return True
    if not sys.stdin.isatty():
        print("No terminal to ask on: review the diff above, then run again with --yes.")
        return False
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def _say_applied(result: ApplyResult) -> None:
    backups = ", ".join(result.backups)
    print(f"Applied and verified. Backups: {backups or 'none needed'}. Undo: `nfstune apply --undo`.")
    if result.threads_backup is not None or any("threads" in w for w in result.warnings):
        print("The nfsd thread count takes effect when the NFS server restarts (systemctl restart nfs-server).")
    for warning in result.warnings:
        print(f"warning: {warning}")


def _say_undone(result: UndoResult) -> None:
    print(f"Undone and verified: {'; '.join(result.restored) or 'nothing needed writing'}.")
    for directory in result.removed_dirs:
        print(f"removed the mount point nfstune had made: {directory}")
    for warning in result.warnings:
        print(f"warning: {warning}")
