"""ProxyCommand as ssh runs it: `exec <command>` through the user's shell ($SHELL, else /bin/sh), so quoting,
pipes and variables mean what they mean to ssh (paramiko.ProxyCommand shlex-splits the line instead).

The command's stdin and stdout are one end of a socket pair; paramiko gets the other end, a real socket: when
the command exits, paramiko reads end-of-file at once (over paramiko.ProxyCommand's pipes it would wait out its
timeouts). Its stderr is kept, to say why when the connection fails."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile


class ProxyProcess:
    def __init__(self, command: str) -> None:
        self.command = command
        self.sock, theirs = socket.socketpair()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (kept until close)
        shell = os.environ.get("SHELL") or "/bin/sh"
        try:
            self.process = subprocess.Popen(
                [shell, "-c", f"exec {command}"], stdin=theirs.fileno(), stdout=theirs.fileno(), stderr=self._stderr
            )
        except OSError:
            self.sock.close()
            self._stderr.close()
            raise
        finally:
            theirs.close()

    def said(self) -> str:
        """The last lines the command wrote on stderr."""
        self._stderr.seek(0)
        lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        return "; ".join(line.strip() for line in lines[-3:])

    def ended(self, within: float) -> int | None:
        """The command's exit status once it has ended (waited for up to `within` seconds), else None."""
        try:
            return self.process.wait(timeout=within)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        self.sock.close()  # end of its stdin: `ssh -W` and the like exit on it
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._stderr.close()
