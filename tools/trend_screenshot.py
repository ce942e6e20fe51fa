"""History's Trend tab as a PNG, taken from the real window on a private Xvfb (xcb: real X painting, not Qt's
offscreen platform): the window opened on a copy of a store that holds sessions of one pair of hosts, History
shown, the newest session selected, its Trend tab open. At 1366x768 (history-trend.png, the README's) and at
1024x700 (history-trend-1024x700.png, the smallest window the pages must be readable in).

    PYTHONPATH=app .venv/bin/python tools/trend_screenshot.py /tmp/trend-demo/data/nfstune/nfstune.sqlite3

The store is copied first (SQLite's backup: consistent even while a run writes it); the window never writes the one
given. The README says which lab sessions made docs/screenshots/history-trend.png.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
SIZES = {"history-trend": (1366, 768 - 30), "history-trend-1024x700": (1024, 700)}  # 30: a panel on the screen


def take(store: Path, out: Path) -> int:
    sys.path[:0] = [str(TOOLS), str(TOOLS / "bench")]
    from xdisplay import qt_display

    from drive import wait_until

    with qt_display("xvfb"):
        from PySide6.QtCore import QSettings
        from PySide6.QtTest import QTest

        from nfstune.ui.app import application
        from nfstune.ui.main_window import MainWindow

        app = application()
        tmp = Path(tempfile.mkdtemp(prefix="nfstune-trend-shot-"))
        with sqlite3.connect(store) as source, sqlite3.connect(tmp / "nfstune.sqlite3") as copy:
            source.backup(copy)
        settings = QSettings(str(tmp / "nfstune.ini"), QSettings.Format.IniFormat)
        window = MainWindow(store_path=tmp / "nfstune.sqlite3", scale="small", settings=settings)
        history = window.history_page
        for name, (width, height) in SIZES.items():
            window.setGeometry(0, 0, width, height)
            window.show()
            window.tabs.setCurrentWidget(history)
            history.table.selectRow(0)  # the newest session
            history.bottom_tabs.setCurrentWidget(history.trend)
            wait_until(lambda: history.trend.chart.plots and not history.trend._loading, 60, "the trend", "trend")
            QTest.qWait(900)  # laid out and painted at this size
            app.processEvents()
            target = out / f"{name}.png"
            if not window.grab().save(str(target), "PNG"):
                raise SystemExit(f"could not write {target}")
            print(f"wrote {target}", flush=True)
        window.close()
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit("usage: trend_screenshot.py STORE [OUT_DIR (docs/screenshots)]")
    out = Path(sys.argv[2] if len(sys.argv) == 3 else "docs/screenshots").resolve()
    out.mkdir(parents=True, exist_ok=True)
    raise SystemExit(take(Path(sys.argv[1]), out))
