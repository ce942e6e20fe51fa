"""Benchmark: how long the first look takes (issue 30: at most 3 minutes by the plan at the normal scale on a
gigabit NAS, at most 5 minutes on the practice lab).

By the plan (pure): the first-look recipe's visits as `nfstune run --dry-run` plans them, plus the ceilings measured
before them, which the plan does not count: iperf3 each way (session.workflow.IPERF_SECONDS), the server disk's
write and cold read of the sequential file (at an assumed disk speed), the round trip (20 pings, 0.2 s apart) and
32 synchronous 4 KiB writes.

On the lab (--lab): `nfstune run --lab --recipe first-look --scale small` timed as a whole command (the lab must be
up: `nfstune lab up`), its three-line answer printed beside the time.

    .venv/bin/python tools/bench/first_look.py [--lab] [--out docs/bench/first-look.md]
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from plan_times import plan_of  # this folder is on sys.path when a tool runs

from nfstune.bench.sizing import default_sizes
from nfstune.bench.workloads import MIB
from nfstune.recipes.loader import recipes_by_id
from nfstune.session.workflow import IPERF_SECONDS

ROOT = Path(__file__).resolve().parents[2]
GOAL_PLAN_S = 180.0  # normal scale, gigabit
GOAL_LAB_S = 300.0
DISKS = {"HDD (150 MB/s)": 150.0, "SSD (500 MB/s)": 500.0}
PINGS_S = 20 * 0.2
SYNC_WRITES = 32


def ceilings_s(scale: str, link_mbps: int | None, disk_mb_s: float, flush_ms: float) -> float:
    file_mb = default_sizes(scale, link_mbps).seq_file_bytes / MIB * MIB / 1e6
    return 2 * IPERF_SECONDS[scale] + 2 * file_mb / disk_mb_s + PINGS_S + SYNC_WRITES * flush_ms / 1000


def plan_rows(link_mbps: int | None) -> list[str]:
    look = recipes_by_id()["first-look"]
    rows = []
    for scale in ("small", "normal"):
        plan = plan_of(look, scale, link_mbps)  # as plan_times.py plans every recipe
        visits = plan.estimate_s[1]
        for disk, speed in DISKS.items():
            flush = 10.0 if "HDD" in disk else 1.0
            extra = ceilings_s(scale, link_mbps, speed, flush)
            total = visits + extra
            goal = "" if scale == "small" else (" (goal: 3 min)" if total <= GOAL_PLAN_S else " (OVER 3 min)")
            file_mib = plan.sizes.seq_file_bytes // MIB if plan.sizes else 0
            rows.append(
                f"| {scale} | {file_mib} MiB | {disk} | {visits / 60:.1f} min | {extra / 60:.1f} min | "
                f"{total / 60:.1f} min{goal} |"
            )
    return rows


def lab_run() -> tuple[float, str]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "nfstune", "run", "--lab", "--recipe", "first-look", "--scale", "small"],
        capture_output=True,
        text=True,
        env=os.environ,
        stdin=subprocess.DEVNULL,
        timeout=1800,
    )
    took = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"the first look failed (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    tail = done.stdout.rstrip().splitlines()
    answer = "\n".join(tail[tail.index("In three lines") :]) if "In three lines" in tail else done.stdout[-1500:]
    return took, answer


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lab", action="store_true", help="also run the first look on the practice lab, timed")
    parser.add_argument("--link-mbps", type=int, default=1000, help="the link the normal scale's file is sized for")
    parser.add_argument("--out", type=Path, help="also write the tables to this Markdown file")
    args = parser.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    lines = [
        "# The first look: its time",
        "",
        f"Made by `tools/bench/first_look.py{' --lab' if args.lab else ''}` on {datetime.date.today()}, commit "
        f"{commit.stdout.strip() or '?'}; the normal scale's file sized for a {args.link_mbps} Mb/s link.",
        "",
        "## By the plan",
        "",
        "The visits as the plan times them (two rounds of seq-write, seq-read, sync-4k and small-files on one mount), "
        "and the ceilings measured before them at an assumed disk speed.",
        "",
        "| scale | sequential file | disk | visits | ceilings | together |",
        "| --- | --- | --- | --- | --- | --- |",
        *plan_rows(args.link_mbps),
    ]
    if args.lab:
        took, answer = lab_run()
        verdict = "within" if took <= GOAL_LAB_S else "OVER"
        lines += [
            "",
            "## On the practice lab",
            "",
            f"`nfstune run --lab --recipe first-look --scale small`, the whole command: {took / 60:.1f} min "
            f"({verdict} the 5-minute goal). Its answer:",
            "",
            "```",
            answer,
            "```",
        ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
