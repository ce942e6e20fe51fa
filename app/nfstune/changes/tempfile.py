"""A file nfstune writes on a host for the session (the small-files tree's tar, fio's job files) and removes at its
end: journaled as a "tempfile" before it is first written, so that a crash leaves nothing behind either."""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.changes.host_change import OnHosts, Where
from nfstune.changes.steps import Role, Steps
from nfstune.changes.transaction import undo_tempfile


@dataclass(frozen=True)
class Tempfile:
    role: Role
    path: str

    def steps(self, where: Where) -> Steps:
        return Steps((), (undo_tempfile(self.role, self.path),))

    def apply(self, on: OnHosts) -> None:
        on.tx.record(on.host(self.role), "tempfile", self.path)
        on.tempfiles.add(self.path)
