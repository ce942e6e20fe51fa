"""Where a report goes: a file, or standard output when the path given is `-` (a file named "-" is `./-`).

When a report goes to standard output, nfstune's other lines (progress, "wrote ...") go to standard error, so that
what a script reads from the pipe is the report alone.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from nfstune.errors import ConfigError


@dataclass(frozen=True)
class StandardOutput:
    """`-` given for an output file. Keeps the stream standard output was when the arguments were read, so the
    report still goes there while the other lines are sent to standard error."""

    stream: TextIO = field(default_factory=lambda: sys.stdout, compare=False)

    def __str__(self) -> str:
        return "standard output"


Output = Path | StandardOutput


def write_output(target: Output, text: str) -> None:
    if isinstance(target, StandardOutput):
        target.stream.write(text)
        target.stream.flush()
        return
    try:
        target.write_text(text)
    except OSError as error:  # its folder was checked with the arguments; the disk may fill or the folder go since
        raise ConfigError(f"cannot write {target}: {error.strerror or error}") from None


def to_stdout(*targets: Output | None) -> bool:
    return any(isinstance(t, StandardOutput) for t in targets)


@contextmanager
def others_to_stderr(*targets: Output | None) -> Iterator[None]:
    """While inside, print() goes to standard error when one of `targets` is standard output."""
    if not to_stdout(*targets):
        yield
        return
    with redirect_stdout(sys.stderr):
        yield
