"""`nfstune run`: the measurement engine from a terminal, with progress, a results table per recipe, and the
comparison of each configuration with the recipe's baseline."""

from __future__ import annotations

import argparse
import getpass
import sys
import threading
import time
from collections.abc import Mapping
from contextlib import ExitStack
from typing import Any

from nfstune.advice.findings import answer_text, diagnosis_text
from nfstune.advice.outcome import SessionOutcome, session_outcome
from nfstune.advice.recommend import Recommendation
from nfstune.cli.output import StandardOutput, write_output
from nfstune.errors import ConfigError
from nfstune.recipes.clients_needed import client_counts, clients_needed, compares_text, too_few_clients
from nfstune.recipes.loader import default_recipe_dirs, load_recipes, recipes_by_id
from nfstune.recipes.model import Recipe
from nfstune.remote import Host, open_host
from nfstune.remote.resolved import NOT_LOGGED_IN, Resolved, client_role, hosts_text
from nfstune.remote.target import resolve, split_spec
from nfstune.results.caveats import WITHOUT_SERVER
from nfstune.results.hand_steps import TITLE as HAND_TITLE
from nfstune.results.hand_steps import hand_lines
from nfstune.results.latencies import LATENCY_NOTE, latency_label, latency_text
from nfstune.results.summary import aa_summary
from nfstune.session.admin import AS_IT_WAS, CONTINUE, STOP, WITH_CHANGE, HandPrompt
from nfstune.session.ceilings import ceiling_name
from nfstune.session.engine import Event
from nfstune.session.script import preflight, refuse_if_blocked, run_session, survey
from nfstune.session.server_change import ServerChange
from nfstune.session.workflow import Pair, pick_recipes, plan_for
from nfstune.signals import terminate_as_interrupt
from nfstune.store import Journal, Results, open_store
from nfstune.words import plural

WAIT_LINE_S = 5.0  # while a host is still writing back before a run, a line this often in the terminal


