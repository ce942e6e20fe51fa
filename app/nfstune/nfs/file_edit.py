"""A file's change as the admin reviews it before Apply (or its Undo) writes it: the exact new bytes, the sha256 of
the bytes they were made from (a file changed since is refused), and the unified diff shown. nfs/exports_rewrite.py
and nfs/fstab_rewrite.py make them."""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass

from nfstune.errors import ConfigError

_LINES = re.compile(r"[^\n]*\n|[^\n]+")  # lines split on "\n" only: a CR, VT or FF stays inside its line


@dataclass(frozen=True)
class FileEdit:
    """One file's change as the admin sees it: `old` is None when the file does not exist yet."""

    host: str  # the host's label
    path: str
    old: bytes | None
    new: bytes
    old_sha256: str | None  # of `old`; None when the file does not exist
    diff: str  # unified diff, a/PATH -> b/PATH; "" for a no-op
    note: str = ""  # how the edit was made (which file, which line), for the preview

    @property
    def noop(self) -> bool:
        return self.old == self.new

    @property
    def summary(self) -> str:
        if self.noop:
            return f"{self.host}: {self.path} already reads as recommended: nothing to change"
        return f"{self.host}: {self.path}: {self.note}" if self.note else f"{self.host}: {self.path}"


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def text_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")  # bytes that are not UTF-8 come back as they were read


def unified_diff(path: str, old: bytes | None, new: bytes) -> str:
    """`diff -u` of the two versions, with git's file names and its "\\ No newline at end of file" marks."""
    if old == new:
        return ""

    def lines(data: bytes | None) -> list[str]:
        return _LINES.findall(data.decode("utf-8", "backslashreplace")) if data else []

    out = []
    fromfile = "/dev/null" if old is None else "a" + path
    for line in difflib.unified_diff(lines(old), lines(new), fromfile, "b" + path):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def file_edit(host: str, path: str, old: bytes | None, new: bytes, note: str = "") -> FileEdit:
    return FileEdit(host, path, old, new, sha256(old), unified_diff(path, old, new), note)


def one_line(line: str, what: str) -> str:
    text = line[:-1] if line.endswith("\n") else line
    if "\n" in text or not text.strip():
        raise ConfigError(f"the new {what} line must be one line of text: {line!r}")
    return text
