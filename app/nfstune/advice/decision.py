"""A recommendation said as a decision, for the top of its page: one headline in an admin's words ("Change 1 option
on nas and add 1 line on this computer"), one line of why (the biggest measured gain that drives it), what changes
in each line (async → sync), and each reason and note cut to a few words; the full sentences stay with the
Recommendation, for a Details disclosure. Pure."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from nfstune.advice.gains import biggest
from nfstune.advice.recommend import Reason, Recommendation
from nfstune.words import count

SAFE = "sync keeps your data safe"
NOTHING = "Your settings already read as recommended: nothing to change"
NO_LOGIN = "change the NAS in its own interface"
RISK = "RISK: "  # how recommend marks a reason that names a risk in the admin's own line
# the words of a configuration line: exports(5) separates options by commas inside the clients' parentheses,
# fstab(5) by commas in the fourth field; whitespace separates the rest
_WORD = re.compile(r"[^\s,()]+")


@dataclass(frozen=True)
class Change:
    """Words of a line replaced (old and new), added (old empty) or taken out (new empty)."""

    old: tuple[str, ...]
    new: tuple[str, ...]
    client: str = ""  # the exports client whose options these are ("" in an fstab line)

    @property
    def text(self) -> str:
        """'async → sync', '+ vers=4.1', '\u2212 v3' (a minus sign), after 'client: ' when there is one."""
        where = f"{self.client}: " if self.client else ""
        if not self.old:
            return f"{where}+ {','.join(self.new)}"
        if not self.new:
            return f"{where}\u2212 {','.join(self.old)}"
        return f"{where}{','.join(self.old)} \u2192 {','.join(self.new)}"


@dataclass(frozen=True)
class Decision:
    headline: str
    why: str


@dataclass(frozen=True)
class ShortReason:
    option: str
    words: str
    risk: bool  # says what the admin's own line risks (nfstune leaves access as is)


def line_changes(before: str | None, after: str) -> tuple[Change, ...]:
    """What changes from `before` to `after`, word by word; () for a new line (`before` None) or the same one."""
    if before is None or before == after:
        return ()
    old, new = list(_WORD.finditer(before)), list(_WORD.finditer(after))
    matcher = difflib.SequenceMatcher(a=[m[0] for m in old], b=[m[0] for m in new], autojunk=False)
    return tuple(
        Change(
            tuple(m[0] for m in old[i1:i2]),
            tuple(m[0] for m in new[j1:j2]),
            _client(after, new[j1].start()) if j1 < len(new) else "",
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    )


def _client(line: str, at: int) -> str:
    """The exports client whose parenthesised options hold the character at `at` ("" outside any)."""
    opened = line.rfind("(", 0, at)
    if opened < 0 or line.rfind(")", 0, at) > opened:
        return ""
    words = _WORD.findall(line[:opened])
    return words[-1] if words and not line[:opened].endswith((" ", "\t")) else ""


def decision(rec: Recommendation, *, server_label: str, client_label: str) -> Decision:
    """The headline and the one line of why; `server_label` and `client_label` name the hosts as the page does."""
    client = _actions(rec.fstab_before, rec.fstab_line)
    if not rec.exports_line:  # no login on the server: the fstab line is the whole recommendation
        here = f"{_capital(client[0])} on {client_label}" if client else f"Nothing to change on {client_label}"
        if rec.fstab_before is None:
            here = f"Add this line on {client_label}"
        return Decision(f"{here}; {NO_LOGIN}", _why(rec))
    server = _actions(rec.exports_before, rec.exports_line)
    threads = rec.threads
    if threads is not None and threads.after is not None and threads.after != threads.before:
        server.append(f"set {threads.threads} nfsd threads")
    if server and client and server[0].startswith("change ") and client[0].startswith("change "):
        client[0] = client[0].removeprefix("change ")  # "change 1 option on nas and 1 option on this computer"
    parts = [f"{' and '.join(acts)} on {label}" for acts, label in ((server, server_label), (client, client_label))]
    if server and client:
        headline = f"{parts[0]}{',' if len(server) > 1 else ''} and {parts[1]}"
    elif server or client:
        headline = (
            f"{parts[0] if server else parts[1]}; nothing to change on {client_label if server else server_label}"
        )
    else:
        return Decision(NOTHING, _why(rec))
    return Decision(_capital(headline), _why(rec))


def _actions(before: str | None, after: str) -> list[str]:
    if before is None:
        return ["add 1 line"]
    changes = len(line_changes(before, after))
    return [f"change {count(changes, 'option')}"] if changes else []


def _why(rec: Recommendation) -> str:
    """The biggest measured gain of what changes first; then sync against async, said where it applies."""
    parts = []
    gain = biggest(rec.gains, offered=False)
    if gain is not None:
        parts.append(f"{gain.change} was measured {gain.words}")
    offered = biggest(rec.gains, offered=True)
    if offered is not None and parts:  # the gain that drives it said first: async only pointed at
        parts.append(f"{SAFE} (async: see its warning)")
    elif offered is not None:
        parts.append(f"{SAFE}; async was measured {offered.words}: see the warning before choosing it")
    elif rec.exports_before is not None and "async" in _WORD.findall(rec.exports_before):
        parts.append(f"{SAFE}: with async a crash of the server loses writes it had confirmed")
    if parts:
        return "; ".join(parts)
    if not rec.exports_line:
        return "Without a login on the NAS, only this computer's side was read and measured"
    if rec.exports_before is None or rec.fstab_before is None:
        return "The new lines use safe defaults: nothing measured here beat them"
    return "Nothing measured in this session was faster than what you have"


def short_reasons(reasons: Sequence[Reason], rec: Recommendation) -> tuple[ShortReason, ...]:
    """Each reason in a few words: its first clause, without the interval in parentheses; a measured version by its
    gain; a risk nfstune leaves in the admin's line (no_root_squash) on a line of its own."""
    out = []
    for reason in reasons:
        clauses = reason.why.split("; ")
        gain = next((g for g in rec.gains if g.change == reason.option), None)
        words = f"measured {gain.words}" if gain is not None else _plain(clauses[0])
        risk = words.startswith(RISK)
        out.append(ShortReason(reason.option, words.removeprefix(RISK), risk))
        for clause in clauses[1:]:
            option, _, why = clause.partition(": ")
            if option == "no_root_squash":
                out.append(ShortReason(option, _plain(why), True))
    return tuple(out)


def short_note(note: str) -> str:
    """A note's first sentence without what is in parentheses; a measurement that is not advice says so."""
    sentences = _plain(note).split(". ")
    short = sentences[0].rstrip(".").split("; ")[0]
    if any(s.startswith("Not recommended") for s in sentences[1:]):
        short += " \u2014 not recommended"  # the verdict alone would read as if the option might be worth setting
    return short


def _plain(text: str) -> str:
    """`text` without its parenthesised asides (an interval, a source), nested ones too; a parenthesis that is part
    of a word stays: nfs(5)."""
    out: list[str] = []
    depth = 0
    for at, char in enumerate(text):
        if depth == 0 and char == "(" and (at == 0 or text[at - 1].isspace()):
            depth = 1
            while out and out[-1].isspace():
                out.pop()
        elif depth and char in "()":
            depth += 1 if char == "(" else -1
        elif not depth:
            out.append(char)
    return "".join(out).strip()


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
