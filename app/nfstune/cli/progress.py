"""The progress lines the commands print while they work (`lab`, `demo`, `run`, `apply`)."""

from __future__ import annotations

import sys
import time


class Printer:
    """Progress lines for a terminal: repeated 'waiting' lines overwrite each other on a TTY."""

    def __init__(self) -> None:
        self._tty = sys.stdout.isatty()
        self._t0 = time.monotonic()
        self._open_line = False

    def __call__(self, message: str) -> None:
        text = f"[{time.monotonic() - self._t0:5.0f}s] {message}"
        if self._tty and message.startswith("waiting"):
            sys.stdout.write("\r\033[K" + text)
            self._open_line = True
        else:
            sys.stdout.write(("\n" if self._open_line else "") + text + "\n")
            self._open_line = False
        sys.stdout.flush()
