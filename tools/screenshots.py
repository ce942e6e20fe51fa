"""`make screenshots`: every page of the desktop assistant from a real window under Xvfb (not offscreen), while it
drives a real session on the practice lab: connect, preflight, recipes, the run (a minute in, and once the first
verdicts are drawn), results, the recommendation with the async box opened, the apply diff (then cancelled:
nothing is applied), and the history; each page at 1366x768 and at 1024x700 (the smallest window the pages must be
readable in), and the whole drive twice: in the light theme and in the dark one, each with a run of its own. Also
the lab window and the exported report (as a browser shows it).

Names: `<n>-<page>-<width>x<height>-<light|dark>.png`. Boots the practice lab if it is not up (it stays up). The
sessions are stored in a temporary store, not the user's; with SHOTS_STORE=path/to/nfstune.sqlite3 that store
starts as a copy of the one given (the Recipes page then shows its estimate from those runs, and History has them).
Takes about as long as two quick-check runs on the lab.
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

sys.path.insert(0, str(Path(__file__).resolve().parent / "bench"))
from lateness_probe import LatenessProbe, percentiles

from drive import wait_until  # tools/ is this script's own folder

SCREEN = "1366x768x24"  # the largest window shot; the screen holds it whole
SIZES = ((1366, 768), (1024, 700))
THEMES = ("light", "dark")
# (file name's start, what the page shows), in the order an admin meets them
PAGES = (
    ("0-start", "The first window"),
    ("1-connect", "Connect: both hosts connected"),
    ("2-preflight", "Preflight: problems first, the two hosts as cards"),
    ("3-recipes", "Recipes: each with its time, what it changes and a mark where async runs"),
    ("4-run-first-minute", "Run, a minute in: the live charts and the visit grid"),
    ("4-run-verdicts", "Run, after a round: the verdicts forming"),
    ("5-results", "Results: the answer, the verdict plot and what limits each workload"),
    ("6-recommendation", "Recommendation: the decision first, the async box opened"),
    ("8-history", "History: a stored session's pictures"),
)


def drive(out: Path, theme: str) -> int:
    """Runs inside the X display: the assistant, driven like a user would, each page shot at both sizes."""
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QDialog, QWidget

    from nfstune.ui.app import application
    from nfstune.ui.main_window import MainWindow
    from nfstune.ui.theme import dark_palette

    app = application()
    if theme == "dark":  # as a dark desktop tells Qt at start (the xcb platform on Xvfb has no desktop to ask)
        app.styleHints().setColorScheme(Qt.ColorScheme.Dark)
        app.setPalette(dark_palette())
    tmp = Path(tempfile.mkdtemp(prefix="nfstune-shots-"))
    if os.environ.get("SHOTS_STORE"):
        with sqlite3.connect(os.environ["SHOTS_STORE"]) as source, sqlite3.connect(tmp / "nfstune.sqlite3") as copy:
            source.backup(copy)  # consistent even while another process writes it
    settings = QSettings(str(tmp / "nfstune.ini"), QSettings.Format.IniFormat)
    w = MainWindow(store_path=tmp / "nfstune.sqlite3", scale="small", settings=settings)
    w.setGeometry(0, 0, *SIZES[0])
    w.show()

    def wait(condition: Callable[[], object], seconds: float, what: str) -> None:
        """The event loop runs (jobs report, pages update) until `condition` holds."""
        wait_until(condition, seconds, what, "screenshots")
        QTest.qWait(700)  # let the page settle and repaint

    def save(widget: QWidget, name: str) -> None:
        target = out / f"{name}-{theme}.png"
        if not widget.grab().save(str(target)):
            raise SystemExit(f"screenshots: could not write {target}")
        print(f"wrote {target}", flush=True)

    shooting: list[tuple[float, float]] = []  # (start, end) of each snap: its resizes are the script's, not the run's

    def snap(name: str) -> None:
        start = time.monotonic()
        for width, height in SIZES:
            w.setGeometry(0, 0, width, height)
            QTest.qWait(600)  # laid out and repainted at the new size
            save(w, f"{name}-{width}x{height}")
        w.setGeometry(0, 0, *SIZES[0])
        QTest.qWait(300)
        shooting.append((start, time.monotonic()))

    snap("0-start")
    w.controller.connect_lab()
    wait(w.connect_page.is_complete, 300, "the lab connections")
    snap("1-connect")
    w.go(1)
    wait(lambda: w.controller.probe is not None, 180, "the probe")
    snap("2-preflight")
    w.go(2)
    recipes = w.recipes_page
    for row in range(recipes.recipe_list.count()):  # quick-check, which compares: the verdicts to shoot
        wanted = recipes._id_at(row) == "quick-check"
        recipes.recipe_list.item(row).setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)
        if wanted:
            recipes.recipe_list.setCurrentRow(row)
    if recipes.selected_ids() != ["quick-check"]:
        raise SystemExit(f"screenshots: could not choose quick-check, the page has {recipes.selected_ids()}")
    QTest.qWait(500)
    snap("3-recipes")
    probe = LatenessProbe()  # the GUI thread's lateness through the real run (issue 39: p99 at most 20 ms)
    probe.start()
    started = time.monotonic()
    w.start_run()
    wait(lambda: len(w.run_page.plot.buffers["client_write"]) > 20, 600, "a minute of live samples")
    snap("4-run-first-minute")
    wait(lambda: bool(w.run_page.recipe_panel.rows) or not w.run_page.running, 3600, "the first round's verdicts")
    snap("4-run-verdicts")
    wait(lambda: not w.run_page.running, 3600, "the end of the run")
    probe.stop()
    grid = w.run_page.recipe_panel.grid.table
    run_only = [late for at, late in probe.probes if not any(a <= at <= b + 0.5 for a, b in shooting)]
    print(
        f"GUI event loop lateness through the lab run ({theme}, {time.monotonic() - started:.0f} s, load "
        f"{os.getloadavg()[0]:.1f}; visit grid {grid.rowCount()}x{grid.columnCount()}, "
        f"{len(w.run_page.recipe_panel.rows)} verdict rows): {percentiles(run_only)}; with the screenshots' "
        f"resizes: {percentiles(probe.lateness())}",
        flush=True,
    )
    if w.controller.outcome is None or w.controller.outcome.status != "completed":
        raise SystemExit(f"screenshots: the run did not complete: {w.run_page.current.text()}")
    snap("5-results")
    w.go(5)
    w.recommendation_page.show_async_check.setChecked(True)
    QTest.qWait(500)
    snap("6-recommendation")
    w.recommendation_page.apply_button.click()
    wait(lambda: getattr(w, "apply_dialog", None) is not None and w.apply_dialog.isVisible(), 120, "the apply diff")
    save(w.apply_dialog, "7-apply-diff")
    w.apply_dialog.done(QDialog.DialogCode.Rejected)  # nothing is applied
    w.tabs.setCurrentIndex(1)  # History reads its sessions on a worker thread as it opens
    wait(lambda: w.history_page.model.rowCount() > 0, 60, "History's sessions")
    w.history_page.table.selectRow(0)
    # the selected session is judged on a worker, then drawn
    wait(lambda: w.history_page.session_view.showing_pictures, 120, "History's pictures of the session")
    snap("8-history")
    if theme == "light":  # the report is a page of its own, the same in either theme
        report = out / "report.html"
        report.unlink(missing_ok=True)
        w.history_page.ask_save_path = lambda *_args: (str(report), "")  # History's own export, as clicked
        w.history_page.export_buttons["html"].click()
        wait(report.exists, 60, "the exported report")
    w.close()
    if theme == "light":
        shoot_report(out / "report.html", out / "9-report.png")
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


def write_index(out: Path) -> None:
    """out/README.md: every shot, a row a page, a column a size and theme."""
    columns = [(f"{w}x{h}", theme) for theme in THEMES for w, h in SIZES]
    lines = [
        "# Screenshots",
        "",
        "Taken by `make screenshots` (tools/screenshots.py) from a real window under Xvfb during and after a",
        "quick-check run on the practice lab, in the light theme and the dark one, each page at 1366x768 and 1024x700.",
        "",
        "| page | " + " | ".join(f"{size} {theme}" for size, theme in columns) + " |",
        "| --- |" + " --- |" * len(columns),
    ]
    for name, words in PAGES:
        cells = [
            f'<a href="{name}-{size}-{theme}.png"><img src="{name}-{size}-{theme}.png" width="220"></a>'
            for size, theme in columns
        ]
        lines.append(f"| {words} | " + " | ".join(cells) + " |")
    shots = " · ".join(f"[{theme}](7-apply-diff-{theme}.png)" for theme in THEMES)
    lines += [
        "",
        f"Apply, the exact diff first (then cancelled): {shots}. The exported report: [9-report.png](9-report.png)",
        "([report.html](report.html)). The lab window: [lab-window.png](lab-window.png).",
        "",
    ]
    (out / "README.md").write_text("\n".join(lines))
    print(f"wrote {out / 'README.md'}", flush=True)


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
        for theme in THEMES:
            subprocess.run([sys.executable, __file__, "--drive", str(out), theme], env=env, check=True)
        write_index(out)
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(timeout=10)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--drive"]:
        raise SystemExit(drive(Path(sys.argv[2]), sys.argv[3]))
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
