"""A check's stored outcome (session/check_run.CheckResult.to_json) in words: the check's own report, and the line
the session it checked gets in its report ("checked on 2026-11-28 (session 14): held"). Pure."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

# what each word means to the admin: how the answer is coloured (the rest are neither good nor bad)
MEANING = {"held": "good", "did not hold": "bad", "settings not in force": "bad"}


# what the report says once under a check's answer: what was compared, and what each word means
ABOUT = (
    "A check measures the workloads behind an applied recommendation again, on the settings in force (verified "
    "first), and compares them with what the session measured for the configuration it recommended. Held: the whole "
    "95 % interval of now against then lies above the halfway line between the session's baseline level (no gain) "
    "and its recommended level; did not hold: below it; not settled: it straddles the line, and more rounds (or a "
    "steadier session to compare with) would tell. Then and now are two times, not interleaved visits: a ceiling "
    "that moved in between, the network or the server's disk, is named as the likely cause."
)


def check_lines(outcome: Mapping[str, Any], check_id: int | None) -> list[str]:
    """The headline first, then each workload, the likely cause, what was verified in force and the notes."""
    session = outcome.get("session")
    word, counts = str(outcome.get("word") or "not finished"), str(outcome.get("headline") or "").partition(" (")[2]
    lines = [f"Check of session {session}'s Apply: {word.upper()}{f' ({counts}' if counts else ''}"]
    if check_id is not None and outcome.get("workloads"):
        lines.append(f"(measured as session {check_id}; `nfstune report {check_id}` for its figures)")
    lines += [f"  not in force: {text}" for text in outcome.get("mismatches") or ()]
    if outcome.get("stopped"):
        lines.append(f"  {outcome['stopped']}")
    lines += [f"  {held['text']}" for held in outcome.get("workloads") or ()]
    # a ceiling that moved is the likely cause of a check that did not hold; beside one that held, only a change
    cause = "likely cause" if word in ("did not hold", "not settled") else "changed since, the check held all the same"
    lines += [f"  {cause}: {text}" for text in outcome.get("ceilings") or ()]
    verified = outcome.get("verified") or ()
    lines.append("Verified in force first:" if verified else "Nothing could be verified in force.")
    lines += [f"  {text}" for text in verified]
    lines += [f"  note: {text}" for text in outcome.get("notes") or ()]
    return lines


def check_answer(checked: int, kept: Mapping[str, Any] | None) -> list[str]:
    """A check session's answer, where another session has its three lines: the check's word first, then its
    lines. `checked`: the session whose Apply it checked; `kept`: its stored outcome (None: it kept none, it
    stopped before)."""
    return [line.strip() for line in check_lines(kept or {"session": checked, "word": "not finished"}, None)]


def checked_lines(checks: Sequence[tuple[int, float, Mapping[str, Any] | None]]) -> list[str]:
    """`checks`: Results.checks_of(): one line each."""
    lines = []
    for check_id, started, outcome in checks:
        day = time.strftime("%Y-%m-%d", time.localtime(started))
        word = (outcome or {}).get("headline") or (outcome or {}).get("word") or "not finished"
        lines.append(f"checked on {day} (session {check_id}): {word}")
    return lines
