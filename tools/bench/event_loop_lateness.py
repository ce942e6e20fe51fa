"""Benchmark: how late the desktop's GUI event loop serves a due timer while the Run page's live graphs are fed
at 1 Hz for a simulated hour. Prints figures; asserts nothing.

Figures (2026-11-23, commit fcb199f, 2 CPUs (AMD EPYC), Xvfb, load 1.6-2.3 from other work on the machine):
idle Run page: p50 0.2 ms, p99 6.3 ms. While a simulated hour is fed (60x): p50 0.2 ms, p99 97.0 ms, max 286 ms;
first tenth (up to 360 points a series) p99 53.3 ms, last tenth (3240-3600 points) p99 115.2 ms, max 188 ms.
The real clock instead (--speed 1 --hours 0.05, 3 minutes, 0-180 points, load 0.4): p99 34.3 ms, max 130 ms.

Issue 39 (2026-11-28, Xvfb, 2 CPUs; each run of the code before, 4fa72d6, in turn with one of the code after,
e1a072a): the live plot now hands pyqtgraph only the series that changed, cut to the lowest and highest sample of
each pixel-wide bucket; its axes move in round steps; its lines are one pixel wide; only the left axes draw a grid.
Quiet (load 0.8): the whole hour p99 43.9 -> 3.3 ms, max 75 -> 14 ms; last tenth p99 56.2 -> 6.0 ms. Busier (load
1.8-2.2): p99 79.0 -> 5.0 ms, max 323 -> 49 ms; last tenth p99 79.9 -> 2.5 ms.

The real main window (nfstune.ui.main_window.MainWindow, on a private Xvfb, 1200x800) shows the Run page with its
timers running (RunPage.start: the LivePlot redraw every 500 ms, the event drain every 250 ms). A thread plays
both samplers: each simulated second it hands the controller's sample sink one client sample (NFS read and write,
CPU, NIC) and one server sample (disk read and write, CPU, NIC), exactly as the engine's sampler threads do; five
of those series are plotted (client read/write, server disk read/write, server CPU).

Time is compressed: the feeder advances `--speed` simulated seconds per real second (60: the hour in one real
minute) while every timer keeps its real period. The plot's ring buffers therefore fill from 0 to 3600 points
over the run exactly as over a real hour, and each redraw costs what it would at that point of the hour; what is
compressed is the number of redraws (120 instead of 7200) and the feeder pushes 60 samples a second instead of
one (a little more GIL contention than in a real run). `--speed 1 --hours 0.1` runs the real clock instead.

Lateness: a precise single-shot probe timer, re-armed every `--probe-ms` from the moment it fired; its lateness
is how long after its due time the event loop ran it (what a click or a repaint would wait).

    .venv/bin/python tools/bench/event_loop_lateness.py
"""

from __future__ import annotations

import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from lateness_probe import LatenessProbe, percentiles
from xdisplay import qt_display

ROOT = Path(__file__).resolve().parents[2]
HOUR_S = 3600
Sink = Callable[[str, float, dict[str, float]], None]


