"""Load recipe TOML files: the shipped folder first, then the user's; errors say file:line: key: message.

tomllib gives no positions, so KeyLines scans the (already valid) TOML text once more for the line of every key
and array element. A broken file costs only itself: load_recipes returns the good recipes and the errors.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import sys
import tomllib
from bisect import bisect_left
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from nfstune import paths
from nfstune.nfs.export_edit import ExportOptionEdit
from nfstune.nfs.export_options import FLAG_OPTIONS, OptionError, parse_options
from nfstune.nfs.mount_options import MountOption, MountOptions
from nfstune.recipes.model import (
    FACTS,
    NFS_VERSIONS,
    WORKLOADS,
    Condition,
    Config,
    FactKind,
    FactTest,
    Note,
    Recipe,
    Rounds,
    Scalar,
    placeholders,
)

KeyPath = tuple[str | int, ...]
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR = re.compile(r"[^,\]}\r\n#]+")  # a number, boolean or date: up to the next delimiter


@dataclass(frozen=True)
class RecipeError:
    file: Path
    line: int | None  # None when the key's line could not be found (e.g. a missing top-level key)
    key: str  # "configs[2].mount"; "" for the file as a whole
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else f"{self.file}"
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


def default_recipe_dirs() -> list[Path]:
    """The shipped recipes, then the user's own (which override shipped ones of the same id)."""
    return [paths.recipes_dir(), paths.data_dir() / "recipes"]


def load_recipes(dirs: Sequence[Path]) -> tuple[list[Recipe], list[RecipeError]]:
    """Every valid recipe in `dirs` (the first is the shipped folder, later ones are the user's), and the errors
    of the files that were not valid. A later recipe with an id already loaded replaces it in its place; a broken
    user recipe leaves the shipped one of that id in force."""
    loaded: dict[str, Recipe] = {}
    errors: list[RecipeError] = []
    for index, directory in enumerate(dirs):
        if not directory.is_dir():
            continue  # the user's folder usually does not exist
        for path in sorted(directory.glob("*.toml")):
            if path.name.startswith("."):
                continue  # editor lock and backup files
            recipe, found = load_recipe_file(path, user_provided=index > 0)
            errors.extend(found)
            if recipe is not None:
                earlier = loaded.get(recipe.id)
                if earlier is not None:
                    recipe = replace(recipe, overrides=earlier.overrides or earlier.source)
                loaded[recipe.id] = recipe
    return list(loaded.values()), errors


_TOML_POSITION = re.compile(r"^(?P<message>.*?) \(at line (?P<line>\d+), column (?P<column>\d+)\)$", re.DOTALL)


