"""A private Xvfb for tests that need a real X window (not Qt's offscreen platform): the window's frame, the
screen's available geometry and painting are those of xcb. The same as tools/bench/xdisplay.py's, with the
screen's size given (the tests try the small screens the window must fit)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def xvfb(width: int, height: int) -> Iterator[str]:
    """A new Xvfb of one `width`x`height` screen on a free display number (Xvfb picks it and writes it to a
    pipe); yields ":N"."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        if not number:
            raise RuntimeError(f"Xvfb did not start (exit {proc.poll()})")
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
