"""Driving the real window from a script (tools/screenshots.py, tools/bench/desktop_memory.py): wait for what the
jobs report while the event loop runs, as an admin waits for the window."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], object], seconds: float, what: str, who: str) -> None:
    """Run the event loop until `condition` holds (polled by a timer), or stop the script naming `what`."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop, deadline = QEventLoop(), time.monotonic() + seconds
    timer = QTimer(interval=200)
    timer.timeout.connect(lambda: loop.quit() if condition() or time.monotonic() > deadline else None)
    timer.start()
    if not condition():
        loop.exec()
    timer.stop()
    if not condition():
        raise SystemExit(f"{who}: gave up waiting for {what} after {seconds:.0f} s")
