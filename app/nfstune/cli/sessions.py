"""`nfstune history` and `nfstune report`: the stored sessions, read without contacting any host."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nfstune.advice.outcome import session_outcome
from nfstune.advice.session import kept_recommendation
from nfstune.cli.output import Output, others_to_stderr, write_output
from nfstune.cli.run import advice_text, report_text
from nfstune.errors import ConfigError
from nfstune.recipes.loader import recipes_by_id
from nfstune.recipes.model import Recipe
from nfstune.report.json_report import iso_time, report_json
from nfstune.report.trend import session_change_points, sessions_in
from nfstune.results.check_text import check_lines, checked_lines
from nfstune.results.trend import trend_lines
from nfstune.results.watch import change_lines
from nfstune.store import Results, SessionRow, default_path, open_store, read_only


def history(as_json: bool = False) -> int:
    conn = open_store(reading=True)
    results = Results(conn)
    if read_only(conn):
        print(
            f"nfstune: note: {default_path()} is read-only for this user: the sessions are shown as they were "
            "stored (one whose nfstune stopped may still say running)",
            file=sys.stderr,
        )
    else:
        results.mark_interrupted()  # a session whose process is gone says so instead of "running" for ever
    rows = results.sessions()
    if as_json:
        print(json.dumps([session_row(r) for r in rows], indent=2))
        return 0
    if not rows:
        print("no sessions yet: `nfstune run --lab --recipe quick-check --scale small`")
    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started_at))
        print(
            f"{r.id:4}  {when}  {r.status:9}  {r.server or '-'} -> {r.client or '-'}  {r.share}  {','.join(r.recipes)}"
            + (f"\n      {r.message}" if r.message and r.status != "completed" else "")
        )
    return 0


def trend_text(results: Results, session_id: int, recipes: Mapping[str, Recipe]) -> list[str]:
    """`report --trend`: the pair's sessions up to this one, or why there is no trend."""
    trends, change_points = session_change_points(results, session_id, recipes)
    sessions = sessions_in(trends)
    if len(sessions) < 2:
        return ["Trend: none yet; another completed session of the same server, client and share makes one"]
    head = f"Trend: the last {len(sessions)} completed sessions of the same server, client and share, oldest first"
    return [
        head,
        *trend_lines(trends, session_id),
        "Change points:",
        *(f"  {line}" for line in change_lines(change_points)),
    ]


def session_row(row: SessionRow) -> dict[str, Any]:
    """A session as `history --json` lists it: the times both as ISO 8601 with the offset (to read) and as Unix
    seconds (to compute with)."""
    return {
        "id": row.id,
        "started": iso_time(row.started_at),
        "started_at": row.started_at,
        "ended": iso_time(row.ended_at),
        "ended_at": row.ended_at,
        "status": row.status,
        "message": row.message,
        "server": row.server,
        "client": row.client,
        "share": row.share,
        "scale": row.scale,
        "recipes": row.recipes,
    }


def report(args: argparse.Namespace) -> int:
    from nfstune.report.html import session_html

    results = Results(open_store(reading=True))
    recipes = recipes_by_id()  # each recipe's baseline, margin and expectations
    try:
        stored = results.stored_session(args.session)
    except KeyError:
        raise ConfigError(f"there is no session {args.session}: see `nfstune history`") from None
    if not (args.html or args.csv or args.json):
        outcome = session_outcome(results, args.session, recipes)
        row = results.session(args.session)
        checks = row.get("checks")
        # a check of an applied recommendation: its outcome first, in place of an answer and advice of its own
        text = report_text(results, args.session, recipes, answer_first=checks is None, outcome=outcome)
        if checks is not None:
            kept = json.loads(row["check_outcome"]) if row.get("check_outcome") else {"session": checks}
            text = "\n" + "\n".join(check_lines(kept, None)) + "\n" + text
        elif stored.runs:
            rec = kept_recommendation(results, args.session, recipes, measured=outcome.measured)
            text += "\n" + advice_text(rec, stored.share)
        checked = checked_lines(results.checks_of(args.session))
        if checked:
            text += "\n\nThe applied recommendation:\n" + "\n".join(f"  {line}" for line in checked)
        if args.trend:
            text += "\n\n" + "\n".join(trend_text(results, args.session, recipes))
        print(text)
        return 0
    outputs: list[tuple[Output, str]] = []
    if args.csv:
        outputs.append((args.csv, results.csv_text(args.session)))
    if args.json:
        outputs.append((args.json, report_json(results, args.session, recipes)))
    if args.html:
        outputs.append((args.html, session_html(results, args.session, recipes)))
    for target, text in outputs:
        write_output(target, text)
    with others_to_stderr(*(target for target, _ in outputs)):
        for target, _ in outputs:
            if isinstance(target, Path):
                print(f"wrote {target}")
    return 0
