"""The analysing half of watch_change_points.py: what a watch finds in each store the collecting half filled, as
Markdown tables, with whether done-when (c) holds; and, with capture, each store's sessions as the watch reads them
(Results.pair_sessions) into tests/captures/watch/ for the unit tests."""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path
from typing import Any

from nfstune.results.ceilings import ceilings_of
from nfstune.results.trend import workload_trends
from nfstune.results.watch import CANARIES, SessionChange, session_changes
from nfstune.statistics.change_points import ALPHA, MIN_CHANGE
from nfstune.statistics.stats import format_percent, format_value
from nfstune.store import Results, open_store

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "tests" / "captures" / "watch"
NOTES = [
    "## What the figures say",
    "",
    "The lab's CPUs are emulated on a host of two shared with other work, so a first look there moves more from one "
    "session to the next than on a real NAS: in the unchanged series iperf3 ranged 64-89 MB/s and seq-read 19-30 MB/s, "
    "and the sixth session, run while the host was busier (it took 2.2 minutes, the five before it 1.4), "
    "measured everything 2-3x slower, the network included. One "
    "such session is not a change point (two sessions on the new level are needed, and they must not overlap the "
    "three before); a second one like it would have been, and named the network, since iperf3 slows with the CPU "
    "there. The slower link moved every network figure about 8x (64-89 to 8.3-11.9 MB/s, the tbf's 100 Mbit/s is "
    "11.9 MB/s of TCP goodput) and the sequential workloads 3-4x: the rule marks the fourth session alone and names "
    "the network first. small-files and sync-4k, bound by the disk's flush, moved less than 20 % and are not named.",
]
SHOWN_CEILINGS = ("network_to_server", "network_from_server", "round_trip_ms", "disk_write", "sync_write_ms")


def store_sessions(store: Path) -> list[dict[str, Any]]:
    conn = open_store(store / "nfstune" / "nfstune.sqlite3")
    try:
        results = Results(conn)
        (pair,) = results.host_pairs()  # the lab's one pair
        return results.pair_sessions(pair)
    finally:
        conn.close()


def table(name: str, sessions: list[dict[str, Any]]) -> tuple[list[str], list[SessionChange]]:
    trends = workload_trends(sessions)
    changes = session_changes(sessions, trends)
    head = ["#", "session"] + [f"{t.workload} ({t.unit})" for t in trends]
    head += [f"{CANARIES[c][0]} ({CANARIES[c][1]})" for c in SHOWN_CEILINGS]
    lines = [f"### {name}", "", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    by_session = {p.session_id: {} for p in trends[0].points} if trends else {}
    for trend in trends:
        for p in trend.points:
            rounds = ", ".join(format_value(v) for v in p.values)
            by_session.setdefault(p.session_id, {})[trend.workload] = f"{format_value(p.median)} ({rounds})"
    for number, session in enumerate(sessions, 1):
        ceilings = ceilings_of(session)
        cells = [str(number), str(session["id"])]
        cells += [by_session.get(session["id"], {}).get(t.workload, "-") for t in trends]
        cells += [format_value(v) if (v := getattr(ceilings, c)) is not None else "-" for c in SHOWN_CEILINGS]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Change points found:", ""]
    lines += [f"- at the session numbered {c.number}: {c.headline} ({'; '.join(c.lines)})" for c in changes] or [
        "- none"
    ]
    return lines, changes


def analyse(folder: Path, *, capture: bool, out: Path | None) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    lines = [
        "# A watch over months: its change points on the lab",
        "",
        f"Made by `tools/bench/watch_change_points.py` on {datetime.date.today()}, commit "
        f"{commit.stdout.strip() or '?'}: each first look run as a watch's service runs it (`nfstune run --lab "
        "--recipe first-look --scale small`, no terminal) into a store of its own; the rule of "
        f"statistics/change_points.py (binary segmentation, split t-test p < {ALPHA}, at least "
        f"{format_percent(MIN_CHANGE * 100)} and no overlap of the three sessions either side), on each workload's "
        "baseline median (its two rounds as its spread) and on each ceiling. Each cell: the median (the rounds).",
        "",
    ]
    verdicts = []
    for name, want in (("steady", 0), ("slower", 4)):
        sessions = store_sessions(folder / name)
        title = {
            "steady": "Six first looks, nothing changed",
            "slower": "Three first looks, then three with the lab link shaped to 100mbit (tc tbf on both VMs)",
        }[name]
        shown, changes = table(title, sessions)
        lines += [*shown, ""]
        if want == 0:
            ok = not changes
            verdicts.append(f"- six unchanged first looks: {len(changes)} change point(s) ({'PASS' if ok else 'FAIL'})")
        else:
            network = any(m.name.startswith("the network") for c in changes for m in c.ceilings)
            ok = len(changes) == 1 and changes[0].number == want and network
            where = ", ".join(str(c.number) for c in changes) or "none"
            verdicts.append(
                f"- three before and three after the slower link: change point(s) at {where}, the network named: "
                f"{'yes' if network else 'no'} ({'PASS' if ok else 'FAIL'})"
            )
        if capture:
            CAPTURES.mkdir(parents=True, exist_ok=True)
            (CAPTURES / f"{name}.json").write_text(json.dumps(sessions, indent=1, sort_keys=True) + "\n")
    lines += ["## Done-when (c)", "", *verdicts, "", *NOTES]
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        out.write_text(text)