def _prompt_host_key(label: str, key_type: str, fingerprint: str) -> bool:
    if not sys.stdin.isatty():
        return False
    answer = input(f"{label} offers the unknown host key {key_type} {fingerprint}. Trust it? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def _ask_secret(label: str, what: str) -> str | None:
    return getpass.getpass(f"{label}: {what}: ") if sys.stdin.isatty() else None


def _open(spec: str, role: str) -> Host:
    host = open_host(spec, on_unknown_host_key=_prompt_host_key, ask_secret=_ask_secret, role=role)
    for warning in host.target.warnings:  # what of ~/.ssh/config nfstune could not honour, before connecting
        print(f"nfstune: note: {host.label}: {warning}", file=sys.stderr)
    return host


def connect_pair(
    args: argparse.Namespace, stack: ExitStack, share: str | None = None, *, need_share: bool = True
) -> Pair:
    """The two hosts the arguments name, connected; `share` instead of --share (a stored session's). With
    --no-server-login the server is not logged in to (Pair.server is None)."""
    no_login = getattr(args, "no_server_login", False)
    if args.lab:
        from nfstune.lab import LabConfig, host, require_running

        cfg = LabConfig().as_running()
        # before any connection: what listens on the lab's ports when it is down is not the lab
        require_running(cfg, cfg.client_vms if no_login else cfg.vms)
        nas = None if no_login else stack.enter_context(host(cfg, "nas", role="server"))
        client = stack.enter_context(host(cfg, "client", role=client_role(0, cfg.clients)))
        more = [
            stack.enter_context(host(cfg, vm, role=client_role(n, cfg.clients)))
            for n, vm in enumerate(cfg.client_vms)
            if n
        ]
        return Pair(nas, client, "nas", share or "/export", more)
    share = share or getattr(args, "share", None) or ""
    if not args.client or (need_share and not share):
        raise ConfigError("--server needs --client and --share too")
    server = None if no_login else stack.enter_context(_open(args.server, "server"))
    count = len(args.client)
    clients = [stack.enter_context(_open(spec, client_role(n, count))) for n, spec in enumerate(args.client)]
    address = args.server_address or (server.target.hostname if server else split_spec(args.server)[0])
    return Pair(server, clients[0], address, share, clients[1:])


def run(args: argparse.Namespace, printer: Any) -> int:
    recipes, errors = load_recipes(default_recipe_dirs())
    for error in errors:
        printer(f"warning: {error}")
    chosen = pick_recipes(recipes, args.recipe)
    for recipe in chosen:
        if recipe.overrides is not None:  # a file in the user's folder silently standing in would mislead
            printer(f"warning: {recipe.id} is yours ({recipe.source}): it replaces the shipped one")
    refuse_too_few_clients(args, chosen)
    if getattr(args, "dry_run", False):
        print(dry_run_text(args, chosen))
        return 0
    conn = open_store()
    results, journal = Results(conn), Journal(conn)
    with ExitStack() as stack:
        stack.enter_context(terminate_as_interrupt())  # SIGTERM and SIGHUP undo as Ctrl-C does
        pair = connect_pair(args, stack)
        if args.lab and getattr(args, "share", None):
            pair.share = args.share  # the lab's /export unless another share is asked for
        printer(f"probing {pair.server_label} and {', '.join(c.label for c in pair.clients)}")
        found = survey(pair)
        # the desktop's preflight, before anything is changed: a share that is not exported would otherwise get
        # a world-writable scratch directory and a disk-baseline file wherever it points
        problems = preflight(pair, found)
        for p in problems:
            printer(f"{p.severity}: {p.title}\n    {p.detail}")
        refuse_if_blocked(problems)
        for recipe in chosen:  # what the desktop shows on the Recipes page before a run, said here too
            # without a login no configuration that changes the server runs: a warning about those is not for this run
            warned = [c for c in recipe.configs if c.warning]
            moot = pair.server is None and warned and all(c.changes_server for c in warned)
            if recipe.warning and not moot:
                printer(f"warning ({recipe.id}): {' '.join(recipe.warning.split())}")

        def confirm(change: ServerChange) -> bool:
            # the engine has just logged change.message(): the list of connected clients
            if getattr(args, "yes", False):
                printer("--yes: going on")
                return True
            if not sys.stdin.isatty():
                printer("No terminal to ask on: run again with --yes to change the export anyway.")
                return False
            answer = input(f"Change {change.share} on {change.server} while they are connected? [y/N] ")
            return answer.strip().lower() in ("y", "yes")

        shown = {"step": ""}
        waited = {"at": 0.0}

        def on_event(event: Event) -> None:
            # a progress line when a step begins; after each repeat only when the estimate of time left changed
            if event.kind == "progress":
                eta = event.data.get("eta_s")
                frac = float(event.data.get("fraction") or 0)  # type: ignore[arg-type]
                left = f" ({eta_text(eta, event.data.get('eta_max_s'))})" if eta else ""  # type: ignore[arg-type]
                line = f"{frac:4.0%} {event.message}{left}"
                if event.message != shown["step"] or left != shown.get("left"):
                    printer(line)
                shown["step"], shown["left"] = event.message, left
            elif event.kind == "wait":
                # a host still writing back before a run: its first line, then one every WAIT_LINE_S (the desktop
                # shows each one as it comes); "" ends the wait
                now = time.monotonic()
                if not event.message:
                    waited["at"] = 0.0
                elif now - waited["at"] >= WAIT_LINE_S:
                    waited["at"] = now
                    printer(event.message)
            elif event.kind in ("repeat", "log", "warning", "config", "baseline"):
                printer(event.message)

        by_id = {r.id: r for r in recipes}
        outcome = run_session(
            pair,
            found.facts,
            chosen,
            scale=args.scale,
            results=results,
            journal=journal,
            emit=on_event,
            cancel=threading.Event(),
            ceilings=not getattr(args, "no_ceilings", False),
            confirm=confirm,
            known=by_id,
            # a guided hand change asks at the terminal; without one the plan skips it and says why
            ask=ask_at_terminal if sys.stdin.isatty() else None,
        )
        if outcome.error is not None:
            raise outcome.error  # main says why, with its exit code, as for an error before the run
    sid, rec = outcome.session_id, outcome.recommendation
    advice = advice_text(rec, pair.share) if rec is not None else "\n" + outcome.message
    judged = outcome.outcome or session_outcome(results, sid, by_id)
    last = "\n".join(answer_text(judged.findings))
    print(report_text(results, sid, by_id, answer_first=False, outcome=judged) + "\n" + advice + "\n\n" + last)
    html = getattr(args, "html", None)
    if html is not None:
        from nfstune.report.html import session_html

        write_output(html, session_html(results, sid, by_id))
        if not isinstance(html, StandardOutput):
            print(f"\nreport: {html}")
    return 0


def refuse_too_few_clients(args: argparse.Namespace, chosen: list[Recipe]) -> None:
    """A recipe asked for by name that needs more clients than the command gives (many-clients with one): stopped
    before anything connects, rather than run as the one-client comparison that is left of it."""
    if args.lab:
        from nfstune.lab import LabConfig

        lab = LabConfig().as_running()
        have, names = lab.clients, list(lab.client_vms)
    else:
        names = list(getattr(args, "client", None) or [])
        have = len(names)
        if not have:
            return  # no --client at all: said as such where the hosts are read
    short = [r for r in chosen if too_few_clients(r, have) is not None]
    if not short:
        return
    number = "one" if have == 1 else str(have)
    gave = f"{number} ({', '.join(names)})"
    lines = []
    for recipe in short:
        needed, most = clients_needed(recipe), max(client_counts(recipe))
        if args.lab:
            how = (
                f"the lab runs {number} {plural(have, 'client')} ({', '.join(names)}): start it with more, "
                f"`nfstune lab down`, then `nfstune lab up --clients {most}`"
            )
        else:
            how = f"give at least {needed} --client hosts (up to {most}); you gave {gave}"
        lines.append(f"{recipe.id} {compares_text(recipe)}: {how}")
    raise ConfigError("\n".join([*lines, "Nothing was run."]))


def dry_run_text(args: argparse.Namespace, chosen: list[Any]) -> str:
    """The plan without connecting to any host (the lab need not be up): the share and the server's address come
    from the arguments."""
    from nfstune.cli.past_pace import dry_run_pace
    from nfstune.recipes.plan_text import plan_text

    if args.lab:
        share, address = getattr(args, "share", None) or "/export", "nas"
    else:
        if not args.share:
            raise ConfigError("--server needs --share too (the plan names the exported path)")
        share, address = args.share, args.server_address or split_spec(args.server)[0]
    clients = len(args.client) if getattr(args, "client", None) else None
    no_login = getattr(args, "no_server_login", False)
    plan = plan_for(
        None,
        None,
        chosen,
        args.scale,
        share=share,
        address=address,
        clients=clients,
        server_login=not no_login,
        ask_admin=sys.stdin.isatty(),
    )
    hosts = hosts_text(resolved_hosts(args, share, address))
    pace = dry_run_pace(args, chosen, recipes_by_id())
    return hosts + "\n\n" + plan_text(plan, pace=pace) + "\n\nDry run: no host was contacted and nothing was changed."


def resolved_hosts(args: argparse.Namespace, share: str, address: str) -> list[Resolved]:
    """Each host the arguments name, as nfstune would reach it: resolved through the SSH config (ssh -G reads it
    on this computer), without connecting."""
    no_login = getattr(args, "no_server_login", False)
    skipped = NOT_LOGGED_IN.format(address=address, share=share)
    if args.lab:
        from nfstune.lab import LabConfig
        from nfstune.lab.vms import target

        cfg = LabConfig().as_running()
        server = Resolved("server", "the lab's nas", None if no_login else target(cfg, "nas"), skipped)
        vms = cfg.client_vms
        clients = [Resolved(client_role(n, len(vms)), f"the lab's {vm}", target(cfg, vm)) for n, vm in enumerate(vms)]
        return [server, *clients]
    server = Resolved("server", args.server, None if no_login else resolve(args.server), skipped)
    given = args.client or []
    return [server, *(Resolved(client_role(n, len(given)), spec, resolve(spec)) for n, spec in enumerate(given))]


def ask_at_terminal(prompt: HandPrompt) -> str:
    """A step of a guided hand change at the terminal: make the change, then Enter (or s to stop); at the end,
    how the NAS is left."""
    if prompt.kind == "switch":
        print(f"\n{prompt.recipe}, before block {prompt.block + 1} of {prompt.blocks}: {prompt.text}")
        print(f"{prompt.where_label}: " + prompt.where.replace("\n", "\n  "))  # a line a vendor, indented
        answer = input("Then press Enter to continue, or type s to stop: ")
        return STOP if answer.strip().lower() in ("s", "stop") else CONTINUE
    print(f"\n{prompt.recipe}: how should the NAS be left? {prompt.text}")
    now = "c" if prompt.changed else "a"
    answer = input(f"Type a to leave it as it was, c to leave it with the change [{now}]: ").strip().lower() or now
    return WITH_CHANGE if answer.startswith("c") else AS_IT_WAS


def advice_text(rec: Recommendation | str, share: str) -> str:
    """The recommendation for `share` in words, or why there is none (session_advice.kept_recommendation)."""
    if isinstance(rec, str):
        return f"\nNo recommendation: {rec}"
    where = rec.exports_file if rec.exports_before is not None else f"{rec.exports_file}, a new line"
    lines = [""]
    if rec.exports_line:  # "" when nfstune could not log in to the server (a note says so)
        lines += [f"Recommended export of {share} ({where}, on the server):", _indent(rec.exports_line)]
    if rec.exports_before is not None and rec.exports_before != rec.exports_line:
        lines += ["  now:", _indent(rec.exports_before, "    ")]
    elif rec.exports_before is not None:
        lines.append("  (your entry already reads as recommended)")
    lines += [f"    {r.option}: {r.why}" for r in rec.exports_reasons]
    if rec.fstab_before is not None:
        state = "already reads as recommended" if rec.fstab_before == rec.fstab_line else f"now: {rec.fstab_before}"
        lines += ["Recommended /etc/fstab entry (on the client; your entry, edited in place):", f"  {rec.fstab_line}"]
        lines.append(f"  ({state})")
    else:
        lines += ["Recommended /etc/fstab line (on the client; choose your own mount point):", f"  {rec.fstab_line}"]
    lines += [f"    {r.option}: {r.why}" for r in rec.fstab_reasons]
    lines += [f"  note: {n}" for n in rec.notes]
    lines += threads_lines(rec)
    alt = rec.async_alternative
    if alt is not None:
        lines += [
            "\n!! Opt-in alternative, NOT recommended by default: async",
            _indent(alt.line),
            f"  measured: {alt.gain}",
            f"  exports(5): {alt.warning}",
            f"  what it means: {alt.risk}",
            f"  only if: {alt.conditions}",
        ]
    return "\n".join(lines)


def threads_lines(rec: Recommendation) -> list[str]:
    """The nfsd thread count a many-clients session measured, with the nfs.conf lines it changes."""
    advice = rec.threads
    if advice is None:
        return []
    if advice.file is None:
        return [f"  note: {advice.note}"]
    gone, added = advice.changed_lines
    lines = [f"Recommended in {advice.file} (on the server; your file, one value changed):", f"  {advice.line}"]
    lines += [f"  now: {line}" for line in gone] or ["  (a new line in its [nfsd] section)"]
    lines += [f"    threads: {advice.note}"]
    return lines if added else [f"  note: {advice.note}"]


def _indent(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


def report_text(
    results: Results,
    session_id: int,
    recipes: Mapping[str, Recipe] | None = None,
    *,
    answer_first: bool = True,
    outcome: SessionOutcome | None = None,
) -> str:
    """The results of a session as text: the answer in three lines (unless `answer_first` is False: `run` says it
    last), what limits each workload, then per recipe and workload each configuration's median, spread, n and
    verdict against the baseline, the ceilings, and the session's A/A checks (a configuration expected to measure
    as its baseline)."""
    recipes = recipes_by_id() if recipes is None else recipes
    outcome = outcome or session_outcome(results, session_id, recipes)
    stored = outcome.session
    found = outcome.findings
    lines = [""]
    if answer_first:
        lines += [*answer_text(found), ""]
    lines += diagnosis_text(found)
    lines.append(outcome.results_text)
    lacks = outcome.caveats
    if lacks:
        lines += [f"\n{WITHOUT_SERVER.lower()}", *(f"  {text}" for text in lacks)]
    by_hand = hand_lines(stored.hand_steps)
    if by_hand:
        lines += [f"\n{HAND_TITLE.lower()}", *(f"  {line}" for line in by_hand)]
    latencies = stored.latencies
    if stored.ceilings or latencies:
        lines.append("\nceilings (measured before the recipes)")
        lines += [f"  {ceiling_name(c.kind, c.direction)}: {c.mb_per_s:.3g} MB/s" for c in stored.ceilings]
        lines += [f"  {latency_label(t)}: {latency_text(t)}" for t in latencies]
        if latencies:
            lines.append(f"  {LATENCY_NOTE}")
    checks = outcome.checks
    if checks:
        lines += [
            "\nA/A checks (configurations expected to measure the same as their baseline)",
            f"  {aa_summary(checks)}",
        ]
        lines += [f"  {c.text}" for c in checks]
    return "\n".join(lines)


def eta_text(eta_s: float, at_most_s: float | None) -> str:
    """'about 7 min left, at most 13': rounds go on until the comparisons settle or the budget is spent."""
    text = f"about {eta_s / 60:.0f} min left"
    if at_most_s is not None and round(at_most_s / 60) > round(eta_s / 60):
        text += f", at most {at_most_s / 60:.0f}"
    return text