def load_recipe_file(path: Path, *, user_provided: bool = False) -> tuple[Recipe | None, list[RecipeError]]:
    """One recipe file: the recipe, or None and every error found in it."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        return None, [RecipeError(path, None, "", f"cannot read the file: {error.strerror or error}")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, [RecipeError(path, raw[: error.start].count(b"\n") + 1, "", "not UTF-8 text")]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        match = _TOML_POSITION.match(str(error))
        if match is not None:
            message = f"TOML syntax: {match['message']} (column {match['column']})"
            return None, [RecipeError(path, int(match["line"]), "", message)]
        message = str(error).removesuffix(" (at end of document)")
        at_end = message != str(error)  # e.g. an unterminated string: report the last line
        last_line = text.rstrip("\n").count("\n") + 1
        return None, [RecipeError(path, last_line if at_end else None, "", f"TOML syntax: {message}")]
    except RecursionError:
        return None, [RecipeError(path, None, "", "TOML syntax: nested too deeply")]
    except ValueError as error:  # int() refused a decimal integer longer than its digit limit
        return None, [_too_many_digits(path, text, error)]
    huge = list(_huge_integers(data, ()))
    if huge:
        lines = KeyLines(text).lines
        return None, [RecipeError(path, _line_of(lines, at), dotted(at), f"{HUGE_MESSAGE}") for at in huge]
    checker = Checker(path.stem)
    recipe = checker.recipe(data)
    if checker.problems or recipe is None:
        lines = KeyLines(text).lines
        errors = [RecipeError(path, _line_of(lines, p.at), dotted(p.key), p.message) for p in checker.problems]
        errors.sort(key=lambda error: error.line if error.line is not None else 0)  # top-level ones, then in order
        return None, errors
    return replace(recipe, source=path, user_provided=user_provided), []


INTEGER_LIMIT = 2**63  # TOML's own range (a signed 64-bit integer); tomllib reads any size
HUGE_MESSAGE = "an integer beyond TOML's range (-2^63 to 2^63-1)"


def _huge_integers(value: object, path: KeyPath) -> Iterator[KeyPath]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _huge_integers(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _huge_integers(item, (*path, index))
    elif isinstance(value, int) and not -INTEGER_LIMIT <= value < INTEGER_LIMIT:
        yield path


def _too_many_digits(path: Path, text: str, error: ValueError) -> RecipeError:
    """Where tomllib met a decimal integer int() refuses: the first run of that many digits, and its key."""
    limit = sys.get_int_max_str_digits()
    for match in re.finditer(r"[0-9][0-9_]*", text):
        if limit and len(match.group().replace("_", "")) > limit:
            line = text.count("\n", 0, match.start()) + 1
            keys = [key for key, key_line in KeyLines(text).lines.items() if key_line == line]
            return RecipeError(path, line, dotted(keys[-1]) if keys else "", HUGE_MESSAGE)
    return RecipeError(path, None, "", f"TOML: {error}")


def _line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
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


# --- what a recipe may contain -------------------------------------------------------------------------------------

# nfs(5) options, plus the generic ones mount(8) passes on. Flags are written `hard = true`.
MOUNT_FLAGS = frozenset({
    "soft", "softerr", "softreval", "nosoftreval", "hard", "ac", "noac", "bg", "fg", "rdirplus", "nordirplus",
    "nosharecache", "resvport", "noresvport", "fsc", "nofsc", "cto", "nocto", "lock", "nolock", "acl", "noacl",
    "posix", "noposix", "intr", "nointr", "tcp", "udp", "rdma", "v3", "v4", "v4.0", "v4.1", "v4.2", "migration",
    "nomigration", "trunkdiscovery", "notrunkdiscovery", "ro", "rw", "sync", "async", "atime", "noatime", "relatime",
    "norelatime", "diratime", "nodiratime", "strictatime", "exec", "noexec", "suid", "nosuid", "dev", "nodev",
})  # fmt: skip
MOUNT_NUMBERS = {
    "rsize": (1024, 1048576), "wsize": (1024, 1048576), "nconnect": (1, 16), "max_connect": (1, 16),
    "timeo": (1, 6000), "retrans": (0, 100), "acregmin": (0, 86400), "acregmax": (0, 86400),
    "acdirmin": (0, 86400), "acdirmax": (0, 86400), "actimeo": (0, 86400), "retry": (0, 10000),
    "port": (0, 65535), "mountport": (0, 65535), "mountvers": (1, 3), "namlen": (1, 255), "minorversion": (0, 2),
}  # fmt: skip
MOUNT_VERSIONS = ("3", "4", "4.0", "4.1", "4.2")
TRANSPORTS = ("tcp", "udp", "rdma", "tcp6", "udp6", "rdma6")
MOUNT_CHOICES = {
    "vers": MOUNT_VERSIONS, "nfsvers": MOUNT_VERSIONS, "proto": TRANSPORTS, "mountproto": TRANSPORTS,
    "lookupcache": ("all", "none", "pos", "positive"), "local_lock": ("all", "flock", "posix", "none"),
    "xprtsec": ("none", "tls", "mtls"), "write": ("lazy", "eager", "wait"),
}  # fmt: skip
MOUNT_TEXTS = frozenset({"clientaddr", "mounthost"})
SECURITY_FLAVOURS = ("sys", "krb5", "krb5i", "krb5p", "none")
MOUNT_REFUSED = {
    "remount": "NFS options cannot be changed by a remount (nfs(5)); nfstune mounts afresh for each configuration",
    "sharecache": "nfstune's own mounts use nosharecache, so that the user's mounts of the server do not pin options",
}
MOUNT_VALUED = frozenset({*MOUNT_NUMBERS, *MOUNT_CHOICES, *MOUNT_TEXTS, "sec"})
MOUNT_NAMES = frozenset({*MOUNT_FLAGS, *MOUNT_VALUED, *MOUNT_REFUSED})
# groups a table cannot order, so two of one group are ambiguous (mount.nfs would let the last one win)
MOUNT_EXCLUSIVE = (
    ("hard", "soft", "softerr"), ("ro", "rw"), ("sync", "async"), ("tcp", "udp", "rdma"),
    ("v3", "v4", "v4.0", "v4.1", "v4.2"), ("vers", "nfsvers"),
    *((flag, "no" + flag) for flag in sorted(MOUNT_FLAGS) if "no" + flag in MOUNT_FLAGS),
)  # fmt: skip

EXPORT_VALUED = frozenset({"anonuid", "anongid", "sec", "xprtsec", "squash_uids", "squash_gids"})
EXPORT_REFUSED = {
    "fsid": "a new fsid under mounted clients makes their file handles stale (ESTALE)",
    "refer": "a referral sends clients to another server",
    "replicas": "a replica list sends clients to other servers",
    "reexport": "re-export settings change the file handles clients hold",
    "mountpoint": "the export would vanish whenever its path is not a mount point",
    "mp": "the export would vanish whenever its path is not a mount point",
}
EXPORT_NAMES = frozenset({*FLAG_OPTIONS, *EXPORT_VALUED, *EXPORT_REFUSED})
# what a recipe may set or unset on the admin's export while it runs: how the server writes, never who may read or
# write (rw, no_root_squash, insecure, sec=, anonuid=... would widen access for the length of the run)
EXPORT_TUNABLE = frozenset({"sync", "async", "wdelay", "no_wdelay", "subtree_check", "no_subtree_check"})
NOT_TUNABLE = (
    "recipes change only how the server writes ({}); access options stay as the admin wrote them, for changing "
    "them could widen who may read or write while the recipe runs"
).format(", ".join(sorted(EXPORT_TUNABLE)))
ID_DIGITS = 10  # a uid or gid is 32 bits: 4294967295

LABEL_MAX = 24  # a column heading
TITLE_MAX = 60
ROUNDS_LIMIT = 50
WARMUP_LIMIT = 10
MARGIN_MAX = 50  # percent: a wider "no difference that matters" would call almost anything the same
GROW_SPREAD_MAX = 100  # percent: a spread above it is a broken measurement, not one larger files would calm
BUDGET_MAX_MINUTES = 24 * 60
SCALES = ("small", "normal")
READ_AHEAD_KB_MAX = 1048576


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


def did_you_mean(word: str, known: Collection[str]) -> str:
    close = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def describe(value: object) -> str:
    """A TOML value as the admin wrote it, for "must be ..., not X"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"'{value}'" if len(value) <= 40 else f"'{value[:37]}...'"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "an array"
    return "a table" if isinstance(value, dict) else f"a {type(value).__name__}"


