"""Load recipe TOML files: the shipped folder first, then the user's; errors say file:line: key: message.

A broken file costs only itself: load_recipes returns the good recipes and the errors. The keys are checked by
recipes/checker.py, their lines found by recipes/toml_lines.py.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from nfstune import paths
from nfstune.recipes.checker import Checker
from nfstune.recipes.model import Recipe
from nfstune.recipes.toml_lines import KeyLines, KeyPath, dotted, line_of


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
        try:
            names = sorted(os.listdir(directory))
        except (FileNotFoundError, NotADirectoryError):
            continue  # the user's folder usually does not exist
        except OSError as error:
            errors.append(RecipeError(directory, None, "", f"cannot read the folder: {error.strerror or error}"))
            continue
        for name in names:
            if not name.endswith(".toml") or name.startswith("."):
                continue  # editor lock and backup files
            path = directory / name
            recipe, found = load_recipe_file(path, user_provided=index > 0)
            errors.extend(found)
            if recipe is not None:
                earlier = loaded.get(recipe.id)
                if earlier is not None:
                    recipe = replace(recipe, overrides=earlier.overrides or earlier.source)
                loaded[recipe.id] = recipe
    return list(loaded.values()), errors


RECIPE_SIZE_LIMIT = 1 << 20  # far more than a recipe needs (the shipped ones are under 10 KiB)


class _Unreadable(Exception):
    pass


def _check_regular(mode: int, size: int) -> None:
    if not stat.S_ISREG(mode):
        raise _Unreadable(f"not a regular file but {paths.file_kind(mode)}: a recipe is read from a regular file only")
    if size > RECIPE_SIZE_LIMIT:
        raise _Unreadable(f"{size} bytes, more than a recipe may be ({RECIPE_SIZE_LIMIT >> 20} MiB)")


def _read_bounded(path: Path) -> bytes:
    """A recipe file's bytes, from a regular file of at most RECIPE_SIZE_LIMIT bytes. A named pipe would block
    every command that loads recipes, a link to /dev/zero would be read for ever: each is refused without being
    read, and checked again on the open file (it may have been swapped in between)."""
    try:
        status = os.stat(path)
        _check_regular(status.st_mode, status.st_size)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as error:
        raise _Unreadable(f"cannot read the file: {error.strerror or error}") from None
    try:
        status = os.fstat(fd)
        _check_regular(status.st_mode, status.st_size)
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(RECIPE_SIZE_LIMIT + 1)
    except OSError as error:
        raise _Unreadable(f"cannot read the file: {error.strerror or error}") from None
    finally:
        os.close(fd)
    _check_regular(stat.S_IFREG, len(data))  # it grew since fstat
    return data


_TOML_POSITION = re.compile(r"^(?P<message>.*?) \(at line (?P<line>\d+), column (?P<column>\d+)\)$", re.DOTALL)


def load_recipe_file(path: Path, *, user_provided: bool = False) -> tuple[Recipe | None, list[RecipeError]]:
    """One recipe file: the recipe, or None and every error found in it."""
    try:
        raw = _read_bounded(path)
    except _Unreadable as error:
        return None, [RecipeError(path, None, "", str(error))]
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
    depth = _nesting(data)
    if depth > MAX_NESTING:
        message = f"tables and arrays nest {depth} deep; a recipe's nest at most {MAX_NESTING} (e.g. [[configs]] mount)"
        return None, [RecipeError(path, _deep_header_line(text), "", message)]
    huge = list(_huge_integers(data, ()))
    if huge:
        lines = KeyLines(text).lines
        return None, [RecipeError(path, line_of(lines, at), dotted(at), f"{HUGE_MESSAGE}") for at in huge]
    checker = Checker(path.stem)
    recipe = checker.recipe(data)
    if checker.problems or recipe is None:
        lines = KeyLines(text).lines
        errors = [RecipeError(path, line_of(lines, p.at), dotted(p.key), p.message) for p in checker.problems]
        errors.sort(key=lambda error: error.line if error.line is not None else 0)  # top-level ones, then in order
        return None, errors
    return replace(recipe, source=path, user_provided=user_provided), []


def recipes_by_id() -> dict[str, Recipe]:
    """The recipes as they are now (shipped and the user's), by id: what a stored session's baselines, margins
    and A/A checks are read from."""
    recipes, _errors = load_recipes(default_recipe_dirs())
    return {r.id: r for r in recipes}


# A recipe nests 3 deep ([[configs]] -> mount -> a value); this leaves room for what a later format may add while
# every walk over the document (the checks below, the key lines) stays far inside Python's recursion limit
MAX_NESTING = 16


def _nesting(value: object) -> int:
    """How deep tables and arrays nest in `value`, counted without recursion (a hostile file may nest thousands
    deep: tomllib reads dotted headers such as [a.b.c...] without recursing)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _deep_header_line(text: str) -> int | None:
    """The first table header whose dotted name is longer than a recipe ever nests; None if none (an inline
    table or an array nests instead)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("[") and line.count(".") >= MAX_NESTING:
            return number
    return None


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
