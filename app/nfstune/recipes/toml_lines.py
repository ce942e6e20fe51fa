"""Where each key of a recipe file is: tomllib gives no positions, so KeyLines scans the (already valid) TOML text
once more for the line of every key and array element, and an error can say file:line: key."""

from __future__ import annotations

import contextlib
import re
import tomllib
from bisect import bisect_left

KeyPath = tuple[str | int, ...]
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR = re.compile(r"[^,\]}\r\n#]+")  # a number, boolean or date: up to the next delimiter


def dotted(path: KeyPath) -> str:
    """("configs", 2, "mount") -> "configs[2].mount"."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = part if _BARE_KEY.fullmatch(part) else f'"{part}"'
            text += f".{name}" if text else name
    return text


def line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """The key's own line, else its nearest table's (a missing key is reported where its table starts)."""
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None


class KeyLines:
    """The line of each key path (("configs", 2, "mount", "rsize") -> 14) in a TOML text tomllib has accepted.

    A structural scan only: headers ([a.b], [[a]] with their element index), dotted keys, inline tables, arrays
    (each element gets its index), and strings skipped so that their content is not read as keys. Anything
    unexpected stops the scan; the keys seen so far keep their lines."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.newlines = [index for index, char in enumerate(text) if char == "\n"]
        self.lines: dict[KeyPath, int] = {}
        self.table_arrays: dict[KeyPath, int] = {}  # [[a.b]] path -> elements so far
        with contextlib.suppress(IndexError, ValueError, RecursionError):
            self._document()

    def _record(self, path: KeyPath, position: int) -> None:
        self.lines.setdefault(path, bisect_left(self.newlines, position) + 1)

    def _skip(self, *, newlines: bool) -> None:
        text = self.text
        while self.i < len(text):
            char = text[self.i]
            if char in " \t" or (newlines and char in "\r\n"):
                self.i += 1
            elif newlines and char == "#":
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
            else:
                return

    def _document(self) -> None:
        table: KeyPath = ()
        while True:
            self._skip(newlines=True)
            if self.i >= len(self.text):
                return
            start = self.i
            if self.text[start] == "[":
                array = self.text.startswith("[[", start)
                self.i += 2 if array else 1
                table = self._resolve(self._key(), array=array, start=start)
                self._expect("]]" if array else "]")
            else:
                self._pair(table)
            self._skip(newlines=False)
            if self.i < len(self.text) and self.text[self.i] not in "#\r\n":
                raise ValueError("unexpected text after a value")

    def _resolve(self, keys: KeyPath, *, array: bool, start: int) -> KeyPath:
        """A header's path with the current element index after every array of tables on the way; the header's
        line is recorded for the path and for each table on the way that has no line yet."""
        path: KeyPath = ()
        for position, key in enumerate(keys):
            path = (*path, key)
            self._record(path, start)
            if array and position == len(keys) - 1:
                count = self.table_arrays.get(path, 0)
                self.table_arrays[path] = count + 1
                path = (*path, count)
            elif path in self.table_arrays:
                path = (*path, self.table_arrays[path] - 1)
            self._record(path, start)
        return path

    def _expect(self, token: str) -> None:
        self._skip(newlines=False)
        if not self.text.startswith(token, self.i):
            raise ValueError(f"expected {token}")
        self.i += len(token)

    def _key(self) -> KeyPath:
        parts: list[str] = []
        while True:
            self._skip(newlines=False)
            start = self.i
            if self.text[start] in "\"'":
                self._string()
                parts.append(tomllib.loads(f"k = {self.text[start : self.i]}")["k"])
            else:
                match = _BARE_KEY.match(self.text, start)
                if match is None:
                    raise ValueError("expected a key")
                parts.append(match.group())
                self.i = match.end()
            self._skip(newlines=False)
            if self.text[self.i] != ".":
                return tuple(parts)
            self.i += 1

    def _pair(self, table: KeyPath) -> None:
        start = self.i
        keys = self._key()
        for length in range(1, len(keys) + 1):
            self._record((*table, *keys[:length]), start)
        self._expect("=")
        self._skip(newlines=False)
        self._value((*table, *keys))

    def _value(self, path: KeyPath) -> None:
        char = self.text[self.i]
        if char == "{":
            self.i += 1
            while True:
                self._skip(newlines=True)
                if self.text[self.i] == "}":
                    self.i += 1
                    return
                self._pair(path)
                self._skip(newlines=True)
                if self.text[self.i] == ",":
                    self.i += 1
        elif char == "[":
            self.i += 1
            index = 0
            while True:
                self._skip(newlines=True)
                if self.text[self.i] == "]":
                    self.i += 1
                    return
                self._record((*path, index), self.i)
                self._value((*path, index))
                index += 1
                self._skip(newlines=True)
                if self.text[self.i] == ",":
                    self.i += 1
        elif char in "\"'":
            self._string()
        else:
            match = _SCALAR.match(self.text, self.i)
            if match is None:
                raise ValueError("expected a value")
            self.i = match.end()

    def _string(self) -> None:
        text, quote = self.text, self.text[self.i]
        if text.startswith(quote * 3, self.i):
            self.i += 3
            while not text.startswith(quote * 3, self.i):
                self.i += 2 if quote == '"' and text[self.i] == "\\" else 1
                if self.i >= len(text):
                    raise ValueError("unterminated string")
            end = self.i + 3
            while end < len(text) and text[end] == quote and end - self.i < 5:
                end += 1  # up to two quotes just before the closing ones belong to the string
            self.i = end
            return
        self.i += 1
        while text[self.i] != quote:
            self.i += 2 if quote == '"' and text[self.i] == "\\" else 1
        self.i += 1
