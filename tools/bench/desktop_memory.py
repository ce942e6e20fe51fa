"""Memory of the desktop over many runs: one window, ten runs on the practice lab, the process's RSS printed after
each (and Python's own heap, traced, so that a growth can be told apart from the C libraries' caches).

A benchmark that prints figures, not a test. Usage (boots the lab if it is not up; about 2 min a run):

    .venv/bin/python tools/bench/desktop_memory.py [runs]

The runs use a small recipe of their own (two client-side configurations, 4 KiB synchronous writes, two rounds),
so that ten of them take minutes rather than hours; what is measured is the window's bookkeeping per run (the
plot's buffers, the pages rebuilt, the results read back, the jobs), which does not depend on the recipe's size.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/: run as a script, not a package
from drive import wait_until

RECIPE = """
id = "memory-bench"
title = "memory benchmark"
summary = "Two client-side configurations, 4 KiB synchronous writes."
why = "tools/bench/desktop_memory.py"
changes_host = "client"
workloads = ["sync-4k"]
baseline = "ra=128K"

[rounds]
min = 2
max = 2
warmup = 0

[[configs]]
label = "ra=128K"
read_ahead_kb = 128

[[configs]]
label = "ra=1M"
read_ahead_kb = 1024
"""


def main(runs: int) -> int:
    subprocess.run([sys.executable, "-m", "nfstune", "lab", "up"], check=True)
    data = Path(tempfile.mkdtemp(prefix="nfstune-memory-"))
    (data / "nfstune" / "recipes").mkdir(parents=True)
    (data / "nfstune" / "recipes" / "memory-bench.toml").write_text(RECIPE)
    os.environ["XDG_DATA_HOME"] = str(data)  # the user's recipes folder, and nothing of the real user's touched
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtCore import QSettings, Qt

    from nfstune.ui.app import application
    from nfstune.ui.main_window import MainWindow

    app = application()
    settings = QSettings(str(data / "nfstune.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_path=data / "nfstune.sqlite3", scale="small", settings=settings)
    window.resize(1366, 768)
    window.show()

    def wait(condition: Callable[[], object], seconds: float, what: str) -> None:
        wait_until(condition, seconds, what, "desktop_memory")

    def settle() -> None:
        for _ in range(20):
            app.processEvents()
        gc.collect()

    me = psutil.Process()
    window.controller.connect_lab()
    wait(window.connect_page.is_complete, 300, "the lab connections")
    window.go(1)
    wait(lambda: window.controller.probe is not None, 180, "the probe")
    window.go(2)
    for row in range(window.recipes_page.recipe_list.count()):
        item = window.recipes_page.recipe_list.item(row)
        wanted = item.data(Qt.ItemDataRole.UserRole + 1) == "memory-bench" or item.text() == "memory benchmark"
        item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)
    settle()
    assert window.recipes_page.selected_ids() == ["memory-bench"], window.recipes_page.selected_ids()
    tracemalloc.start()
    settle()
    start_rss, start_heap = me.memory_info().rss, tracemalloc.get_traced_memory()[0]
    print(f"before the first run: RSS {start_rss / 2**20:.1f} MiB, Python heap {start_heap / 2**20:.1f} MiB")
    print("run  seconds  RSS MiB  +MiB  heap MiB  +MiB")
    previous = (start_rss, start_heap)
    snapshot = tracemalloc.take_snapshot()
    for run in range(1, runs + 1):
        began = time.monotonic()
        window.start_run()
        wait(lambda: not window.run_page.running, 1800, f"the end of run {run}")
        outcome = window.controller.outcome
        if outcome is None or outcome.status != "completed":
            raise SystemExit(f"desktop_memory: run {run} did not complete: {window.run_page.current.text()}")
        window.go(2)  # back to the Recipes page, as an admin starting another run
        settle()
        rss, heap = me.memory_info().rss, tracemalloc.get_traced_memory()[0]
        print(
            f"{run:3}  {time.monotonic() - began:7.0f}  {rss / 2**20:7.1f}  {(rss - previous[0]) / 2**20:+4.1f}"
            f"  {heap / 2**20:8.1f}  {(heap - previous[1]) / 2**20:+4.1f}",
            flush=True,
        )
        previous = (rss, heap)
    rss, heap = previous
    grown = (rss - start_rss) / 2**20
    print(
        f"over {runs} runs: RSS {grown:+.1f} MiB ({grown / runs:+.2f} a run), "
        f"Python heap {(heap - start_heap) / 2**20:+.1f} MiB"
    )
    print("where the Python heap grew most since before the first run:")
    for stat in tracemalloc.take_snapshot().compare_to(snapshot, "lineno")[:8]:
        print(f"  {stat.size_diff / 1024:+8.0f} KiB  {stat.traceback[0]}")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10))
