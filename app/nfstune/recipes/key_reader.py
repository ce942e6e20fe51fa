"""A recipe document's keys read as what each must hold (a table of known keys, a one-line string, an integer in
a range, true or false, an array of strings, a positive number), every problem collected with the key it is about
instead of stopping at the first. The checks of recipes/checker.py and the modules beside it all write to one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nfstune.nfs.option_rules import describe, did_you_mean
from nfstune.recipes.toml_lines import KeyPath


@dataclass(frozen=True)
class Problem:
    key: KeyPath  # what the message is about
    at: KeyPath  # where its line is looked for (the offending key itself, when there is one)
    message: str


class KeyReader:
    """The typed reads of a recipe's keys, and the problems they found."""

    def __init__(self) -> None:
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

    def number(self, table: dict[str, Any], path: KeyPath, high: float, default: float) -> float:
        """A positive number (integer or float) at most `high`; `default` when absent or wrong."""
        value = table.get(str(path[-1]))
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= high:
            self.problem(path, f"must be a number above 0 and at most {high:g}, not {describe(value)}")
            return default
        return float(value)
