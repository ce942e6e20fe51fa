"""/etc/exports read the way nfs-utils reads it, and written back byte for byte.

The reader ports getexportent(), xgettok(), xgetc() and xskip() from nfs-utils (support/nfs/exports.c and
support/nfs/xio.c); exportfs 2.6.2 agreed with it in the lab. The rules that surprise people:

- A word ends at unquoted whitespace. Double quotes group and vanish; "\\ooo" (three octal digits) is a
  character in any word.
- "#" starts a comment only where a word would start: "host #x" has a comment, "host(rw)#x" is one bad word.
- A backslash before a newline joins the lines. A newline ends the export; so does a \\r, \\v or \\f, and the
  same characters where a path should start end the whole file without a message (a blank CRLF line does it).
- "path" alone, or "path -opts", exports to everyone; "host (rw)" is host with default options plus
  everyone with (rw). A "-opts" word sets defaults for the clients after it on that line.
- A path goes through realpath(3): "/srv/x/", "/srv//x" and "/srv/./x" export /srv/x (same_directory()).
- exportfs stops at the first bad option list or option: nothing after it in the file is exported. A path of
  1025 bytes or more also stops it, silently; a client word of 512 bytes or more is a syntax error.

parse() never raises: such places become entries with an `error`, and reading resumes on the next line so that
every problem can be reported, while `exported()` keeps to what exportfs really exports.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from nfstune.nfs.export_options import (
    LATEST,
    ExportOptions,
    NfsUtilsVersion,
    OptionError,
    parse_options,
    split_options,
)

PATH_LIMIT = 1025  # e_path[NFS_MAXPATHLEN + 1]: xgettok() gives up once a word fills the buffer
CLIENT_LIMIT = 512  # char exp[512] in getexportent()
SPACE = frozenset(" \t\n\v\f\r")  # isspace() in the C locale
ClientKind = Literal["world", "hostname", "subnet", "wildcard", "netgroup", "gss"]


@dataclass(frozen=True)
class Client:
    """One client of an export, with the options nfs-utils gives it."""

    start: int  # the client's word in the file; start == end for the "everyone" a bare path implies
    end: int
    spec: str  # the host as nfs-utils keeps it: "" when implied, "*" for a word that starts with "("
    explicit: str | None  # the text between the parentheses; None without parentheses
    defaults: tuple[str, ...]  # the "-opts" lists in force for this client, without the "-"
    options: ExportOptions  # effective: nfs-utils' defaults, then the "-opts", then the client's own

    @property
    def name(self) -> str:
        return "*" if self.spec in ("", "*") else self.spec

    @property
    def kind(self) -> ClientKind:
        return client_kind(self.spec)

    @property
    def explicit_options(self) -> tuple[str, ...]:
        return tuple(split_options(self.explicit or ""))


@dataclass(frozen=True)
class ExportEntry:
    """A path and its clients. With an `error`, exportfs stops reading the file here; `clients` then holds the
    ones it had read before (and does export)."""

    start: int
    text: str
    line: int
    path: str | None  # None when the path itself could not be read
    clients: tuple[Client, ...]
    error: str | None = None

    def exports(self, path: str) -> bool:
        """Whether this entry exports `path` as exportfs reads it ("/srv/x/" exports /srv/x)."""
        return same_export(self.path, path)


def same_export(path: str | None, other: str) -> bool:
    """Whether exportfs reads the two paths as one export (None: a path that could not be read)."""
    return path is not None and same_directory(path) == same_directory(other)


def same_directory(path: str) -> str:
    """The path as exportfs keeps it: getexportent() puts it through realpath(3), which, for a directory that
    exists, drops repeated and trailing slashes and "." parts. A ".." stays as written: realpath resolves a
    symbolic link before it, and what the server's directories hold is not known here. A relative path (which
    exportfs cannot find) stays as written too."""
    if not path.startswith("/"):
        return path
    return "/" + "/".join(part for part in path.split("/") if part not in ("", "."))


@dataclass(frozen=True)
class Trivia:
    """Blank space and comments between entries."""

    start: int
    text: str


@dataclass(frozen=True)
class ExportsFile:
    items: tuple[ExportEntry | Trivia, ...]
    version: NfsUtilsVersion = LATEST

    def render(self) -> str:
        return "".join(item.text for item in self.items)

    @property
    def entries(self) -> tuple[ExportEntry, ...]:
        return tuple(item for item in self.items if isinstance(item, ExportEntry))

    @property
    def stop(self) -> ExportEntry | None:
        """The entry where exportfs stops reading, if any."""
        return next((entry for entry in self.entries if entry.error), None)

    def find(self, path: str) -> ExportEntry | None:
        """The first entry for `path` that exportfs reads (an entry with an error still exports the clients
        before it)."""
        for entry in self.entries:
            if entry.exports(path):
                return entry
            if entry.error:
                return None
        return None

    def client(self, path: str, name: str) -> Client:
        entry = self.find(path)
        found = [c for c in entry.clients if c.name == name] if entry else []
        if not found:
            raise KeyError(f"no client {name!r} for {path!r}")
        return found[0]

    def with_client_options(self, path: str, name: str, options: Sequence[str]) -> ExportsFile:
        """This file with the options of one client replaced (its "-opts" defaults still apply); every byte
        outside that client's word stays as it was. Raises KeyError for an unknown client and ValueError when
        the new text would read differently anywhere else."""
        target = self.client(path, name)
        if any(not option or set(option) & set(",()") for option in options):
            raise ValueError(f"not an option list: {list(options)!r}")
        word = encode_word(f"{target.name}({','.join(options)})")
        if target.start == target.end:  # the implied "everyone" gets a word of its own
            word = " " + word
        text = self.render()
        changed = parse(text[: target.start] + word + text[target.end :], self.version)
        where = _position(self, target)
        if _shape(changed, where) != _shape(self, where) or _client_at(changed, where).explicit_options != tuple(
            options
        ):
            raise ValueError(f"cannot give {name} on {path} the options {list(options)!r} without other changes")
        return changed


def _position(doc: ExportsFile, target: Client) -> tuple[int, int]:
    return next(
        (e, c) for e, entry in enumerate(doc.entries) for c, client in enumerate(entry.clients) if client is target
    )


def _client_at(doc: ExportsFile, where: tuple[int, int]) -> Client:
    return doc.entries[where[0]].clients[where[1]]


def _shape(doc: ExportsFile, skip: tuple[int, int]) -> list[object]:
    """What an edit must keep: every entry's path and error, and its clients with their options except one."""
    return [
        (
            entry.path,
            entry.error,
            [(c.name, None if (e, i) == skip else c.explicit) for i, c in enumerate(entry.clients)],
        )
        for e, entry in enumerate(doc.entries)
    ]


