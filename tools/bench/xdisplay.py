"""An X display for the desktop benchmarks: a private Xvfb (or Qt's offscreen platform), and a watcher that
notes when a top-level window is mapped (the X server's MapNotify on the root window, read through libX11 with
ctypes: no hook in the app).

Not a benchmark itself; imported by cold_start.py, event_loop_lateness.py and history_open.py (which run as
scripts, with this folder first on sys.path).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

MAP_NOTIFY = 19
SUBSTRUCTURE_NOTIFY_MASK = 1 << 19
SCREEN = "1280x1024x24"


@contextmanager
def xvfb() -> Iterator[str]:
    """A new Xvfb on a free display number (it picks one and writes it to a pipe); yields ":N"."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", SCREEN, "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        if not number:
            raise SystemExit(f"Xvfb did not start (exit {proc.poll()})")
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextmanager
def qt_display(platform: str) -> Iterator[str]:
    """Before the QApplication exists: "xvfb" runs this process' Qt on a private Xvfb (xcb, real X painting),
    "offscreen" on Qt's offscreen platform. Yields a description for the printout."""
    if platform == "offscreen":
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        yield "Qt offscreen platform"
        return
    with xvfb() as display:
        os.environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb")
        yield f"Xvfb {SCREEN} without a window manager"


class _MapEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("event", ctypes.c_ulong),
        ("window", ctypes.c_ulong),
        ("override_redirect", ctypes.c_int),
    ]


class _XEvent(ctypes.Union):
    _fields_ = [("type", ctypes.c_int), ("xmap", _MapEvent), ("pad", ctypes.c_long * 24)]


@dataclass(frozen=True)
class Mapped:
    at: float  # time.monotonic() when the event was read
    window: int
    name: str


class MapWatcher:
    """Listens on the root window of `display` for top-level windows being mapped. Listening starts (and the
    server has confirmed it) when the constructor returns, so a client started afterwards cannot be missed."""

    def __init__(self, display: str) -> None:
        self._x = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
        self._x.XOpenDisplay.restype = ctypes.c_void_p
        self._x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self._x.XDefaultRootWindow.restype = ctypes.c_ulong
        self._x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        self._x.XSelectInput.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_long]
        self._x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self._x.XPending.argtypes = [ctypes.c_void_p]
        self._x.XNextEvent.argtypes = [ctypes.c_void_p, ctypes.POINTER(_XEvent)]
        self._x.XConnectionNumber.argtypes = [ctypes.c_void_p]
        self._x.XFetchName.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_char_p)]
        self._x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self._display = self._x.XOpenDisplay(display.encode())
        if not self._display:
            raise SystemExit(f"cannot open X display {display}")
        root = self._x.XDefaultRootWindow(self._display)
        self._x.XSelectInput(self._display, root, SUBSTRUCTURE_NOTIFY_MASK)
        self._x.XSync(self._display, 0)  # the selection is in force on the server before we return
        self._fd = self._x.XConnectionNumber(self._display)

    def discard_pending(self) -> None:
        """Forget what happened so far (an earlier client's windows)."""
        event = _XEvent()
        while self._x.XPending(self._display) > 0:
            self._x.XNextEvent(self._display, ctypes.byref(event))

    def next_mapped(self, timeout_s: float, title: str = "") -> Mapped | None:
        """The next top-level window mapped (not a popup or a tooltip) whose title contains `title`, or None
        after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        event = _XEvent()
        while True:
            while self._x.XPending(self._display) > 0:
                self._x.XNextEvent(self._display, ctypes.byref(event))
                if event.type == MAP_NOTIFY and not event.xmap.override_redirect:
                    at = time.monotonic()
                    name = self._name(event.xmap.window)
                    if title in name:
                        return Mapped(at, event.xmap.window, name)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            select.select([self._fd], [], [], left)

    def _name(self, window: int) -> str:
        name = ctypes.c_char_p()
        # the returned string is Xlib's to free; a few bytes per run of a benchmark, left alone
        if self._x.XFetchName(self._display, window, ctypes.byref(name)) and name.value:
            return name.value.decode("latin-1")
        return ""

    def close(self) -> None:
        self._x.XCloseDisplay(self._display)
