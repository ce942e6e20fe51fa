"""A verdict as the desktop shows it: its kind in plain words, the estimate with its CI in a few words for a table
cell, the full sentence (with what would settle it) for a tooltip or a detail. The words are statistics.verdict's."""

from __future__ import annotations

from nfstune.statistics.verdict import Verdict, format_change

KIND_WORDS = {
    "faster": "faster",
    "slower": "slower",
    "same": "no difference that matters",
    "not settled": "not settled",
    "unreliable": "unreliable",
}
_KIND_MEANING = {"unreliable": "warning", "not settled": "muted"}  # effects are bold instead


def kind_meaning(kind: str) -> str | None:
    """What a verdict's words in a table are coloured as (ui/tint.py); None: the text's own colour."""
    return _KIND_MEANING.get(kind)


def ci_text(verdict: Verdict) -> str:
    """The estimate and its CI in words, for the verdict column: '23 % faster (95 % CI 12 % to 35 % faster)'."""
    if verdict.ratio is None or verdict.ci is None:
        return "too few rounds for a CI"
    low, high = verdict.ci
    estimate = format_change(verdict.ratio)
    if verdict.kind == "not settled":
        estimate += " so far"
    elif verdict.kind == "unreliable":
        estimate = f"should be the same, came out {estimate}"
    return f"{estimate} (95 % CI {_range_text(format_change(low), format_change(high))})"


def _range_text(low: str, high: str) -> str:
    """'3.2x to 5.3x faster' rather than '3.2x faster to 5.3x faster'; '3.1 % slower to 2.4 % faster' as is."""
    if low == high:  # every round gave the same ratio: "no change", not "no to no change"
        return low
    low_value, _, low_word = low.rpartition(" ")
    return f"{low_value} to {high}" if high.endswith(f" {low_word}") else f"{low} to {high}"


def verdict_sentence(verdict: Verdict) -> str:
    """The full sentence, and what would settle it when it is not settled."""
    return verdict.text + (f"; {verdict.settle}" if verdict.settle else "")
