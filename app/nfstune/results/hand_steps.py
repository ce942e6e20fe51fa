"""What a session's guided hand change did, in words: each block, what the admin was asked before it, when, and
what they answered, and how the NAS was left (the report, the CLI's `report`, History's details). Pure."""

from __future__ import annotations

import time
from collections.abc import Sequence

from nfstune.store import StoredHandStep

TITLE = "Changed by hand (a guided hand change)"
# what the report says once above the steps: what a guided hand change is and what its verdict can say
ABOUT = (
    "nfstune could not change this NAS itself, so you made the change in the NAS's own interface when asked, and put "
    "it back: blocks of rounds without it and with it, in turn (A B A B A). The verdict compares whole blocks, not "
    "single rounds, since whatever a change does beside the setting is shared by a whole block; with so few blocks "
    "only a large difference settles. Below: what you were asked, when, and what you answered."
)
_ANSWERS = {
    "continue": "done, continued",
    "stop": "stopped here",
    "as-it-was": "left as it was",
    "with-change": "left with the change",
}


def _clock(at: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at)) if at is not None else "?"


def hand_lines(steps: Sequence[StoredHandStep]) -> list[str]:
    """One line a step, in the order they happened; [] without a hand change."""
    lines = []
    for step in steps:
        if step.kind == "block" and step.prompt is None:
            lines.append(f"{step.recipe}: block {(step.block or 0) + 1}, {step.config_label}: the NAS as it was")
        elif step.kind == "block":
            answer = _ANSWERS.get(step.answer or "", step.answer or "not answered")
            waited = (
                f", {step.answered_at - step.asked_at:.0f} s later"
                if step.asked_at is not None and step.answered_at is not None
                else ""
            )
            lines.append(
                f"{step.recipe}: before block {(step.block or 0) + 1} ({step.config_label}), asked at "
                f"{_clock(step.asked_at)}: {step.prompt} Answer: {answer}{waited}"
            )
        else:
            answer = _ANSWERS.get(step.answer or "", step.answer or "not answered")
            lines.append(f"{step.recipe}: at the end, {_clock(step.answered_at)}: {answer} ({step.config_label})")
    return lines
