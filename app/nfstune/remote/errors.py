"""Typed SSH errors; each message names the host (and the command, where there is one)."""

from __future__ import annotations

from nfstune.errors import NfstuneError


class RemoteError(NfstuneError):
    def __init__(self, host: str, message: str) -> None:
        self.host = host
        super().__init__(f"{host}: {message}")


class Unreachable(RemoteError):
    pass


class AuthFailed(RemoteError):
    pass


class PermissionDenied(RemoteError):
    pass


class HostKeyUnknown(RemoteError):
    def __init__(self, host: str, key_type: str, fingerprint: str) -> None:
        self.key_type, self.fingerprint = key_type, fingerprint
        super().__init__(host, f"unknown host key {key_type} {fingerprint}: not in known_hosts")


class HostKeyChanged(RemoteError):
    def __init__(self, host: str, key_type: str, fingerprint: str, expected: str) -> None:
        self.key_type, self.fingerprint, self.expected = key_type, fingerprint, expected
        super().__init__(
            host,
            f"HOST KEY CHANGED: the host offers {key_type} {fingerprint} but known_hosts has {expected}. "
            "Refusing to connect: this may be a different machine, or someone in between.",
        )


class Timeout(RemoteError):
    def __init__(self, host: str, command: str, seconds: float) -> None:
        self.command, self.seconds = command, seconds
        super().__init__(host, f"{shown_command(command)} did not finish within {seconds:g} s")


COMMAND_SHOWN = 160  # characters of a command a message quotes: a generated script says nothing to the admin


def shown_command(command: str) -> str:
    """A command as an error quotes it: whole when short, else its first line cut, and how long it was."""
    first = command.strip().splitlines()[0] if command.strip() else command
    if len(command) <= COMMAND_SHOWN and "\n" not in command.strip():
        return f"`{command}`"
    return f"`{first[:COMMAND_SHOWN]}…` (a script of {len(command):,} characters)"


class CommandFailed(RemoteError):
    """A command ended with a non-zero status. With `action` ("mounting nas:/export on /mnt/x") the message names
    the action and the host, not the command (often a script of ours)."""

    def __init__(self, host: str, command: str, exit_status: int, stderr: str, action: str | None = None) -> None:
        self.host, self.command, self.exit_status, self.stderr, self.action = host, command, exit_status, stderr, action
        tail = "\n".join(stderr.strip().splitlines()[-5:])
        said = f":\n{tail}" if tail else ""
        if action:
            NfstuneError.__init__(self, f"{action} on {host} failed (exit status {exit_status}){said}")
        else:
            NfstuneError.__init__(self, f"{host}: {shown_command(command)} failed with exit status {exit_status}{said}")


class FileAccessFailed(RemoteError):
    """Reading or writing a file failed; the message names the action, the file and the host."""

    def __init__(self, host: str, action: str, path: str, reason: str) -> None:
        self.host, self.action, self.path, self.reason = host, action, path, reason
        NfstuneError.__init__(self, f"{action} {path} on {host}: {reason}")
