"""What the admin is told before nfstune first changes a server's export in a session: who else uses that server
now (they share its exports, and async puts their writes at risk too), and for how long the export runs async.
Pure: the engine lists the clients and asks; the CLI and the desktop show `message()`."""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.nfs.kernel_view import NfsClient
from nfstune.words import count


@dataclass(frozen=True)
class AsyncStep:
    """One configuration that runs the export async: its name, workloads and the most visits it gets (one a
    round, and the warm-ups when it is the baseline)."""

    name: str
    workloads: int
    visits: int  # warm-ups included


@dataclass(frozen=True)
class ServerChange:
    server: str  # the server's label
    share: str
    clients: tuple[NfsClient, ...]  # the clients connected now (nfstune itself has no mount yet)
    own_address: str | None  # nfstune's client host as the server sees it (its own mounts come from there)
    own_label: str
    configs: int  # server-side configurations planned
    async_steps: tuple[AsyncStep, ...]

    def message(self) -> str:
        lines = [
            f"nfstune is about to change the export {self.share} on {self.server} "
            f"({count(self.configs, 'server-side configuration')}; each change is undone when its measurement ends). "
            "Connected to that server now:"
        ]
        for c in self.clients:
            own = f" (from {self.own_label}, the client nfstune uses)" if self.own_address == c.host else ""
            lines.append(f"  {c.address}  NFS {c.version}{'  ' + c.name if c.name else ''}{own}")
        if self.async_steps:
            runs = sum(s.workloads * s.visits for s in self.async_steps)
            visits = sum(s.visits for s in self.async_steps)
            names = ", ".join(s.name for s in self.async_steps)
            lines.append(
                f"The export runs async during {names}: {visits} visit(s) of a few workload runs each ({runs} timed "
                "run(s)) at most, each undone when it ends, while each client's "
                "writes may be acknowledged before they reach the server's disk; a crash or power cut of the server "
                "in that window can lose them (exports(5))."
            )
        else:
            lines.append("No configuration runs the export async.")
        return "\n".join(lines)
