"""`make screenshots`: a PNG of every page of the desktop assistant, taken from a real window under Xvfb (not
offscreen), while it drives a real session on the practice lab: connect, preflight, recipes, a run of
quick-check (mid-run), results, the recommendation with the async box opened, the apply diff (then cancelled:
nothing is applied), and the history. Also the lab window.

Boots the practice lab if it is not up (it stays up). The session is stored in a temporary store, not the user's;
with SHOTS_STORE=path/to/nfstune.sqlite3 that store starts as a copy of the one given (the Recipes page then shows
its estimate from those runs, and History has them). Takes about as long as a quick-check run on the lab.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from drive import wait_until  # tools/ is this script's own folder

SCREEN = "1366x768x24"  # the smallest screen the window must be usable on
W, H = 1366, 768


def shoot(out: Path, name: str) -> None:
    target = out / f"{name}.png"
    subprocess.run(["import", "-window", "root", str(target)], check=True)
    subprocess.run(["convert", str(target), "-trim", "+repage", str(target)], check=True)  # drop the empty screen
    print(f"wrote {target}", flush=True)


def drive(out: Path) -> int:
    """Runs inside the X display: the assistant, driven like a user would, a screenshot at every page."""
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QDialog

    from nfstune.ui.app import application
    from nfstune.ui.main_window import MainWindow

    app = application()
    tmp = Path(tempfile.mkdtemp(prefix="nfstune-shots-"))
    if os.environ.get("SHOTS_STORE"):
        with sqlite3.connect(os.environ["SHOTS_STORE"]) as source, sqlite3.connect(tmp / "nfstune.sqlite3") as copy:
            source.backup(copy)  # consistent even while another process writes it
    settings = QSettings(str(tmp / "nfstune.ini"), QSettings.Format.IniFormat)
    w = MainWindow(store_path=tmp / "nfstune.sqlite3", scale="small", settings=settings)
    w.setGeometry(0, 0, W, H - 30)
    w.show()

    def wait(condition: Callable[[], object], seconds: float, what: str) -> None:
        """The event loop runs (jobs report, pages update) until `condition` holds."""
        wait_until(condition, seconds, what, "screenshots")
        QTest.qWait(700)  # let the page settle and repaint

    def snap(name: str) -> None:
        app.processEvents()
        shoot(out, name)

    w.controller.connect_lab()
    wait(w.connect_page.is_complete, 300, "the lab connections")
    snap("1-connect")
    w.go(1)
    wait(lambda: w.controller.probe is not None, 180, "the probe")
    snap("2-preflight")
    w.go(2)
    QTest.qWait(500)
    snap("3-recipes")
    w.start_run()
    wait(lambda: len(w.run_page.plot.buffers["client_write"]) > 20, 600, "a minute of live samples")
    snap("4-run")
    wait(lambda: not w.run_page.running, 3600, "the end of the run")
    if w.controller.outcome is None or w.controller.outcome.status != "completed":
        raise SystemExit(f"screenshots: the run did not complete: {w.run_page.current.text()}")
    snap("5-results")
    w.resize(1024, 700)  # the smallest window the pages must be readable in (issue 12)
    QTest.qWait(900)
    snap("5-results-1024x700")
    w.setGeometry(0, 0, W, H - 30)
    w.go(5)
    w.recommendation_page.show_async_check.setChecked(True)
    QTest.qWait(500)
    snap("6-recommendation")
    w.recommendation_page.apply_button.click()
    wait(lambda: getattr(w, "apply_dialog", None) is not None and w.apply_dialog.isVisible(), 120, "the apply diff")
    snap("7-apply-diff")
    w.apply_dialog.done(QDialog.DialogCode.Rejected)  # nothing is applied
    w.tabs.setCurrentIndex(1)  # History reads its sessions on a worker thread as it opens
    wait(lambda: w.history_page.model.rowCount() > 0, 60, "History's sessions")
    w.history_page.table.selectRow(0)
    QTest.qWait(700)
    snap("8-history")
    report = out / "report.html"
    report.unlink(missing_ok=True)
    w.history_page.ask_save_path = lambda *_args: (str(report), "")  # History's own export, as the admin clicks it
    w.history_page.export_buttons["html"].click()
    wait(report.exists, 60, "the exported report")
    w.close()
    shoot_report(report, out / "9-report.png")
    return 0


def shoot_report(report: Path, target: Path) -> None:
    """The exported report as a browser shows it: Debian's chromium, headless, in a network namespace of its own
    (loopback only: the report is one self-contained file, and the browser must not reach anything else)."""
    subprocess.run(
        [
            "unshare",
            "--net",
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-background-networking",
            f"--screenshot={target}",
            "--window-size=1000,2200",
            report.as_uri(),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=120,
    )
    print(f"wrote {target}", flush=True)


def main(out_dir: str) -> int:
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    nfstune = [sys.executable, "-m", "nfstune"]
    subprocess.run([*nfstune, "lab", "up"], check=True)
    env = dict(os.environ)
    xvfb = None
    if not env.get("DISPLAY"):
        env["DISPLAY"] = ":99"
        xvfb = subprocess.Popen(["Xvfb", ":99", "-screen", "0", SCREEN, "-nolisten", "tcp"])
        time.sleep(1.5)
    env["QT_QPA_PLATFORM"] = "xcb"
    try:
        lab_window = subprocess.Popen([*nfstune, "lab-window"], env=env)
        try:
            time.sleep(12)  # window up, first SSH poll of both VMs done
            if lab_window.poll() is not None:
                raise SystemExit(f"nfstune lab-window exited early with status {lab_window.returncode}")
            subprocess.run(["import", "-window", "root", str(out / "lab-window.png")], env=env, check=True)
            subprocess.run(["convert", str(out / "lab-window.png"), "-trim", "+repage", str(out / "lab-window.png")])
        finally:
            lab_window.terminate()
            lab_window.wait(timeout=15)
        subprocess.run([sys.executable, __file__, "--drive", str(out)], env=env, check=True)
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(timeout=10)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--drive"]:
        raise SystemExit(drive(Path(sys.argv[2])))
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