def is_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def version_text(value: object) -> str | None:
    """vers = 3, 4.2 or "4.2" -> "3", "4.2"; floats keep their decimal (4.0 stays "4.0")."""
    if isinstance(value, str):
        return value
    if is_integer(value) or isinstance(value, float):
        return repr(value)
    return None


def check_mount_option(name: str, value: object) -> tuple[str | None, str | None]:
    """(the option's value as mount.nfs takes it, None for a flag; an error message or None)."""
    if name in MOUNT_REFUSED:
        return None, f"'{name}' is not allowed in a recipe: {MOUNT_REFUSED[name]}"
    if name not in MOUNT_NAMES:
        return None, f"unknown option '{name}'{did_you_mean(name, MOUNT_NAMES)}"
    if name in MOUNT_FLAGS:
        return None, None if value is True else f"'{name}' is a flag: write {name} = true"
    if name in MOUNT_NUMBERS:
        low, high = MOUNT_NUMBERS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return None, f"'{name}' must be an integer from {low} to {high}, not {describe(value)}"
        if name in ("rsize", "wsize") and value % 1024:
            return None, f"'{name}' = {value} is not a multiple of 1024 (the client would use {value // 1024 * 1024})"
        return str(value), None
    text = version_text(value) if name in ("vers", "nfsvers") else value
    if not isinstance(text, str):
        return None, f"'{name}' needs a value, not {describe(value)}"
    if name in MOUNT_CHOICES and text not in MOUNT_CHOICES[name]:
        return None, f"'{name}' must be one of {', '.join(MOUNT_CHOICES[name])}, not {describe(value)}"
    if name == "sec" and not all(flavour in SECURITY_FLAVOURS for flavour in text.split(":")):
        return None, f"'sec' takes flavours from {', '.join(SECURITY_FLAVOURS)} joined by ':', not {describe(value)}"
    if not text or re.search(r"[\s,]", text):
        return None, f"'{name}' must be one word without commas, not {describe(value)}"
    return text, None


