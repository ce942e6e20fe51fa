"""Benchmark: cold start of the desktop assistant, from `nfstune` (the venv's own command, a new process each
time) to its main window shown. Prints figures; asserts nothing.

Figures (2026-11-27, 2 CPUs (AMD EPYC), other helpers' work on the machine; the load is the 1-minute average, this
benchmark's own work included). Each run of this code (32014d8: the window starts without scipy, numpy, pyqtgraph
or paramiko) followed or preceded by one of another (--against): af718b3, the start of the first pass of issue 31
(scipy at the first verdict, History read on a worker thread; with the display check and the window icon), and
e10ddef, before it (neither check nor icon):
- load 0.8-1.1: start to window shown, 7 runs: median 0.80 s (0.62-0.89) against e10ddef's 2.16 s (1.86-2.32),
  this / that run by run median 0.38; median 0.84 s (0.71-0.86) against af718b3's 1.34 s (1.17-1.48), 0.61. With
  10,000 sessions in History (history_open.py's file), 5 runs: median 0.83 s (0.73-1.00) against e10ddef's 3.32 s
  (2.99-3.70), 0.26; median 0.92 s (0.84-1.04) against af718b3's 1.46 s (1.29-1.53), 0.71.
- load 1.6-2.4 (this branch's tests running beside it): 7 runs: median 1.10 s (0.64-1.51) against e10ddef's 2.82 s
  (1.97-3.38); median 0.73 s (0.62-1.30) against af718b3's 1.58 s (1.11-1.94). With 10,000 sessions: 0.76 s
  (0.66-0.86) against 3.13 s (2.72-3.22); 0.75 s (0.71-0.81) against 1.19 s (1.12-1.49).
- imports the window needs (load 0.8, -X importtime, which adds its own overhead): 0.55-0.60 s in 365 modules, of
  which nfstune 0.39-0.44 s (167 modules, none above 55 ms) and PySide6 with shiboken 0.07 s; at af718b3
  1.09-1.16 s in 893 modules, of which pyqtgraph 0.13-0.21 s, numpy 0.07-0.09 s, and paramiko with invoke,
  cryptography, nacl and the unittest.mock and asyncio that invoke imports about 0.1 s; at e10ddef 2.01 s, of
  which scipy 0.77 s.
- the first run (creates the database and settings), load 0.8-1.1: 0.69-1.02 s; af718b3 1.56-1.81 s; e10ddef
  2.21-3.20 s.
Earlier: 8b69753 (2026-11-27, load 0.4-1.0): median 1.22 s (1.08-1.69) against e10ddef's 2.33 s; fcb199f
(2026-11-23, load 1.3-2.6): median 3.20 s (2.20-4.02), 5.34 s with 10,000 sessions.

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
