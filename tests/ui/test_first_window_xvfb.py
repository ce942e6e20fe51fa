"""The first window in a real X window on the small screens it must fit (1024x700, 1366x768): its frame inside the
screen's available area, the focus on the server's host, every widget of the pages one can see before connecting
(Connect, Recipes with each recipe's details, the plan, History) whole or reachable by scrolling. Each screen is a
private Xvfb; the window runs in a child process (tests/ui/first_window_child.py) because pytest-qt's QApplication
here is on the offscreen platform. Its screenshots are kept in the test's tmp_path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QRect

from tests.ui.xserver import xvfb

ROOT = Path(__file__).resolve().parents[2]  # where `tests.ui.first_window_child` is importable from
SCREENS = [(1024, 700), (1366, 768)]
SHOTS = (
    "first-window.png",
    "screen.png",
    "recipes-before-connecting.png",
    "plan-before-connecting.png",
    "connection-error.png",
)

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (make system-deps installs it)")


def first_window(width: int, height: int, out: Path) -> dict[str, object]:
    with xvfb(width, height) as display:
        env = os.environ | {
            "DISPLAY": display,
            "QT_QPA_PLATFORM": "xcb",
            "PYTHONPATH": os.pathsep.join(sys.path),
            "XDG_CONFIG_HOME": str(out / "config"),  # nothing of the user's own settings
        }
        child = [sys.executable, "-m", "tests.ui.first_window_child", str(out)]
        done = subprocess.run(child, capture_output=True, text=True, env=env, cwd=ROOT, timeout=180)
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def inside(outer: object, inner: object) -> bool:
    assert isinstance(outer, list) and isinstance(inner, list)
    return QRect(*outer).contains(QRect(*inner))


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_the_first_window_fits_the_screen_with_nothing_cut(width: int, height: int, tmp_path: Path) -> None:
    found = first_window(width, height, tmp_path)
    assert found["available"] == [0, 0, width, height]  # Xvfb without a window manager: the whole screen
    assert inside(found["available"], found["frame"]), found
    assert found["active"] and found["focus_on_server_host"], found["focus"]
    for page in ("connect", "recipes", "plan", "history"):
        assert found[page] == {}, f"{page}: {found[page]}"  # what is cut, and why
    # the Recipes page before connecting: readable, its plan shown, no run to start yet
    assert found["recipes_shown"] and not found["start_enabled"]
    assert "Connect both hosts first" in str(found["start_tooltip"])
    assert inside(found["available"], found["plan_frame"])
    assert "placeholder hosts" in str(found["plan_title"])
    # a refused connection in plain words, Python's text behind Details, the page whole or scrolled to
    error = found["connection_error"]
    assert isinstance(error, dict) and error["cut"] == {}, error
    assert "refused the connection" in str(error["state"]) and "Errno" not in str(error["state"]), error
    assert "ConnectionRefusedError" in str(error["details"]), error
    assert all((tmp_path / shot).stat().st_size > 10_000 for shot in SHOTS)  # painted, not an empty image
