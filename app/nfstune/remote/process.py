"""A command running on a remote host: its output as it comes, its exit status, and a cancel that works.

Why the wrapper: closing an SSH channel without a pty leaves the remote command running, and sshd refuses the
SSH "signal" request for root sessions (docs/stack-notes.md). So every command runs as the leader of a new
process group (`setsid -w`), prints that group's id first, and cancel kills the whole group over a second channel.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from nfstune.remote.errors import Timeout, Unreachable
from nfstune.shell_text import sh_line

if TYPE_CHECKING:
    import paramiko

Stream = Literal["out", "err"]
KILL_GRACE_S = 0.5


@dataclass(frozen=True)
class CommandResult:
    command: str
    exit_status: int
    stdout: str
    stderr: str


def wrap(command: str, sudo_prefix: str) -> str:
    """The remote command line: a new process group whose id is the first line of stdout."""
    # eval, not another `sh -c`: each exec costs ~75 ms in the emulated lab VMs, a fifth of a short command's time;
    # `set --` first, so that the command sees no positional parameters, as under `sh -c`
    inner = 'echo $$; eval "set --; $1"'
    return "exec " + sudo_prefix + sh_line("setsid -w sh -c {inner} sh {command}", inner=inner, command=command)


class RemoteProcess:
    """Started by Host.start(). Iterate chunks() (or lines()) to read; cancel() from any thread."""

    def __init__(
        self,
        label: str,
        command: str,
        channel: paramiko.Channel,
        killer: Callable[[str], None],
        timeout: float | None,
        said: str = "",
    ) -> None:
        """`said`: what came on stderr before the command started (sudo's own words, read while answering it)."""
        self.label, self.command = label, command
        self._pending_err = said
        self._channel = channel
        self._killer = killer  # runs a kill command line on the host, over another channel
        self._deadline = None if timeout is None else time.monotonic() + timeout
        self._timeout = timeout
        self._decoders = {s: codecs.getincrementaldecoder("utf-8")("replace") for s in ("out", "err")}
        self._pending_out = ""
        self.pgid: int | None = None
        self.cancelled = False
        self.exit_status: int | None = None

    def await_start(self, limit: float) -> None:
        """Read the wrapper's first line (the process group id), so that cancel() works from now on. Output
        that came with it is kept for chunks()."""
        ch, deadline, buffer = self._channel, time.monotonic() + limit, ""
        while "\n" not in buffer and time.monotonic() < deadline:
            if ch.recv_ready():
                buffer += self._decoders["out"].decode(ch.recv(65536))
            elif ch.closed or (ch.exit_status_ready() and ch.eof_received):
                # a command that ended at once may have its output still on the way when it has exited (a local
                # process's pipe not yet read): only EOF says that all of it is here
                if not ch.recv_ready():
                    break
            else:
                time.sleep(0.005)
        first, newline, rest = buffer.partition("\n")
        if newline and first.strip().isdigit():
            self.pgid, self._pending_out = int(first), rest
        else:  # not our wrapper's line (sudo failed before it, say): pass it all on
            self._pending_out = buffer

    def chunks(self) -> Iterator[tuple[Stream, str]]:
        """Output as it arrives, until the command exits. Raises Timeout (after killing it) at the deadline."""
        ch = self._channel
        try:
            if self._pending_err:
                yield "err", self._pending_err
                self._pending_err = ""
            if self._pending_out:
                yield "out", self._pending_out
                self._pending_out = ""
            while True:
                got = False
                if ch.recv_ready():
                    text = self._decoders["out"].decode(ch.recv(65536))
                    got = True
                    if text:
                        yield "out", text
                if ch.recv_stderr_ready():
                    text = self._decoders["err"].decode(ch.recv_stderr(65536))
                    got = True
                    if text:
                        yield "err", text
                if got:
                    continue
                if ch.exit_status_ready() and ch.eof_received:
                    if ch.recv_ready() or ch.recv_stderr_ready():
                        continue  # it came in after the checks above: all of it is here now, read it first
                    break
                if ch.closed and not ch.exit_status_ready():
                    raise Unreachable(self.label, f"connection closed while running `{self.command}`")
                if self._deadline is not None and time.monotonic() > self._deadline:
                    self.cancel()
                    raise Timeout(self.label, self.command, self._timeout or 0)
                time.sleep(0.01)
            for stream in ("out", "err"):
                tail = self._decoders[stream].decode(b"", final=True)
                if tail:
                    yield stream, tail
            status = ch.recv_exit_status()
            self.exit_status = -1 if self.cancelled else status
        except KeyboardInterrupt:
            # Ctrl-C, SIGTERM or SIGHUP while waiting: closing the channel would leave the command running (on a
            # mount the undo is about to take away)
            self.cancel()
            raise
        finally:
            ch.close()

    def lines(self) -> Iterator[tuple[Stream, str]]:
        """Whole lines (without the newline) per stream, as they complete."""
        partial: dict[Stream, str] = {"out": "", "err": ""}
        for stream, text in self.chunks():
            partial[stream] += text
            *complete, partial[stream] = partial[stream].split("\n")
            for line in complete:
                yield stream, line
        for stream in ("out", "err"):
            if partial[stream]:
                yield stream, partial[stream]

    def cancel(self) -> None:
        """Kill the remote process group: TERM, then KILL after a grace period. Safe to call twice."""
        if self.cancelled:
            return
        self.cancelled = True
        if self.pgid is not None:
            self._killer(
                sh_line(
                    "kill -TERM {pg} 2>/dev/null; for i in $(seq {steps}); do kill -0 {pg} 2>/dev/null || exit 0; "
                    "sleep 0.1; done; kill -KILL {pg} 2>/dev/null; true",
                    pg=f"-{int(self.pgid)}",  # a negative pid: the whole group (dash's kill takes no `--`)
                    steps=int(KILL_GRACE_S * 10),
                )
            )
        self._channel.close()