def check_export_option(item: str) -> str | None:
    """An error message for one exports(5) option ("async", "anonuid=1000"), or None."""
    name, equals, value = item.partition("=")
    if re.search(r"[\s,()]", item):  # "anonuid=0,async" would smuggle in a second option
        return f"one option per string, without blanks, commas or parentheses: {describe(item)}"
    if name in EXPORT_REFUSED:
        return f"'{name}' is not allowed in a recipe: {EXPORT_REFUSED[name]}"
    if name not in EXPORT_NAMES:
        return f"unknown option '{name}'{did_you_mean(name, EXPORT_NAMES)}"
    if name in FLAG_OPTIONS and equals:
        return f"'{name}' takes no value"
    if name in EXPORT_VALUED and not equals:
        return f"'{name}' needs a value: {name}=..."
    if name in ("anonuid", "anongid") and len(value.lstrip("-")) > ID_DIGITS:
        # exportfs would take it (strtol saturates), but as an id nobody has: a typing slip
        return f"'{name}' takes a {name[4:]} of at most {ID_DIGITS} digits, not one of {len(value.lstrip('-'))}"
    try:
        parse_options(item)
    except OptionError as error:
        return f"exportfs would refuse '{item}': {error}"
    if name not in EXPORT_TUNABLE:
        return f"'{name}' is not allowed in a recipe: {NOT_TUNABLE}"
    return None


@dataclass(frozen=True)
class Problem:
    key: KeyPath  # what the message is about
    at: KeyPath  # where its line is looked for (the offending key itself, when there is one)
    message: str


# key -> whether it is required
RECIPE_KEYS = {
    "id": True, "title": True, "summary": True, "why": True, "changes_host": True, "workloads": True,
    "configs": True, "baseline": False, "rounds": False, "repeats": False, "warning": False, "expectation": False,
    "never_recommend": False, "show_negotiated": False, "notes": False,
}  # fmt: skip
CONFIG_KEYS = {
    "label": True, "mount": False, "read_ahead_kb": False, "export": False, "when": False, "workloads": False,
    "expectation": False, "warning": False, "never_recommend": False, "expect": False,
}  # fmt: skip
ROUNDS_KEYS = {
    "min": False, "max": False, "warmup": False, "margin": False, "grow_spread": False, "budget_minutes": False
}  # fmt: skip
# the table of nfstune 0.x (user recipes still have it): min/max/warmup map across, cv_target is not used any more
REPEATS_KEYS = {"min": False, "max": False, "cv_target": False, "warmup": False}
EXPORT_KEYS = {"set": False, "unset": False}
NOTE_KEYS = {"text": True, "when": False}
TEST_KEYS: dict[FactKind, tuple[str, ...]] = {
    "versions": ("not",),
    "bool": ("not",),
    "int": ("not", "at_least", "below"),
}
KIND_NAMES: dict[FactKind, str] = {"versions": "an NFS version", "bool": "a true/false", "int": "a number"}