def client_kind(spec: str) -> ClientKind:
    """client_gettype() in support/export/client.c; "[::1]" is a wildcard pattern, not an IPv6 address."""
    if spec in ("", "*"):
        return "world"
    if spec.startswith("gss/"):
        return "gss"
    if spec.startswith("@"):
        return "netgroup"
    i = 0
    while i < len(spec):
        if spec[i] in "*?[":
            return "wildcard"
        if spec[i] == "/":
            return "subnet"
        i += 2 if spec[i] == "\\" and i + 1 < len(spec) else 1
    return "hostname"


# --- reading ----------------------------------------------------------------------------------------------------


class _Reader:
    """xgetc()/xskip()/xgettok() over a string; `pos` is where getc() would read next."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.word_start = self.word_end = 0

    def getc(self) -> str:
        text, pos = self.text, self.pos
        if pos >= len(text):
            return ""
        if text[pos] == "\\" and text[pos + 1 : pos + 2] == "\n":  # a continuation reads as one space
            pos += 2
            while pos < len(text) and text[pos] in " \t":
                pos += 1
            self.pos = pos
            return " "
        self.pos = pos + 1
        return text[pos]

    def skip(self, chars: str) -> None:
        while True:
            before = self.pos
            char = self.getc()
            if char == "#":  # xskipcomment(): to the newline, which is then handled like any character
                newline = self.text.find("\n", self.pos)
                if newline < 0:
                    self.pos = len(self.text)
                    return
                self.pos, before, char = newline + 1, newline, "\n"
            if char == "":
                return
            if char not in chars and char != "\0":  # strchr() finds "\0" in any string
                self.pos = before
                return

    def word(self, limit: int) -> tuple[int, str]:
        """1 and the word, 0 for no word, -1 when the word fills `limit` bytes."""
        chars: list[str] = []
        size, quoted, char = 0, False, ""
        self.word_start = self.word_end = self.pos
        while size < limit:
            char = self.getc()
            if char == "" or (not quoted and (char in SPACE or char == "\0")):
                break
            self.word_end = self.pos
            if char == '"':
                quoted = not quoted
                continue
            chars.append(char)
            size += _size(char)
            tail = chars[-4:]
            if len(tail) == 4 and tail[0] == "\\" and all(c in "01234567" for c in tail[1:]):
                value = int("".join(tail[1:]), 8)
                if value < 256:
                    del chars[-4:]
                    chars.append(chr(value) if value < 128 else chr(0xDC00 + value))  # a raw byte, surrogateescape
                    size -= 3
        if char == "\n":
            self.pos -= 1
        if not chars:
            return 0, ""
        return (-1, "") if size >= limit else (1, "".join(chars))


def _size(char: str) -> int:
    return 1 if char.isascii() or 0xDC80 <= ord(char) <= 0xDCFF else len(char.encode("utf-8", "surrogatepass"))


def parse(text: str, version: NfsUtilsVersion = LATEST) -> ExportsFile:
    """Read an exports file. Never raises; render() gives `text` back unchanged."""
    reader = _Reader(text)
    newlines = [i for i, char in enumerate(text) if char == "\n"]
    items: list[ExportEntry | Trivia] = []
    done = 0
    while True:
        reader.skip(" \t\n")
        status, path = reader.word(PATH_LIMIT)
        start = reader.word_start
        if status == 0 and reader.word_end == start and reader.pos >= len(text):
            break
        if start > done:
            items.append(Trivia(done, text[done:start]))
        line = bisect.bisect_left(newlines, start) + 1
        if status <= 0:
            why = _stop_reason(text, start, status, empty=reader.word_end > start)
            end = reader.pos = _end_of_line(text, reader.pos)
            items.append(ExportEntry(start, text[start:end], line, None, (), why))
        else:
            (path, clients, error), end = _read_entry(reader, start, path.split("\0")[0], version)
            items.append(ExportEntry(start, text[start:end], line, path, clients, error))
            if error:  # exportfs stops here; we go on with the next line so that later problems show too
                reader.pos = end
        done = end
    if done < len(text):
        items.append(Trivia(done, text[done:]))
    return ExportsFile(tuple(items), version)


def _stop_reason(text: str, start: int, status: int, empty: bool) -> str:
    what = f"a path of {PATH_LIMIT} bytes or more" if status < 0 else "an empty path" if empty else f"{text[start]!r}"
    where = "" if status < 0 or empty else " where a path should start"
    return f"{what}{where}: exportfs stops reading the file here, without a message"


def _end_of_line(text: str, pos: int) -> int:
    newline = text.find("\n", pos)
    return len(text) if newline < 0 else newline


def _read_entry(
    reader: _Reader, start: int, path: str, version: NfsUtilsVersion
) -> tuple[tuple[str, tuple[Client, ...], str | None], int]:
    """The rest of one getexportent() loop for `path`: its clients, until a word-less getexport() or an error."""
    clients: list[Client] = []
    base, end = ExportOptions(), reader.word_end
    defaults: tuple[str, ...] = ()

    def next_word() -> tuple[int, str]:
        reader.skip(" \t")
        return reader.word(CLIENT_LIMIT)

    def fail(reason: str) -> tuple[tuple[str, tuple[Client, ...], str | None], int]:
        return (path, tuple(clients), reason), max(end, _end_of_line(reader.text, reader.pos))

    status, word = next_word()
    while True:
        if status < 0:
            return fail(f"syntax error: a client word of {CLIENT_LIMIT} bytes or more")
        word = word.split("\0")[0]
        if status == 1 and word.startswith("-"):
            try:
                base = parse_options(word[1:], base, version)
            except OptionError as error:
                return fail(str(error))
            defaults, end = (*defaults, word[1:]), reader.word_end
            status, word = next_word()
            if status < 0:
                continue
            word = word.split("\0")[0]
        spec, explicit = word, None
        if "(" in word:
            spec, _, explicit = word.partition("(")
            spec = spec or "*"
            if not explicit.endswith(")") or explicit.index(")") != len(explicit) - 1:
                return fail("syntax error: bad option list")
            explicit = explicit[:-1]
        try:
            options = parse_options(explicit, base, version)
        except OptionError as error:
            return fail(str(error))
        word_start, word_end = (reader.word_start, reader.word_end) if status else (end, end)
        clients.append(Client(word_start, word_end, spec, explicit, defaults, options))
        end = word_end
        status, word = next_word()
        if status == 0:
            return (path, tuple(clients), None), end


def encode_word(text: str) -> str:
    """A word that reads back as `text`: whitespace, quotes, backslashes, control characters and a leading "#"
    become octal escapes, as exportfs itself writes etab. Raises ValueError for text no word can hold: a NUL, or
    a backslash followed by three octal digits (xgettok() always decodes those)."""
    special = SPACE | {'"', "\\", "\x7f"}
    word = "".join(
        f"\\{ord(c):03o}" if c in special or ord(c) < 0x20 or (i == 0 and c == "#") else c for i, c in enumerate(text)
    )
    reader = _Reader(word + "\n")
    if "\0" in text or reader.word(len(word.encode("utf-8", "surrogatepass")) + 1) != (1, text):
        raise ValueError(f"{text!r} cannot be written as one word of an exports file")
    return word


# --- the files exportfs reads -------------------------------------------------------------------------------------

EXPORTS_FILE = "/etc/exports"


def files_in_order(files: Mapping[str, str]) -> list[str]:
    """The exports files in the order exportfs reads them: /etc/exports, then /etc/exports.d/*.exports by name
    (the first entry of a path wins)."""
    return sorted(files, key=lambda f: (f != EXPORTS_FILE, f))


def parsed_in_order(files: Mapping[str, str]) -> list[tuple[str, ExportsFile]]:
    """Each exports file (path -> text) parsed, in exportfs's order."""
    return [(file, parse(files[file])) for file in files_in_order(files)]
