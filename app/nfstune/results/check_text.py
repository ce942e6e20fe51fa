"""A check's stored outcome (session/check_run.CheckResult.to_json) in words: the check's own report, and the line
the session it checked gets in its report ("checked on 2026-11-28 (session 14): held"). Pure."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.results.held import Held

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
    lines += [f"  {cause_word(word)}: {text}" for text in outcome.get("ceilings") or ()]
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


@dataclass(frozen=True)
class CheckShown:
    """A check session as History draws it: the word first, the picture's rows, the likely cause in one line, and
    the long words that stand behind Details. Read from the stored outcome: nothing is judged again."""

    word: str
    headline: str  # the word, as check_lines says it first
    session: int  # the session whose Apply it checked
    rows: tuple[Held, ...]  # what the check plot draws
    cause: str | None  # the first ceiling that moved, in one line
    said: tuple[str, ...]  # what stands where there is no picture: settings not in force, why it stopped
    sentences: tuple[str, ...]  # each workload's sentence, with its interval and what it was decided against
    moved: tuple[str, ...]  # each ceiling that moved since, as the likely cause or only a change
    verified: tuple[str, ...]
    notes: tuple[str, ...]


def held_rows(kept: Mapping[str, Any]) -> tuple[Held, ...]:
    """The workloads as CheckResult.to_json kept them (JSON keeps the interval as a list)."""
    return tuple(Held(**{**h, "ci": tuple(h["ci"]) if h.get("ci") else None}) for h in kept.get("workloads") or ())


def check_shown(checked: int, kept: Mapping[str, Any] | None) -> CheckShown:
    """`checked`: the session whose Apply the check checked; `kept`: its stored outcome (None: it kept none)."""
    outcome = kept or {"session": checked, "word": "not finished"}
    word = str(outcome.get("word") or "not finished")
    moved = [str(text) for text in outcome.get("ceilings") or ()]
    cause = None
    if moved:  # the likely cause of a check that did not hold; beside one that held, only a change
        more = f" (and {len(moved) - 1} more under Details)" if len(moved) > 1 else ""
        cause = f"{'Likely cause' if word in ('did not hold', 'not settled') else 'Changed since'}: {moved[0]}{more}"
    said = [f"Not in force: {text}" for text in outcome.get("mismatches") or ()]
    if outcome.get("stopped"):
        said.append(str(outcome["stopped"]))
    rows = held_rows(outcome)
    return CheckShown(
        word=word,
        headline=check_lines(outcome, None)[0],
        session=int(outcome.get("session") or checked),
        rows=rows,
        cause=cause,
        said=tuple(said),
        sentences=tuple(h.text for h in rows),
        moved=tuple(f"{cause_word(word)}: {text}" for text in moved),
        verified=tuple(str(text) for text in outcome.get("verified") or ()),
        notes=tuple(str(text) for text in outcome.get("notes") or ()),
    )


def cause_word(word: str) -> str:
    """What a ceiling that moved is, beside this word."""
    return "likely cause" if word in ("did not hold", "not settled") else "changed since, the check held all the same"