class Checker:
    """Turns a parsed TOML document into a Recipe, collecting every problem instead of stopping at the first."""

    def __init__(self, file_stem: str) -> None:
        self.file_stem = file_stem
        self.problems: list[Problem] = []

    def problem(self, key: KeyPath, message: str, at: KeyPath | None = None) -> None:
        self.problems.append(Problem(key, key if at is None else at, message))

    def table(self, value: object, path: KeyPath, keys: dict[str, bool]) -> dict[str, Any] | None:
        """`value` as a table with only `keys` (name -> required) in it."""
        if not isinstance(value, dict):
            self.problem(path, f"must be a table, not {describe(value)}")
            return None
        for name in value:
            if name not in keys:
                self.problem(path, f"unknown key '{name}'{did_you_mean(name, keys)}", at=(*path, name))
        for name, required in keys.items():
            if required and name not in value:
                self.problem(path, f"missing required key '{name}'")
        return value

    def text(self, table: dict[str, Any], path: KeyPath, *, max_length: int | None = None) -> str | None:
        value = table.get(str(path[-1]))
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.problem(path, f"must be a non-empty string, not {describe(value)}")
            return None
        if max_length is not None and ("\n" in value.strip() or len(value.strip()) > max_length):
            self.problem(path, f"must be one line of at most {max_length} characters")
            return None
        return value.strip()

    def integer(self, table: dict[str, Any], path: KeyPath, low: int, high: int) -> int | None:
        value = table.get(str(path[-1]))
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.problem(path, f"must be an integer from {low} to {high}, not {describe(value)}")
            return None
        return value

    def boolean(self, table: dict[str, Any], path: KeyPath) -> bool:
        value = table.get(str(path[-1]), False)
        if not isinstance(value, bool):
            self.problem(path, f"must be true or false, not {describe(value)}")
            return False
        return value

    def strings(self, table: dict[str, Any], path: KeyPath) -> list[tuple[KeyPath, str]]:
        """An array of strings, each with its own path for the line."""
        value = table.get(str(path[-1]), [])
        if not isinstance(value, list):
            self.problem(path, f"must be an array of strings, not {describe(value)}")
            return []
        items = []
        for index, item in enumerate(value):
            if isinstance(item, str):
                items.append(((*path, index), item))
            else:
                self.problem(path, f"must hold strings only, not {describe(item)}", at=(*path, index))
        return items

    def recipe(self, data: dict[str, Any]) -> Recipe | None:
        self.table(data, (), RECIPE_KEYS)
        recipe_id = self.text(data, ("id",), max_length=TITLE_MAX)
        if recipe_id is not None and not re.fullmatch(r"[a-z0-9][a-z0-9-]*", recipe_id):
            self.problem(
                ("id",), f"'{recipe_id}' must be lowercase letters, digits and '-' (it is typed on a command line)"
            )
        elif recipe_id is not None and recipe_id != self.file_stem:
            self.problem(("id",), f"'{recipe_id}' differs from the file name: the id must be '{self.file_stem}'")
        title, summary, why = (
            self.text(data, (key,), max_length=TITLE_MAX if key == "title" else None)
            for key in ("title", "summary", "why")
        )
        changes_host = data.get("changes_host")
        if "changes_host" in data and changes_host not in ("client", "server"):
            self.problem(("changes_host",), f"must be 'client' or 'server', not {describe(changes_host)}")
        workloads = self.workloads(data, ("workloads",)) if "workloads" in data else ()
        rounds = self.rounds(data)
        shown = []
        for path, name in self.strings(data, ("show_negotiated",)):
            if name in MOUNT_VALUED:
                shown.append(name)
            else:
                hint = did_you_mean(name, MOUNT_VALUED)
                self.problem(path[:-1], f"'{name}' is not a mount option with a value{hint}", at=path)
        notes = self.notes(data.get("notes", []))
        configs = self.configs(data.get("configs"), workloads) if "configs" in data else []
        labels = [config.label for config in configs]
        baseline = self.text(data, ("baseline",), max_length=LABEL_MAX) or (labels[0] if labels else "")
        if configs and baseline not in labels:
            self.problem(("baseline",), f"no configuration is labelled '{baseline}'{did_you_mean(baseline, labels)}")
        self.check_host(changes_host, configs)
        warning, expectation = self.text(data, ("warning",)), self.text(data, ("expectation",))
        never_recommend = self.boolean(data, ("never_recommend",))
        if self.problems or recipe_id is None or title is None or summary is None or why is None:
            return None
        return Recipe(
            id=recipe_id,
            title=title,
            summary=summary,
            why=why,
            changes_host="server" if changes_host == "server" else "client",
            configs=tuple(configs),
            workloads=workloads,
            baseline=baseline,
            rounds=rounds,
            warning=warning,
            expectation=expectation,
            never_recommend=never_recommend,
            show_negotiated=tuple(shown),
            notes=notes,
        )

    def check_host(self, changes_host: object, configs: list[Config]) -> None:
        server_changes = [index for index, config in enumerate(configs) if config.export]
        if changes_host == "client":
            for index in server_changes:
                message = "changes the server's export, but changes_host = 'client' (client recipes never touch it)"
                self.problem(("configs", index, "export"), message)
        elif changes_host == "server" and configs and not server_changes:
            self.problem(("changes_host",), "is 'server' but no configuration changes the export: use 'client'")

    def workloads(self, table: dict[str, Any], path: KeyPath) -> tuple[str, ...]:
        items = self.strings(table, path)
        if not items and isinstance(table.get(str(path[-1])), list):
            self.problem(path, f"must name at least one workload: {', '.join(WORKLOADS)}")
        found: list[str] = []
        for item_path, name in items:
            if name not in WORKLOADS:
                message = f"unknown workload '{name}'{did_you_mean(name, WORKLOADS)}; known: {', '.join(WORKLOADS)}"
                self.problem(path, message, at=item_path)
            elif name in found:
                self.problem(path, f"'{name}' is listed twice", at=item_path)
            else:
                found.append(name)
        return tuple(found)

    def rounds(self, data: dict[str, Any]) -> Rounds:
        if "rounds" in data and "repeats" in data:
            self.problem(("repeats",), "the recipe has [rounds]: remove the older [repeats] table")
            return Rounds()
        old = "rounds" not in data and "repeats" in data
        name = "repeats" if old else "rounds"
        path: KeyPath = (name,)
        table = self.table(data.get(name, {}), path, REPEATS_KEYS if old else ROUNDS_KEYS)
        if table is None:
            return Rounds()
        low = self.integer(table, (*path, "min"), 1 if old else 2, ROUNDS_LIMIT)
        high = self.integer(table, (*path, "max"), 1 if old else 2, ROUNDS_LIMIT)
        warmup = self.integer(table, (*path, "warmup"), 0, WARMUP_LIMIT)
        if old:
            cv_target = table.get("cv_target", 5.0)
            if isinstance(cv_target, bool) or not isinstance(cv_target, int | float) or not 0 < cv_target <= 100:
                self.problem(
                    (*path, "cv_target"), f"must be a percentage above 0 and at most 100, not {describe(cv_target)}"
                )
            # a paired comparison needs two rounds at least
            low, high = (None if v is None else max(2, v) for v in (low, high))
        defaults = Rounds()
        margin = self.number(table, (*path, "margin"), MARGIN_MAX, defaults.margin_percent)
        grow_spread = (
            defaults.grow_spread_percent if old
            else self.number(table, (*path, "grow_spread"), GROW_SPREAD_MAX, defaults.grow_spread_percent)
        )  # fmt: skip
        budgets = dict(defaults.budget_minutes)
        budget_path = (*path, "budget_minutes")
        if "budget_minutes" in table:
            given = self.table(table["budget_minutes"], budget_path, dict.fromkeys(SCALES, False))
            for scale in SCALES:
                if given is not None and scale in given:
                    budgets[scale] = self.number(given, (*budget_path, scale), BUDGET_MAX_MINUTES, budgets[scale])
        # an unset bound follows the one given, so `min = 12` alone is not an error against the default max
        low_value = low if low is not None else min(defaults.min, high or defaults.min)
        high_value = high if high is not None else max(defaults.max, low_value)
        if low_value > high_value:
            self.problem(path, f"min ({low_value}) is larger than max ({high_value})", at=(*path, "min"))
        return Rounds(
            low_value, high_value, defaults.warmup if warmup is None else warmup, margin, grow_spread, budgets
        )

    def number(self, table: dict[str, Any], path: KeyPath, high: float, default: float) -> float:
        """A positive number (integer or float) at most `high`; `default` when absent or wrong."""
        value = table.get(str(path[-1]))
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= high:
            self.problem(path, f"must be a number above 0 and at most {high:g}, not {describe(value)}")
            return default
        return float(value)

    def configs(self, value: object, workloads: tuple[str, ...]) -> list[Config]:
        path: KeyPath = ("configs",)
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            self.problem(path, "must be an array of tables: one [[configs]] section per configuration")
            return []
        if len(value) < 2:
            self.problem(path, f"needs at least 2 configurations to compare, not {len(value)}")
        configs: list[Config] = []
        for index, item in enumerate(value):
            config = self.config(item, (*path, index), workloads)
            if config is None:
                continue
            earlier = [i for i, other in enumerate(value[:index]) if other.get("label") == config.label]
            if earlier:
                self.problem((*path, index, "label"), f"'{config.label}' is already the label of configs[{earlier[0]}]")
            configs.append(config)
        return configs

    def config(self, value: dict[str, Any], path: KeyPath, workloads: tuple[str, ...]) -> Config | None:
        self.table(value, path, CONFIG_KEYS)
        label = self.text(value, (*path, "label"), max_length=LABEL_MAX)
        mount = self.mount(value.get("mount", {}), (*path, "mount"))
        if mount.vers == "4.0" and (mount.nconnect or 1) > 1:
            self.problem(
                (*path, "mount"),
                "nconnect with NFSv4.0: not used (NetApp TR-4067 advises against it)",
                at=(*path, "mount", "nconnect"),
            )
        config = Config(
            label=label or "",
            mount=mount,
            read_ahead_kb=self.integer(value, (*path, "read_ahead_kb"), 0, READ_AHEAD_KB_MAX),
            export=self.export(value.get("export", {}), (*path, "export")),
            when=self.condition(value.get("when", {}), (*path, "when")),
            workloads=self.workloads(value, (*path, "workloads")) if "workloads" in value else workloads,
            expectation=self.text(value, (*path, "expectation")),
            warning=self.text(value, (*path, "warning")),
            never_recommend=self.boolean(value, (*path, "never_recommend")),
            expect=self.expect(value, (*path, "expect")),
        )
        return None if label is None else config

    def expect(self, table: dict[str, Any], path: KeyPath) -> Literal["same"] | None:
        value = table.get(str(path[-1]))
        if value is None:
            return None
        if value != "same":
            self.problem(path, f"must be 'same' (it measures the same as the baseline), not {describe(value)}")
            return None
        return "same"

    def mount(self, value: object, path: KeyPath) -> MountOptions:
        if not isinstance(value, dict):
            self.problem(path, f"must be a table of mount options such as {{ vers = 4.2 }}, not {describe(value)}")
            return MountOptions()
        options = []
        for name, option_value in value.items():
            rendered, error = check_mount_option(name, option_value)
            if error:
                self.problem(path, error, at=(*path, name))
            else:
                options.append(MountOption(name, rendered))
        for group in MOUNT_EXCLUSIVE:
            present = [name for name in group if name in value]
            if len(present) > 1:
                self.problem(path, f"{' and '.join(present)} exclude each other: keep one", at=(*path, present[1]))
        return MountOptions(tuple(options))

    def export(self, value: object, path: KeyPath) -> ExportOptionEdit:
        table = self.table(value, path, EXPORT_KEYS)
        if table is None:
            return ExportOptionEdit()
        to_set, to_unset = self.strings(table, (*path, "set")), self.strings(table, (*path, "unset"))
        for item_path, item in to_set:
            error = check_export_option(item)
            if error:
                self.problem(item_path[:-1], error, at=item_path)
        for item_path, name in to_unset:
            if name not in EXPORT_NAMES or name in EXPORT_REFUSED:
                message = f"unset takes option names: '{name}' is not one{did_you_mean(name, EXPORT_NAMES)}"
                self.problem(item_path[:-1], message, at=item_path)
            elif name not in EXPORT_TUNABLE:
                self.problem(item_path[:-1], f"'{name}' is not allowed in a recipe: {NOT_TUNABLE}", at=item_path)
        set_names = [(item_path, item.partition("=")[0]) for item_path, item in to_set]
        for position, (item_path, name) in enumerate(set_names):
            for _, other in set_names[:position]:
                if name in FLAG_OPTIONS and other in FLAG_OPTIONS and other != name:
                    (bit, on), (other_bit, other_on) = FLAG_OPTIONS[name], FLAG_OPTIONS[other]
                    if bit == other_bit and on != other_on:
                        self.problem(item_path[:-1], f"'{other}' and '{name}' exclude each other", at=item_path)
            if name in (unset for _, unset in to_unset):
                self.problem(item_path[:-1], f"'{name}' is both set and unset", at=item_path)
        return ExportOptionEdit(tuple(item for _, item in to_set), tuple(name for _, name in to_unset))

    def condition(self, value: object, path: KeyPath) -> Condition:
        if not isinstance(value, dict):
            self.problem(
                path, f'must be a table of facts such as {{ server_nfs_version = "4.0" }}, not {describe(value)}'
            )
            return Condition()
        tests: list[FactTest] = []
        for fact, test in value.items():
            fact_path = (*path, fact)
            if fact not in FACTS:
                self.problem(
                    path, f"unknown fact '{fact}'{did_you_mean(fact, FACTS)}; known: {', '.join(FACTS)}", at=fact_path
                )
                continue
            kind = FACTS[fact].kind
            if not isinstance(test, dict):
                equals = self.fact_value(kind, test, fact_path)
                if equals is not None:
                    tests.append(FactTest(fact, equals=equals))
                continue
            allowed = TEST_KEYS[kind]
            for name in test:
                if name not in allowed:
                    hint = did_you_mean(name, allowed)
                    self.problem(
                        fact_path,
                        f"unknown test '{name}'{hint}; {KIND_NAMES[kind]} fact takes: {', '.join(allowed)}",
                        at=(*fact_path, name),
                    )
            if not test:
                self.problem(fact_path, f"empty test; {KIND_NAMES[kind]} fact takes: {', '.join(allowed)}")
            if "not" in test:
                equals = self.fact_value(kind, test["not"], (*fact_path, "not"))
                if equals is not None:
                    tests.append(FactTest(fact, equals=equals, negate=True))
            bounds = {name: test[name] for name in ("at_least", "below") if name in test and name in allowed}
            for name, bound in bounds.items():
                if not is_integer(bound):
                    self.problem((*fact_path, name), f"must be an integer, not {describe(bound)}")
            if bounds and all(is_integer(bound) for bound in bounds.values()):
                tests.append(FactTest(fact, at_least=bounds.get("at_least"), below=bounds.get("below")))
        return Condition(tuple(tests))

    def fact_value(self, kind: FactKind, value: object, path: KeyPath) -> Scalar | None:
        if kind == "versions":
            version = version_text(value)
            if version in NFS_VERSIONS:
                return version
            self.problem(path, f"must be an NFS version ({', '.join(NFS_VERSIONS)}), not {describe(value)}")
        elif kind == "int":
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            self.problem(path, f"must be an integer, not {describe(value)}")
        elif isinstance(value, bool):
            return value
        else:
            self.problem(path, f"must be true or false, not {describe(value)}")
        return None

    def notes(self, value: object) -> tuple[Note, ...]:
        path: KeyPath = ("notes",)
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            self.problem(path, "must be an array of tables: one [[notes]] section per note")
            return ()
        notes = []
        for index, item in enumerate(value):
            self.table(item, (*path, index), NOTE_KEYS)
            text = self.text(item, (*path, index, "text"))
            when = self.condition(item.get("when", {}), (*path, index, "when"))
            for name in placeholders(text or ""):
                if name not in FACTS:
                    hint = did_you_mean(name, FACTS)
                    self.problem((*path, index, "text"), f"unknown fact '{{{name}}}'{hint}; known: {', '.join(FACTS)}")
            if text is not None:
                notes.append(Note(text, when))
        return tuple(notes)
