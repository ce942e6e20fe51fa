"""Benchmark: cold start of the desktop assistant, from `nfstune` (the venv's own command, a new process each
time) to its main window shown. Prints figures; asserts nothing.

Figures (2026-11-27, 2 CPUs (AMD EPYC), other helpers' work on the machine; each run of this code followed or
preceded by one of e10ddef, the commit before the start was made lighter (--against): the load is the 1-minute
average, this benchmark's own work included):
- load 0.4-1.0: start to window shown, 7 runs: min 1.08 s, median 1.22 s, max 1.69 s, against e10ddef's 1.80 s,
  2.33 s, 2.68 s (this / e10ddef run by run: median 0.52). With 10,000 sessions in History (history_open.py's
  file), 5 runs: min 1.08 s, median 1.11 s, max 1.43 s, against 2.81 s, 3.18 s, 3.51 s (median 0.38): the window
  no longer reads History at start (the tab reads it on a worker thread when it is opened).
- load 3.6-5.2 (tests and the practice lab's VMs of other helpers): 1.43 s median (1.20-2.49) against 2.33 s
  (2.12-2.92); with 10,000 sessions 2.56 s (1.93-2.93) against 5.72 s (4.82-7.71).
- imports the window needs (load 0.8): 1.21 s, of which nfstune 0.52 s, pyqtgraph 0.17 s, numpy 0.09 s, invoke
  and paramiko 0.11 s; at e10ddef 1.64 s with scipy 0.65 s (bench/stats.py imported scipy.stats at the top, for
  the verdicts; it now does at the first verdict). -X importtime adds its own overhead.
- the first run (creates the database and settings) varies most: 1.1-6.8 s, with either code.
Earlier (2026-11-23, commit fcb199f, load 1.3-2.6): median 3.20 s (2.20-4.02), 5.34 s with 10,000 sessions.

"Shown" is the X server's MapNotify for the main window, read from a private Xvfb (xdisplay.MapWatcher): the app
needs no hook. Each run starts with empty XDG data, config and log folders shared by the runs (with --against,
each code has its own), so the first run also creates the results database and its settings (reported apart);
the Python files are in the page cache (nothing drops it: that would need root and would slow everything else on
the machine). After the window is mapped the process gets SIGTERM, which quits as the window's Quit does. Also
prints where the import time goes (`python -X importtime`, one extra run for each code).

    .venv/bin/python tools/bench/cold_start.py --runs 7
    .venv/bin/python tools/bench/cold_start.py --runs 5 --store /tmp/history-10000.sqlite3  # with a big History
    git archive e10ddef | tar -x -C /tmp/nfstune-e10ddef  # (an empty folder) an older commit, to start in turn:
    .venv/bin/python tools/bench/cold_start.py --runs 7 --against /tmp/nfstune-e10ddef
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from xdisplay import SCREEN, MapWatcher, xvfb

ROOT = Path(__file__).resolve().parents[2]
NFSTUNE = str(Path(sys.executable).parent / "nfstune")  # the venv's own command, as an admin runs it
TITLE = "NFS tuning assistant"  # the main window's (ui/main_window.py); not the crash dialog or a message box
IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


@dataclass(frozen=True)
class Side:
    """One code of nfstune to start: its app folder (on PYTHONPATH, ahead of the venv's own), and the XDG home of
    its runs (each side creates and keeps its own database and settings)."""

    name: str
    app: Path
    home: Path


def environment(display: str, side: Side) -> dict[str, str]:
    home = side.home
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        PYTHONPATH=str(side.app),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_STATE_HOME=str(home / "state"),
        NFSTUNE_LOG_DIR=str(home / "log"),
    )
    return env


def one_start(display: str, side: Side, watcher: MapWatcher, timeout_s: float) -> tuple[float, str]:
    """Seconds from the process' start to its main window mapped, and the window's title."""
    watcher.discard_pending()
    started = time.monotonic()
    proc = subprocess.Popen(
        [NFSTUNE], env=environment(display, side), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    mapped = watcher.next_mapped(timeout_s, title=TITLE)
    proc.send_signal(signal.SIGTERM)
    try:
        output, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
    if mapped is None:
        raise SystemExit(f"no window was shown within {timeout_s:g} s; nfstune printed:\n{output[-3000:]}")
    return mapped.at - started, mapped.name


def import_breakdown(display: str, side: Side, top: int) -> list[str]:
    """Where the import time goes on the way to the main window: each module's own time (`-X importtime`'s
    "self"), summed by top-level package, so that the parts add up to the whole."""
    code = "import nfstune.cli.main, nfstune.ui.app, nfstune.ui.main_window"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        env=environment(display, side),
        capture_output=True,
        text=True,
        check=True,
    )
    by_package: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        m = IMPORT_LINE.match(line)
        if m:
            package = m.group(4).split(".")[0]
            by_package[package] = by_package.get(package, 0) + int(m.group(1))
    total = sum(by_package.values())
    lines = [f"{side.name}: imports of the modules the window needs (one more process): {total / 1e6:.2f} s, of which"]
    ranked = sorted(by_package.items(), key=lambda item: item[1], reverse=True)
    lines += [f"  {us / 1e6:5.2f} s  {name}" for name, us in ranked[:top]]
    rest = sum(us for _, us in ranked[top:])
    lines.append(f"  {rest / 1e6:5.2f} s  {len(ranked) - top} other packages (standard library included)")
    return lines


def commit_of(folder: Path) -> str:
    found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=folder, capture_output=True, text=True)
    return found.stdout.strip() or folder.name  # a `git archive` of a commit: its folder says which


def figures(times: Sequence[float]) -> str:
    return f"min {min(times):.2f} s, median {statistics.median(times):.2f} s, max {max(times):.2f} s"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="counted runs, after the first (which sets up)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the window")
    parser.add_argument("--store", type=Path, help="start with a copy of this results database (e.g. a big History)")
    parser.add_argument(
        "--against",
        type=Path,
        help="another checkout of nfstune (e.g. `git archive` of an older commit): its app/ is started in turn "
        "with this one's, run for run, so that both meet the same moments of a busy machine",
    )
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="nfstune-coldstart-"))
    sides = [Side(f"this ({commit_of(ROOT)})", ROOT / "app", scratch / "this")]
    if args.against:
        sides.append(Side(f"against ({commit_of(args.against)})", args.against.resolve() / "app", scratch / "against"))
    for side in sides:
        side.home.mkdir()
        if args.store:
            (side.home / "data" / "nfstune").mkdir(parents=True)
            shutil.copy(args.store, side.home / "data" / "nfstune" / "nfstune.sqlite3")
    store = f", History from {args.store}" if args.store else ""
    print(
        f"cold start of {NFSTUNE}, code of {', '.join(f'{side.app} [{side.name}]' for side in sides)}, "
        f"{os.cpu_count()} CPUs ({load()}), Xvfb {SCREEN} without a window manager{store}"
    )
    times: dict[str, list[float]] = {side.name: [] for side in sides}
    with xvfb() as display:
        watcher = MapWatcher(display)
        try:
            for side in sides:
                first, title = one_start(display, side, watcher, args.timeout)
                print(f"{side.name}, first run (creates the database and settings): {first:.2f} s; window {title!r}")
            for number in range(1, args.runs + 1):
                row = []
                for side in sides if number % 2 else sides[::-1]:  # A B, then B A: neither always goes first
                    seconds, _ = one_start(display, side, watcher, args.timeout)
                    times[side.name].append(seconds)
                    row.append(f"{side.name} {seconds:.2f} s")
                print(f"run {number}: {', '.join(row)} ({load()})", flush=True)
            for side in sides:
                for line in import_breakdown(display, side, top=8):
                    print(line)
        finally:
            watcher.close()
    print(f"\nstart to window shown, {args.runs} runs each ({load()} at the end):")
    for side in sides:
        print(f"  {side.name}: {figures(times[side.name])}")
    if args.against:
        this, against = (times[side.name] for side in sides)
        ratios = [a / b for a, b in zip(this, against, strict=True)]
        each = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"  this / against, run by run: {each}; median {statistics.median(ratios):.2f}")
    shutil.rmtree(scratch, ignore_errors=True)


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"  # other work on the machine moves every figure


if __name__ == "__main__":
    main()
