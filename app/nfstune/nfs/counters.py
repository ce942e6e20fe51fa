"""Rows of numbers that the kernel prints in a fixed order, named from the kernel source.

Kernels add counters at the end of a row over the years, so one row can be longer (newer kernel) or shorter
(older kernel) than the list of names we know. Neither is an error: names cover the first values, values past
the names stay in ``extra``, and names past the values are simply absent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Counters:
    names: tuple[str, ...]
    values: tuple[int, ...]

    def __getitem__(self, name: str) -> int:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def get(self, name: str) -> int | None:
        """The value named `name`, or None when this kernel did not print it (or the name is unknown)."""
        try:
            index = self.names.index(name)
        except ValueError:
            return None
        return self.values[index] if index < len(self.values) else None

    @property
    def extra(self) -> tuple[int, ...]:
        """Values printed past the names we know (a newer kernel than our tables)."""
        return self.values[len(self.names) :]

    def as_dict(self) -> dict[str, int]:
        """The named values, in kernel order; `extra` is left out."""
        return dict(zip(self.names, self.values, strict=False))


# The kernel prints at most a u64 (20 digits); int() refuses more than 4300 (sys.get_int_max_str_digits()).
MAX_DIGITS = 40


def is_number(word: str) -> bool:
    """ASCII digits only (str.isdigit() alone also takes "²", which int() refuses), and no more than MAX_DIGITS
    of them: a longer run is not a number any kernel or tool prints, and int() may refuse it."""
    return len(word) <= MAX_DIGITS and word.isascii() and word.isdigit()


def parse_ints(words: Iterable[str]) -> tuple[int, ...] | None:
    """All words as integers, or None if any is not one (the caller then keeps the line raw)."""
    values: list[int] = []
    for word in words:
        # int() alone would also take "1_000", " 7" and non-ASCII digits, none of which the kernel prints
        if not is_number(word.removeprefix("-")):
            return None
        values.append(int(word))
    return tuple(values)
