"""A real lab host that records what it is sent, in order: every command (run or started) and every file written,
with whether it ran as root. The commands still run on the VM: what is recorded is what really changed it. And
the check that what a session changed, in order, is what its plan showed (issue 27).

A change is a file written, or a command run as root that is not one of the reads below: nfstune changes hosts only
as root. A value only the run knows (the thread count before, the date in a copy's name) stands in the plan as a
placeholder in angle brackets, and matches any value there."""

from __future__ import annotations

import re
import shlex
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.changes.steps import Step
from nfstune.recipes.plan import Plan
from nfstune.remote import CommandResult, Host, RemoteProcess


@dataclass(frozen=True)
class Sent:
    role: str  # the name the plan gives the host: "server", "client"
    kind: str  # "run" | "write"
    text: str  # the command line as the host was sent it, or the path written
    sudo: bool

    @property
    def line(self) -> str:
        """A `sh -c LINE` argv as the LINE its shell runs, so that it reads as a plan's shell step does."""
        if self.kind == "run":
            try:
                words = shlex.split(self.text)
            except ValueError:
                return self.text
            if len(words) == 3 and words[:2] == ["sh", "-c"]:
                return words[2]
        return self.text


class RecordingHost:
    """Stands for `host` wherever the engine takes a Host: what it is sent goes to the shared `log` (the server's
    and the client's calls in one order), then on to the real host."""

    def __init__(self, host: Host, role: str, log: list[Sent], lock: threading.Lock) -> None:
        self._host, self._role, self._log, self._lock = host, role, log, lock

    def _note(self, kind: str, text: str, sudo: bool) -> None:
        with self._lock:
            self._log.append(Sent(self._role, kind, text, sudo))

    def run(self, command: str | Sequence[str], *, sudo: bool = False, **kw: Any) -> CommandResult:
        self._note("run", command if isinstance(command, str) else shlex.join(command), sudo)
        return self._host.run(command, sudo=sudo, **kw)

    def start(self, command: str | Sequence[str], *, sudo: bool = False, **kw: Any) -> RemoteProcess:
        self._note("run", command if isinstance(command, str) else shlex.join(command), sudo)
        return self._host.start(command, sudo=sudo, **kw)

    def write_file(self, path: str, data: bytes, *, sudo: bool = False, **kw: Any) -> None:
        self._note("write", path, sudo)
        self._host.write_file(path, data, sudo=sudo, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._host, name)


# what nfstune reads as root (root-only files, the kernel's export tables, a check that a server listens)
READS = [
    r"exportfs -s",
    r"cat /proc/fs/nfsd/(threads|portlist)",
    r"cat /proc/net/rpc/nfsd\.export/content; .*",
    r"for d in /proc/fs/nfsd/clients/\*/; do .*",  # the connected clients
    r"systemctl is-active nfs-server",
    r"find -L /etc/(exports|nfs\.conf)\.d .*",  # the drop-in files, listed
    r"inode=\$\(awk .*",  # fio's server: listening yet?
    r"cat /proc/net/tcp /proc/net/tcp6 .*",  # fio's server: is its port free?
]


def planned(plan: Plan) -> list[Step]:
    """The plan's changes in the order the engine makes them: the session's, each visit's set-up, runs and undo,
    then the session's undo."""
    visits = [step for item in plan.recipes for v in item.visits for step in (*v.setup, *v.run, *v.undo)]
    return [s for s in (*plan.session.do, *visits, *plan.session.undo) if s.sudo or s.writes is not None]


def changes(sent: Sequence[Sent]) -> list[Sent]:
    return [s for s in sent if s.kind == "write" or (s.sudo and not any(re.fullmatch(r, s.line, re.S) for r in READS))]


PLACEHOLDER = re.compile(r"<[a-z][^<>]*>")  # "<the count now>"; a redirection ("< /dev/null >") is no placeholder


def _words(planned_line: str) -> list[str]:
    """A plan's line as the shell splits it, each placeholder one `<>` (it may hold spaces or quotes)."""
    return shlex.split(PLACEHOLDER.sub("<>", planned_line))


def _token(planned_token: str) -> re.Pattern[str]:
    parts = re.split(r"(<>)", PLACEHOLDER.sub("<>", planned_token))
    return re.compile("".join(".+" if p == "<>" else re.escape(p) for p in parts), re.S)


def same(step: Step, sent: Sent) -> bool:
    """Whether `sent` is `step` as it ran: the same host, the same file or the same words, a placeholder standing
    for any value."""
    if step.host != sent.role or (step.writes is not None) != (sent.kind == "write"):
        return False
    if step.writes is not None:
        return bool(_token(step.writes).fullmatch(sent.text))
    want, got = _words(step.line), shlex.split(sent.line)
    return len(want) == len(got) and all(_token(w).fullmatch(g) for w, g in zip(want, got, strict=True))


def shown(steps: Sequence[Step], sent: Sequence[Sent]) -> str:
    rows = []
    for i in range(max(len(steps), len(sent))):
        a = steps[i] if i < len(steps) else None
        b = sent[i] if i < len(sent) else None
        mark = "  " if a is not None and b is not None and same(a, b) else "!!"
        rows.append(f"{mark} plan: {a.host + ' ' + (a.writes or a.line) if a else '-'}")
        rows.append(f"   ran:  {b.role + ' ' + b.line if b else '-'}")
    return "\n".join(rows)


def assert_plan_ran(plan: Plan, sent: Sequence[Sent]) -> list[Sent]:
    """Every change the session made, in order, is the plan's step of that place; a step the plan says runs only
    under a condition (`Step.when`: "when /mnt/nfstune is missing") may be absent. Returns the changes."""
    want, ran = planned(plan), changes(sent)
    i = j = 0
    while i < len(want) and j < len(ran):
        if same(want[i], ran[j]):
            i, j = i + 1, j + 1
        elif want[i].when:
            i += 1
        else:
            break
    rest = [step for step in want[i:] if not step.when]
    assert j == len(ran) and not rest, shown(want, ran)
    return ran
