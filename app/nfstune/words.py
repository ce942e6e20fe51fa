"""Numbers said with their nouns, the one place that puts the plural on: "1 configuration", "3 configurations",
"rounds 4 to 8", "round 4" (never "1 configurations" nor "4 to 4"). Pure text, used from every layer."""

from __future__ import annotations

from collections.abc import Sequence


def plural(n: int | float, noun: str, many: str | None = None) -> str:
    """`noun` as it reads after `n`: 'round' for 1, else 'rounds' (or `many`)."""
    if n == 1:
        return noun
    return many if many is not None else noun + "s"


def count(n: int | float, noun: str, many: str | None = None) -> str:
    """'1 configuration', '3 configurations', '0 rounds'; `many` for a plural not made with an "s"."""
    shown = f"{n:g}" if isinstance(n, float) else str(n)
    return f"{shown} {plural(n, noun, many)}"


def span(low: int, high: int, noun: str, many: str | None = None) -> str:
    """'3 to 8 rounds', or '3 rounds' when both ends are the same."""
    if low == high:
        return count(low, noun, many)
    return f"{low} to {high} {plural(high, noun, many)}"


def numbered_span(low: int, high: int, noun: str, many: str | None = None) -> str:
    """'rounds 4 to 8', or 'round 4' when both ends are the same (a noun before its numbers)."""
    if low == high:
        return f"{noun} {low}"
    return f"{plural(2, noun, many)} {low} to {high}"


def and_list(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"