def client_sample(k: int, rng: random.Random) -> dict[str, float]:
    """A run's shape: configurations of two minutes, each writing then reading, around 10-110 MB/s."""
    phase = k % 120
    level = (1 + (k // 120) % 5) * 20e6 * (1 + 0.1 * rng.uniform(-1, 1))
    write, read = (level, 0.0) if phase < 60 else (0.0, level * 1.2)
    return {
        "cpu_percent": 5 + 20 * rng.random(),
        "nfs_read_bps": read,
        "nfs_write_bps": write,
        "net_rx_bps": read * 1.02,
        "net_tx_bps": write * 1.02,
    }


def server_sample(k: int, rng: random.Random) -> dict[str, float]:
    phase = k % 120
    busy = 30 + 30 * math.sin(k / 17) ** 2 + 5 * rng.random()
    disk = (1 + (k // 120) % 5) * 18e6 * (1 + 0.2 * rng.uniform(-1, 1))
    return {
        "cpu_percent": busy,
        "disk_read_bps": disk if phase >= 60 else 0.0,
        "disk_write_bps": disk if phase < 60 else 0.0,
        "net_rx_bps": 1e6,
        "net_tx_bps": 1e6,
    }


class Feeder(threading.Thread):
    """Plays both samplers from its own thread: simulated second k goes out at real time k / speed. With `script`,
    also the engine: the run's events (a recipe, its visits, their figures, and each round's verdicts as the stop
    rule judged them), made on this thread as the engine makes them on its own, then posted evenly over the time."""

    def __init__(
        self,
        sink: Sink,
        seconds: int,
        speed: float,
        script: Callable[[], Iterable[object]] | None = None,
        post: Callable[[object], None] | None = None,
    ) -> None:
        super().__init__(name="feeder", daemon=True)
        self.sink, self.seconds, self.speed = sink, seconds, speed
        self.script, self.post = script, post
        self.sent = 0
        self.events_posted = 0
        self.started_at = 0.0
        self.stop = threading.Event()

    def run(self) -> None:
        rng = random.Random(1)
        events = list(self.script()) if self.script is not None else []  # judged here, off the GUI thread
        every = self.seconds / (len(events) + 1)
        epoch = time.time()
        self.started_at = time.monotonic()
        while self.sent < self.seconds and not self.stop.is_set():
            due = min(self.seconds, int((time.monotonic() - self.started_at) * self.speed) + 1)
            while self.sent < due:
                t = epoch + self.sent
                self.sink("client", t, client_sample(self.sent, rng))
                self.sink("server", t, server_sample(self.sent, rng))
                self.sent += 1
                while self.post is not None and self.events_posted < len(events):
                    if (self.events_posted + 1) * every > self.sent:
                        break
                    self.post(events[self.events_posted])
                    self.events_posted += 1
            self.stop.wait(min(0.05, 1 / self.speed))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hours", type=float, default=1.0, help="simulated hours of samples")
    parser.add_argument("--speed", type=float, default=60.0, help="simulated seconds per real second")
    parser.add_argument("--probe-ms", type=int, default=10)
    parser.add_argument("--idle-s", type=float, default=10.0, help="first, the same window with nothing fed")
    parser.add_argument("--platform", choices=("xvfb", "offscreen"), default="xvfb")
    parser.add_argument(
        "--rounds", type=int, default=6, help="the scripted recipe's rounds played as the engine's events (0: none)"
    )
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="nfstune-lateness-"))
    os.environ.update(
        XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"), NFSTUNE_LOG_DIR=str(home / "log")
    )
    with qt_display(args.platform) as where:
        report(args, where, home)


def report(args: argparse.Namespace, where: str, home: Path) -> None:
    from PySide6.QtCore import QEventLoop, QSettings, QTimer

    from nfstune.ui.app import application
    from nfstune.ui.main_window import MainWindow

    app = application()
    window = MainWindow(
        store_path=home / "nfstune.sqlite3", settings=QSettings(str(home / "settings.ini"), QSettings.Format.IniFormat)
    )
    window.resize(1200, 800)
    window.show()
    page = window.run_page
    page.start()  # what starting a run does to the page: timers on, the controller's sample sink set
    window.go(3)
    if window.stack.currentWidget() is not page:
        raise SystemExit("the Run page did not come up")

    probe = LatenessProbe(args.probe_ms)

    def spin(seconds: float, until: Callable[[], bool] | None = None) -> None:
        loop = QEventLoop()
        QTimer.singleShot(int(seconds * 1000), loop.quit)
        if until is not None:
            check = QTimer()
            check.timeout.connect(lambda: loop.quit() if until() else None)
            check.start(100)
        loop.exec()

    spin(1.0)  # the first layout and paint
    probe.start()
    spin(args.idle_s)
    idle = probe.lateness()
    probe.probes.clear()

    seconds = round(args.hours * HOUR_S)
    sink = window.controller.sample_sink
    if sink is None:
        raise SystemExit("the Run page set no sample sink")
    script = None
    if args.rounds:
        sys.path.insert(0, str(ROOT))  # the scripted run the Run page's tests are fed (tests/ui/scripted_run.py)
        from tests.ui.scripted_run import scripted_events

        def script() -> Iterable[object]:
            return scripted_events(home / "script.sqlite3", args.rounds, running=False)

    feeder = Feeder(sink, seconds, args.speed, script, window.controller.events.append)
    feeder.start()
    spin(seconds / args.speed * 1.5 + 30, until=lambda: feeder.sent >= seconds)
    ended = time.monotonic()
    feeder.stop.set()
    probe.stop()
    fed = [(at, late) for at, late in probe.probes if feeder.started_at <= at <= ended]
    span = ended - feeder.started_at
    points = len(page.plot.buffers["client_read"])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)

    load = f"load {os.getloadavg()[0]:.1f}"  # other work on the machine moves every figure
    print(
        f"GUI event loop lateness, commit {commit.stdout.strip()}, {os.cpu_count()} CPUs ({load}), {where}, "
        f"Python {sys.version.split()[0]}"
    )
    print(f"idle Run page (timers running, nothing fed), {args.idle_s:g} s: {percentiles(idle)}")
    print(
        f"{feeder.sent} simulated seconds fed in {span:.1f} s ({feeder.sent / span:.0f}x); the plot holds "
        f"{points} points a series at the end; about {span / 0.5:.0f} redraws (a real hour: {HOUR_S * 2})"
    )
    grid = page.recipe_panel.grid.table
    print(
        f"the engine's events posted: {feeder.events_posted} (visit grid {grid.rowCount()}x{grid.columnCount()}, "
        f"verdict rows shown: {len(page.recipe_panel.rows)})"
    )
    print(f"while fed, the whole simulated time: {percentiles([late for _, late in fed])}")
    for name, low, high in (("first tenth", 0.0, 0.1), ("last tenth (buffers nearly full)", 0.9, 1.0)):
        part = [late for at, late in fed if low <= (at - feeder.started_at) / span <= high]
        print(f"while fed, {name}: {percentiles(part)}")
    page.timer.stop()
    page.plot.stop()
    window.hide()  # not close(): with the page "running" it would ask whether to cancel the run
    app.processEvents()


if __name__ == "__main__":
    main()
