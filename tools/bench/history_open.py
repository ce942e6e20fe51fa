"""Benchmark: opening the History page with 10,000 stored runs (`nfstune run`s, i.e. sessions) in a real SQLite
file filled through nfstune.store's API. Prints figures; asserts nothing.

Figures (2026-11-27, 2 CPUs (AMD EPYC), Xvfb, load 0.7-0.8, other helpers' work on the machine; this code,
32014d8, and af718b3, the code before it, in turn, twice each, 5 openings a run; medians of the two runs): shown,
to its list of 10,000 sessions shown: 171-187 ms (af718b3: 627-680 ms), of which the GUI thread filling the table
model 45-53 ms (533-568 ms): the model sorts its rows itself (a Python sort), where a sort proxy asked data() for
147,000 sort keys; the longest the GUI thread did not answer, from showing the page to its rows painted: 117-132 ms
(576-585 ms); the History tab of the main window opened: 73-76 ms (610-688 ms); to the first paint of the rows
230 ms (730-767 ms); refresh() to the list shown again: 88-100 ms (627-735 ms); selecting the newest session:
29-34 ms, but 0.87-0.95 s the first time in the process (numpy and scipy come with the first verdict). The page
alone freezes longer than the window's tab: it holds fewer objects, so the 10,000 rows a read makes set off full
collections of Python's garbage collector (up to 94 ms each, timed with gc.callbacks) that the window's larger
heap puts off; with the collector disabled the page's longest is 54 ms.

Earlier (8b69753, same day, load 1.1): shown to the list shown: median 0.74 s, of which the GUI thread filling the
table model (then through a sort proxy) 0.60 s; to the first paint of the rows: median 0.84 s.

Before issue 31 (2026-11-23, commit fcb199f, 2 CPUs (AMD EPYC), Xvfb, load 2.9-5.0 from other work on the machine):
10,000 sessions (34 MiB, filled in 7 s): creating the page to its table model filled: median 2.80 s (min 2.57,
max 2.91); to the table's first paint: median 5.31 s (min 5.20, max 5.66); refresh() (every switch to the History
tab): median 3.04 s; selecting the newest session: median 0.89 s; Results.sessions() alone: median 0.16 s.

Each stored session is a small quick-check: 4 workload runs (baseline and async writing, baseline and vers=3
reading) of one warm-up and 3 counted repeats each, with their options, 2 baselines, and an end status (one in
ten cancelled or failed, with a message); so 10,000 sessions hold 40,000 runs and 160,000 repeats. No samples:
the History list does not read them (a real session also stores ~2 per second of run per series).

Timed, in one process with the file in the page cache, several times: creating the page
(ui.pages.history.HistoryPage, which reads nothing then), and from showing it (it reads the sessions on a worker
thread, then fills its table model on the GUI thread) to its list shown, with the GUI thread's own part, and to
the first paint of its rows on a shown window (private Xvfb), with the longest the GUI thread did not answer
meanwhile (a 5 ms timer's longest gap); then a refresh() to the list shown again (what opening the History tab
does each time) and selecting the newest session (its figures summarised on the GUI thread). Also the store's
sessions() query alone, and last the History tab of the main window (on a copy of the file: the window marks
interrupted sessions in it) opened as many times, Connect shown between, with its longest gap.

    .venv/bin/python tools/bench/history_open.py --sessions 10000 --db /tmp/nfstune-history-10000.sqlite3

The file is kept (and reused when it exists), e.g. for `cold_start.py --store` with a big History.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from xdisplay import qt_display

import nfstune
from nfstune.store import Results, open_store

ROOT = Path(__file__).resolve().parents[2]
RUNS = (("baseline", "seq-write"), ("async", "seq-write"), ("baseline", "seq-read"), ("vers=3", "seq-read"))
REQUESTED = "vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp"
NEGOTIATED = "vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys"
PAIRS = (("nas", "client"), ("nas", "laptop"), ("backup", "client"), ("fileserver", "ws-12"))
BATCH = 250  # sessions a transaction while filling (one fsync each batch, not one per row)


def fill(path: Path, sessions: int, repeats: int) -> None:
    conn = open_store(path)
    results = Results(conn)
    rng = random.Random(1)
    hosts = {name: results.upsert_host(f"root@{name}:22", name, None) for pair in PAIRS for name in pair}
    started = time.monotonic()
    for number in range(sessions):
        if number % BATCH == 0:
            conn.execute("BEGIN")
        server, client = PAIRS[number % len(PAIRS)]
        sid = results.start_session(
            server_host=hosts[server],
            client_host=hosts[client],
            share="/export",
            scale=rng.choice(("small", "normal")),
            recipes=["quick-check"],
        )
        for label, workload in RUNS:
            config = {"label": label, "mount": {"vers": "3" if label == "vers=3" else "4.2"}}
            run = results.start_run(sid, recipe="quick-check", config_label=label, config=config, workload=workload)
            results.set_run_options(run, requested=REQUESTED, negotiated=NEGOTIATED, export="rw,sync,no_subtree_check")
            base = rng.uniform(40, 110)
            for repeat in range(repeats + 1):
                rate = base * rng.uniform(0.9, 1.1)
                results.add_repeat(
                    run,
                    repeat,
                    warmup=repeat == 0,
                    values={
                        "tool": "dd",
                        "bytes": 64 * 2**20,
                        "seconds": 64 * 2**20 / rate / 1e6,
                        "mb_per_s": rate,
                        "raw_output": f"67108864 bytes (67 MB, 64 MiB) copied, {67.1 / rate:.3f} s, {rate:.1f} MB/s",
                    },
                )
            results.end_run(run, "completed")
        for direction in ("to-server", "from-server"):
            results.add_baseline(
                sid,
                kind="network",
                direction=direction,
                mb_per_s=rng.uniform(100, 118),
                seconds=5.0,
                size=0,
                raw="iperf3 output",
            )
        ending = rng.random()
        if ending < 0.05:
            results.end_session(sid, "failed", "probing client: ssh: connection refused")
        elif ending < 0.1:
            results.end_session(sid, "cancelled", "cancelled by the user; every change was undone")
        else:
            results.end_session(sid, "completed")
        if number % BATCH == BATCH - 1 or number == sessions - 1:
            conn.execute("COMMIT")
    conn.close()
    print(
        f"filled {path} with {sessions} sessions in {time.monotonic() - started:.0f} s "
        f"({path.stat().st_size / 2**20:.0f} MiB)"
    )


def timed(action: Callable[[], object]) -> float:
    started = time.monotonic()
    action()
    return time.monotonic() - started


def spread(values: Sequence[float]) -> str:
    ms = [1000 * v for v in values]
    return f"min {min(ms):.0f} ms, median {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3, help="counted repeats a run (plus one warm-up)")
    parser.add_argument("--db", type=Path, help="the SQLite file (filled when it does not exist; default: a temp)")
    parser.add_argument("--times", type=int, default=5, help="how many times the page is opened")
    parser.add_argument("--platform", choices=("xvfb", "offscreen"), default="xvfb")
    args = parser.parse_args(argv)
    path = args.db or Path(tempfile.mkdtemp(prefix="nfstune-history-")) / "nfstune.sqlite3"
    if not path.exists():
        fill(path, args.sessions, args.repeats)
    with qt_display(args.platform) as where:
        measure(args, path, where)


def measure(args: argparse.Namespace, path: Path, where: str) -> None:
    from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer

    from nfstune.recipes.loader import default_recipe_dirs, load_recipes
    from nfstune.ui.app import application
    from nfstune.ui.jobs import Job, JobQueue
    from nfstune.ui.pages.history import HistoryPage

    class FirstPaint(QObject):
        painted = False

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
            if event.type() == QEvent.Type.Paint:
                self.painted = True
            return False

    class Stalls(QObject):
        """The longest the GUI thread's event loop went without running a 5 ms timer: how long the window did not
        answer (a freeze, whatever the GUI thread was doing: filling, sorting, sizing the columns, painting)."""

        def __init__(self) -> None:
            super().__init__()
            self.timer = QTimer(self)
            self.timer.setInterval(5)
            self.timer.timeout.connect(self.tick)
            self.last = self.longest = 0.0

        def start(self) -> None:
            self.last, self.longest = time.monotonic(), 0.0
            self.timer.start()

        def tick(self) -> None:
            now = time.monotonic()
            self.longest, self.last = max(self.longest, now - self.last), now

        def stop(self) -> float:
            self.tick()
            self.timer.stop()
            return self.longest

    app = application()
    stalls = Stalls()
    recipes = {r.id: r for r in load_recipes(default_recipe_dirs())[0]}
    queue = JobQueue()

    def background(
        name: str, work: Callable[[Job], object], done: Callable[[object], None], failed: Callable[[str], None]
    ) -> Job:
        """What the desktop gives the page for its reads and its HTML report (the controller's start_job, on no
        host); not timed."""
        job = Job(name, work)
        job.on_gui_thread(job.finished, done)
        job.on_gui_thread(job.failed, failed)
        return queue.add(job)

    def shown(page: HistoryPage, action: Callable[[], object]) -> float:
        """Seconds from `action` to the page's list shown: read on a worker thread, then filled on this one."""
        loop = QEventLoop()
        page.sessions_shown.connect(loop.quit)
        QTimer.singleShot(300_000, loop.quit)
        started = time.monotonic()
        action()
        loop.exec()
        page.sessions_shown.disconnect(loop.quit)
        return time.monotonic() - started

    opened = time.monotonic()
    results = Results(open_store(path))
    open_s = time.monotonic() - opened
    count = len(results.sessions())
    query = [timed(results.sessions) for _ in range(args.times)]
    create, to_model, to_paint, refresh, select = [], [], [], [], []
    filling: list[float] = []  # the GUI thread's own part: the table model filled, sorted and laid out
    freeze: list[float] = []  # the longest the event loop did not run, from showing the page to its rows painted
    for _ in range(args.times):
        started = time.monotonic()
        page = HistoryPage(results, recipes=recipes, store_path=path, background=background)
        create.append(time.monotonic() - started)
        set_sessions = page.model.set_sessions

        def timed_fill(rows: object, set_sessions: Callable[[object], None] = set_sessions) -> None:
            filling.append(timed(lambda: set_sessions(rows)))

        page.model.set_sessions = timed_fill  # type: ignore[method-assign]
        watcher = FirstPaint()
        page.table.viewport().installEventFilter(watcher)
        page.resize(1100, 700)
        stalls.start()
        to_model.append(shown(page, page.show))
        watcher.painted = False  # the empty table was painted while the rows were read: wait for them painted
        deadline = time.monotonic() + 120
        while not watcher.painted and time.monotonic() < deadline:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        to_paint.append(time.monotonic() - started)
        freeze.append(stalls.stop())
        if page.model.rowCount() != count:
            raise SystemExit(f"the table shows {page.model.rowCount()} sessions, the store holds {count}")
        refresh.append(shown(page, page.refresh))
        # the selected session is judged on a worker thread: the time until its figures are shown
        judged: list[int] = []
        page.details_shown.connect(judged.append)

        def select_and_wait(page: HistoryPage = page, judged: list[int] = judged) -> None:
            page.table.selectRow(0)
            deadline = time.monotonic() + 120
            while not judged and time.monotonic() < deadline:
                app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

        select.append(timed(select_and_wait))
        if not page.details.toPlainText().startswith("Session"):
            raise SystemExit(f"selecting the newest session showed {page.details.toPlainText()[:80]!r}")
        page.close()
        page.deleteLater()
        while queue.busy():  # the reads' threads end before the next page
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        app.processEvents()

    def painted(watcher: FirstPaint) -> None:
        deadline = time.monotonic() + 120
        while not watcher.painted and time.monotonic() < deadline:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

    def in_the_window() -> list[float]:
        """The History tab of the main window opened, Connect shown between: the longest the GUI thread did not
        answer each time, from the switch to the rows painted. A full collection of Python's garbage collector
        walks every object the process holds, and the window holds more (every page, every module) than the page
        alone above: this is the figure an admin meets."""
        from PySide6.QtCore import QSettings

        from nfstune.ui.main_window import MainWindow

        home = Path(tempfile.mkdtemp(prefix="nfstune-history-window-"))
        shutil.copy(path, home / "nfstune.sqlite3")  # the window marks interrupted sessions: a copy, not the file
        settings = QSettings(str(home / "nfstune.ini"), QSettings.Format.IniFormat)
        window = MainWindow(store_path=home / "nfstune.sqlite3", scale="small", settings=settings)
        window.resize(1100, 700)
        window.show()
        app.processEvents()
        history, longest = window.history_page, []
        for _ in range(args.times):
            watcher = FirstPaint()
            history.table.viewport().installEventFilter(watcher)
            stalls.start()
            shown(history, lambda: window.tabs.setCurrentWidget(history))
            watcher.painted = False
            painted(watcher)
            longest.append(stalls.stop())
            history.table.viewport().removeEventFilter(watcher)
            window.tabs.setCurrentIndex(0)
            while window.controller.queue.busy():
                app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        window.close()
        shutil.rmtree(home, ignore_errors=True)
        return longest

    window_freeze = in_the_window()

    code = Path(nfstune.__file__).resolve().parents[1]  # the app/ folder imported: this checkout's or PYTHONPATH's
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=code, capture_output=True, text=True)
    load = f"load {os.getloadavg()[0]:.1f}"  # other work on the machine moves every figure
    print(
        f"History with {count} sessions ({path}, {path.stat().st_size / 2**20:.0f} MiB), code of "
        f"{commit.stdout.strip() or code}, {os.cpu_count()} CPUs ({load}), {where}, "
        f"Python {sys.version.split()[0]}"
    )
    print(f"open_store: {1000 * open_s:.0f} ms; Results.sessions() alone, {args.times} times: {spread(query)}")
    print(f"creating the page (it reads nothing): {spread(create)}")
    print(
        f"showing the page to its list shown (read on a worker thread, filled on the GUI thread), {args.times} "
        f"times: {spread(to_model)} (first {1000 * to_model[0]:.0f} ms)"
    )
    print(f"  of which the GUI thread filling the table model: {spread(filling)}")
    print(f"  the longest the GUI thread did not answer, from showing the page to its rows painted: {spread(freeze)}")
    print(f"creating the page to the first paint of its rows: {spread(to_paint)} (first {1000 * to_paint[0]:.0f} ms)")
    print(f"refresh() (each switch to the History tab) to the list shown again: {spread(refresh)}")
    print(f"selecting the newest session (its figures): {spread(select)}")
    print(
        f"the History tab of the main window opened, {args.times} times: the longest the GUI thread did not answer, "
        f"from the switch to the rows painted: {spread(window_freeze)}"
    )


if __name__ == "__main__":
    main()
