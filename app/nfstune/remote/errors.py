"""Typed SSH errors; each message names the host (and the command, where there is one). A connection failure
says in plain words what failed and what to check (remote/reach.py, remote/login_errors.py); the exception it came
from is in `details`."""

from __future__ import annotations

from pathlib import Path

from nfstune.errors import NfstuneError
from nfstune.shell_text import sh_line


class RemoteError(NfstuneError):
    def __init__(self, host: str, message: str, details: str = "", *, whole: bool = False) -> None:
        """`whole`: `message` is a sentence that names the host itself, said as it is (no "host: " before it)."""
        self.host, self.details = host, details
        super().__init__(message if whole else f"{host}: {message}")


class Unreachable(RemoteError):
    pass


class AuthFailed(RemoteError):
    pass


class PermissionDenied(RemoteError):
    pass


def host_key_file(key_type: str) -> str:
    """Where sshd keeps its public key of this type, as the admin checks it on the host's console."""
    kind = (
        "ecdsa" if key_type.startswith("ecdsa") else key_type.removeprefix("ssh-").removesuffix("-cert-v01@openssh.com")
    )
    return f"/etc/ssh/ssh_host_{kind}_key.pub"


class HostKeyUnknown(RemoteError):
    def __init__(self, host: str, key_type: str, fingerprint: str, where: str | None = None) -> None:
        self.key_type, self.fingerprint = key_type, fingerprint
        super().__init__(
            host,
            f"{where or host} offers a host key that is in no known_hosts file ({key_type} {fingerprint}), and it "
            "was not accepted, so nfstune did not log in. Compare it with the host's own key (on its console: "
            f"ssh-keygen -lf {host_key_file(key_type)}); if they match, accept it when nfstune asks (`nfstune run` "
            "asks on a terminal), or log in once with ssh and accept it there.",
            whole=True,
        )


class HostKeyChanged(RemoteError):
    """The host offers another key than known_hosts has for it. `entry`: the file and line that hold the old key
    (None when nfstune could not find it); `name`: the name it is stored under ("[10.0.0.5]:2222")."""

    def __init__(
        self,
        host: str,
        key_type: str,
        fingerprint: str,
        expected: str,
        *,
        where: str | None = None,
        name: str = "",
        entry: tuple[Path, int] | None = None,
        details: str = "",
    ) -> None:
        self.key_type, self.fingerprint, self.expected = key_type, fingerprint, expected
        self.name, self.entry = name, entry
        held = f"the one on line {entry[1]} of {entry[0]}" if entry else "the one in known_hosts"
        remove = (
            sh_line("`ssh-keygen -R {name} -f {file}`", name=name, file=str(entry[0]))
            if entry and name
            else "ssh-keygen -R and the host's name"
        )
        # the new key in full, to compare on the host's console; the old one is in the details
        super().__init__(
            host,
            f"HOST KEY CHANGED: {where or host} now offers the {key_type} key {fingerprint}, not {held}. nfstune "
            "refuses to connect: the host may have been reinstalled or given new keys, or someone may be "
            f"intercepting the connection. Only if `ssh-keygen -lf {host_key_file(key_type)}` on the host's own "
            f"console shows {fingerprint}, remove the old entry with {remove} and connect again.",
            details,
            whole=True,
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
