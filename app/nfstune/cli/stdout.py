"""Standard output as the command writes it: a write that fails (a full disk, an I/O error, a descriptor closed
before nfstune started) is OutputError, which main says in one line and exits 2 on.

Python's own standard output raises a plain OSError, which cannot be told apart from any other (a network error,
a file nfstune reads), and flushes what is left when the interpreter exits, printing "Exception ignored" when
that fails. Here the failure is raised once, at the write or flush that met it; what is written after it is
dropped, so that an undo running after the error is not stopped by its own progress lines, and nothing is left to
fail at exit. A reader gone (BrokenPipeError) stays what it is: exits.py says nothing of it.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

STDOUT = 1


class OutputError(Exception):
    """Standard output could not be written; str() says why, in plain words. Not an OSError, so that no handler
    of a network or file error takes it for its own."""


class _Descriptor(io.FileIO):
    def __init__(self, closed_before: bool) -> None:
        super().__init__(STDOUT, "w", closefd=False)
        self.failed = "standard output is closed" if closed_before else ""
        self.said = False

    def write(self, data: ReadableBuffer, /) -> int:
        if self.said:
            return memoryview(data).nbytes  # said once: the rest goes nowhere
        if not self.failed:
            try:
                return super().write(data)
            except BrokenPipeError:
                raise
            except OSError as error:
                self.failed = error.strerror or str(error)
        self.said = True
        raise OutputError(self.failed)


def _descriptor_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


@contextmanager
def checked_stdout() -> Iterator[None]:
    """While inside, sys.stdout raises OutputError for a write that fails. Left as it is when something else
    (a test's capture) has replaced standard output."""
    original = sys.stdout
    if original is not sys.__stdout__:
        yield
        return
    closed = original is None or not _descriptor_open(STDOUT)
    if closed:  # kept taken, so that no file nfstune opens becomes descriptor 1, where children would write
        devnull = os.open(os.devnull, os.O_WRONLY)
        if devnull != STDOUT:
            os.dup2(devnull, STDOUT)
            os.close(devnull)
    stream = io.TextIOWrapper(
        io.BufferedWriter(_Descriptor(closed)),
        encoding=original.encoding if original else "utf-8",
        errors=original.errors if original else "strict",
        newline="\n",  # as Python's own standard output on POSIX: written as given (a CSV keeps its \r\n)
        line_buffering=original.line_buffering if original else False,
        write_through=original.write_through if original else False,
    )
    sys.stdout = stream
    try:
        yield
    finally:
        sys.stdout = original
