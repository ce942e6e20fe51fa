"""A host change as steps: each change kind's module (export.py, mount.py, nfsd_threads.py, ...) writes its steps
once, and both the plan (`nfstune run --dry-run`, the desktop's "Show the plan") and the change itself use them, so
that what the admin reads before saying yes is what runs. Pure: running a step is transaction.run_step's.

A value only the run can know (the thread count before, the exports file that defines the share) stands in the
plan's steps as a placeholder in angle brackets, `<the count before>`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from nfstune.shell_text import join

Role = str  # "server", "client", or a further client's name ("client2", ...)


@dataclass(frozen=True)
class Step:
    host: Role
    argv: tuple[str, ...]  # the exact remote argv (a shell line is ("sh", "-c", "...")); () for a file written
    sudo: bool
    what: str
    writes: str | None = None  # a file this step writes (through SFTP, atomically) instead of running argv
    when: str = ""  # the condition the step runs under, in words ("when /etc/exports.d is missing"); "" always

    @property
    def line(self) -> str:
        """The command line the host is sent: a shell line as it is (the host runs it in its own shell), an argv
        quoted for that shell."""
        if len(self.argv) == 3 and self.argv[:2] == ("sh", "-c"):
            return self.argv[2]
        return join(self.argv)

    def text(self) -> str:
        """One line: a multi-line script shows its first line and how many more it has."""
        if self.writes is not None:
            return f"{self.host}: write {self.writes}{' as root' if self.sudo else ''}"
        shown = [
            a if "\n" not in a.strip() else f"{a.splitlines()[0]} ...({a.strip().count(chr(10))} more lines)"
            for a in self.argv
        ]
        return f"{self.host}$ {'sudo ' if self.sudo else ''}{join(shown)}"


def shell(host: Role, line: str, what: str, *, sudo: bool = True) -> Step:
    return Step(host, ("sh", "-c", line), sudo, what)


def command(host: Role, argv: tuple[str, ...], what: str, *, sudo: bool = True) -> Step:
    return Step(host, argv, sudo, what)


def write(host: Role, path: str, what: str) -> Step:
    return Step(host, (), True, what, writes=path)


@dataclass(frozen=True)
class Steps:
    """A change's steps, and how it is undone: `undo` newest first, as a transaction undoes it."""

    do: tuple[Step, ...] = ()
    undo: tuple[Step, ...] = ()

    def only(self, when: str) -> Steps:
        """These steps, each run only `when` (the host's state decides: the plan cannot know it)."""
        return Steps(
            tuple(dataclasses.replace(s, when=s.when or when) for s in self.do),
            tuple(dataclasses.replace(s, when=s.when or when) for s in self.undo),
        )

    def then(self, later: Steps) -> Steps:
        """This change, then `later`: its steps after these, its undo before these."""
        return Steps(self.do + later.do, later.undo + self.undo)
