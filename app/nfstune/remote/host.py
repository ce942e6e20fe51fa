"""One SSH connection to one machine, with the host key always verified against a known_hosts file.

This is the small core the practice lab needs; ~/.ssh/config, agents, sudo and streaming grow on it.
"""

from __future__ import annotations

import base64
import hashlib
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import paramiko

from nfstune.remote.errors import (
    AuthFailed,
    CommandFailed,
    HostKeyChanged,
    HostKeyUnknown,
    Timeout,
    Unreachable,
)


def fingerprint(key: paramiko.PKey) -> str:
    """OpenSSH's SHA256 fingerprint (what `ssh-keygen -lf` prints)."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


@dataclass(frozen=True)
class CommandResult:
    command: str
    exit_status: int
    stdout: str
    stderr: str


class _RefuseUnknownKey(paramiko.MissingHostKeyPolicy):
    def __init__(self, label: str) -> None:
        self._label = label

    def missing_host_key(self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey) -> None:
        raise HostKeyUnknown(self._label, key.get_name(), fingerprint(key))


class Host:
    """An SSH login on one machine. `label` is how messages name it (e.g. "nas (127.0.0.1:2222)")."""

    def __init__(
        self,
        hostname: str,
        *,
        port: int = 22,
        username: str = "root",
        key_filename: Path | None = None,
        known_hosts: Path,
        label: str | None = None,
        connect_timeout: float = 10.0,
    ) -> None:
        self.hostname, self.port, self.username = hostname, port, username
        self.key_filename, self.known_hosts = key_filename, known_hosts
        self.label = label or (hostname if port == 22 else f"{hostname}:{port}")
        self.connect_timeout = connect_timeout
        self._client: paramiko.SSHClient | None = None

    def __enter__(self) -> Host:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self) -> None:
        if self._client is not None:
            return
        client = paramiko.SSHClient()
        if self.known_hosts.exists():
            client.load_host_keys(str(self.known_hosts))
        client.set_missing_host_key_policy(_RefuseUnknownKey(self.label))
        try:
            client.connect(
                self.hostname,
                port=self.port,
                username=self.username,
                key_filename=str(self.key_filename) if self.key_filename else None,
                look_for_keys=self.key_filename is None,
                allow_agent=self.key_filename is None,
                timeout=self.connect_timeout,
                banner_timeout=self.connect_timeout,
                auth_timeout=self.connect_timeout,
            )
        except paramiko.BadHostKeyException as exc:
            client.close()
            raise HostKeyChanged(
                self.label, exc.key.get_name(), fingerprint(exc.key), fingerprint(exc.expected_key)
            ) from None
        except paramiko.AuthenticationException as exc:
            client.close()
            raise AuthFailed(self.label, f"login as {self.username} refused ({exc})") from None
        except (OSError, paramiko.SSHException) as exc:
            client.close()
            raise Unreachable(self.label, f"cannot open SSH connection ({exc or type(exc).__name__})") from None
        except BaseException:
            client.close()
            raise
        self._client = client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def run(self, command: str | Sequence[str], *, timeout: float = 60.0, check: bool = True) -> CommandResult:
        """Run a command; a sequence is quoted for the remote shell, a string is sent as it is (ours only)."""
        text = command if isinstance(command, str) else shlex.join(command)
        self.connect()
        assert self._client is not None
        transport = self._client.get_transport()
        if transport is None or not transport.is_active():
            self.close()
            raise Unreachable(self.label, "SSH connection was lost")
        try:
            channel = transport.open_session(timeout=self.connect_timeout)
            channel.exec_command(text)
        except (OSError, paramiko.SSHException) as exc:
            self.close()
            raise Unreachable(self.label, f"cannot start `{text}` ({exc})") from None
        out, err = bytearray(), bytearray()
        deadline = time.monotonic() + timeout
        try:
            while True:
                busy = False
                if channel.recv_ready():
                    out += channel.recv(65536)
                    busy = True
                if channel.recv_stderr_ready():
                    err += channel.recv_stderr(65536)
                    busy = True
                if not busy:
                    if channel.exit_status_ready() and channel.eof_received:
                        break
                    if time.monotonic() > deadline:
                        raise Timeout(self.label, text, timeout)
                    if channel.closed and not channel.exit_status_ready():
                        raise Unreachable(self.label, f"connection closed while running `{text}`")
                    time.sleep(0.01)
            status = channel.recv_exit_status()
        except TimeoutError:
            raise Timeout(self.label, text, timeout) from None
        finally:
            channel.close()
        result = CommandResult(text, status, out.decode(errors="replace"), err.decode(errors="replace"))
        if check and status != 0:
            raise CommandFailed(self.label, text, status, result.stderr)
        return result
