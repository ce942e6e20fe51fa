"""A failed SSH handshake or login, in plain words that name the host and what to check: the proxy command that
ended, a port that is not sshd's, a host that hung up, keys or a password refused (which ones were offered, what
the host accepts), a changed host key (which known_hosts line holds the old one). The exception it came from goes
to the error's details. The TCP connection's own failures are in remote/reach.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import paramiko
from paramiko.ssh_exception import IncompatiblePeer

from nfstune.remote.errors import AuthFailed, HostKeyChanged, RemoteError, Unreachable
from nfstune.remote.known_hosts import entry_of, fingerprint
from nfstune.remote.proxy import ProxyProcess
from nfstune.remote.reach import technical
from nfstune.remote.target import SshTarget

PROXY_EXIT_WAIT = 1.0  # s: a proxy command that failed has closed its end, and exits at once
DEFAULT_KEYS = ("id_rsa", "id_ecdsa", "id_ed25519")  # what paramiko's look_for_keys tries in ~/.ssh
PASSWORD_METHODS = {"password", "keyboard-interactive"}


@dataclass(frozen=True)
class Attempt:
    """One try to log in, as its failure message needs it."""

    name: str  # the host as the admin named it
    where: str  # the name and what it stands for ("nas (10.0.0.5, port 22)"), or the way it is reached
    target: SshTarget
    timeout: float
    agent: bool  # the ssh agent's keys were offered
    default_keys: bool  # ~/.ssh/id_* were offered (when ssh -G did not list the keys)
    password: bool  # a password was tried
    known_hosts: Sequence[Path]  # the files host keys were read from, in the order they are searched
    proxy: ProxyProcess | None


def explain(attempt: Attempt, client: paramiko.SSHClient, exc: BaseException) -> RemoteError:
    """The error to raise for `exc`, raised by client.connect()."""
    if isinstance(exc, paramiko.BadHostKeyException):
        return host_key_changed(attempt, exc)
    transport = client.get_transport()
    # the host's key was verified: what failed is the login
    if isinstance(exc, paramiko.AuthenticationException) or (transport is not None and transport.host_key):
        return login_refused(attempt, transport, exc)
    return handshake_failed(attempt, transport, exc)


def host_key_changed(a: Attempt, exc: paramiko.BadHostKeyException) -> HostKeyChanged:
    t = a.target
    # the name the key is stored under, as ssh and paramiko look it up (exc.hostname has no port)
    name = t.host_key_alias or (t.hostname if t.port == 22 else f"[{t.hostname}]:{t.port}")
    new, old = fingerprint(exc.key), fingerprint(exc.expected_key)
    # paramiko's text quotes both keys in base64: their fingerprints say the same in a line
    details = f"{type(exc).__name__}: {name} offered {exc.key.get_name()} {new}; known_hosts has {old}"
    return HostKeyChanged(
        a.name,
        exc.key.get_name(),
        new,
        old,
        where=a.where,
        name=name,
        entry=entry_of(a.known_hosts, name, exc.expected_key),
        details=details,
    )


def handshake_failed(a: Attempt, transport: paramiko.Transport | None, exc: BaseException) -> Unreachable:
    port, text = a.target.port, str(exc)
    details = technical(exc)
    if isinstance(exc.__context__, BaseException):  # paramiko rewords the socket's error: keep both
        details += f" (from {technical(exc.__context__)})"
    status = a.proxy.ended(PROXY_EXIT_WAIT) if a.proxy is not None else None
    if a.proxy is not None and status is not None:
        said = a.proxy.said()
        return Unreachable(
            a.name,
            f"The ProxyCommand for {a.name} ended (exit status {status}) before an SSH connection was made"
            + (f"; it said: {said}" if said else "")
            + f". Check the command in your SSH config by running it yourself: {a.target.proxy_command}",
            details,
            whole=True,
        )
    if isinstance(exc, IncompatiblePeer):
        sentence = (
            f"{a.where} and nfstune have no SSH algorithm in common (key exchange, cipher or host key type). The "
            "host's sshd may be very old, or limited to algorithms paramiko does not offer: the details name them."
        )
    elif text.startswith("Indecipherable protocol version"):
        sentence = (
            f"{a.where} answered, but not as an SSH server: something other than sshd listens on port {port} there. "
            "Check the port (the one given here, or Port in ~/.ssh/config)."
        )
    elif transport is not None and transport.remote_version and _timed_out(exc):
        sentence = (
            f"{a.where} began the SSH handshake but did not finish it within {a.timeout:g} s. The host may be "
            "overloaded, or the network may lose packets on the way."
        )
    elif _timed_out(exc):
        sentence = (
            f"{a.where} took the connection, but no SSH server greeted nfstune within {a.timeout:g} s. Check that "
            f"port {port} is sshd's (something else may listen there), and whether sshd on that host is overloaded "
            "or hung."
        )
    elif isinstance(exc, EOFError | ConnectionError) or text.startswith("Error reading SSH protocol banner"):
        sentence = (
            f"{a.where} closed the connection before the SSH login began. Check that port {port} is sshd's, and "
            "sshd's log on that host (journalctl -u ssh): it may refuse this computer (MaxStartups, "
            "tcp wrappers, fail2ban)."
        )
    else:
        sentence = (
            f"The SSH connection to {a.where} failed: {text or type(exc).__name__}. sshd's log on that host "
            "(journalctl -u ssh) may say why."
        )
    return Unreachable(a.name, sentence, details, whole=True)


def _timed_out(exc: BaseException) -> bool:
    # paramiko's own wait for the handshake ends quietly, and the next step finds "No existing session"
    return (
        isinstance(exc, TimeoutError) or isinstance(exc.__context__, TimeoutError) or str(exc) == "No existing session"
    )


def login_refused(a: Attempt, transport: paramiko.Transport | None, exc: BaseException) -> AuthFailed:
    user = a.target.user
    allowed = _allowed(transport, user, exc)
    keys = _keys(a)
    problems = _key_problems(keys)  # keys paramiko could not even load: never offered
    usable = [k for k in keys if k not in problems]
    agent_keys = _agent_keys() if a.agent else 0
    offered = [_the_keys(usable)] if usable else []
    if agent_keys:
        offered.append(f"{agent_keys} key{'s' if agent_keys > 1 else ''} of the ssh agent")
    if a.password:
        offered.append("the password")
    details = "; ".join(
        [
            technical(exc),
            f"offered: {', '.join(offered) or 'nothing'}",
            f"the host accepts: {', '.join(allowed)}" if allowed else "the host did not say what it accepts",
        ]
    )
    if "timeout" in str(exc).lower():
        sentence = (
            f"{a.where} did not finish the login within {a.timeout:g} s. The host may be overloaded, or "
            "wait on a slow name lookup or PAM (UseDNS, GSSAPI in its sshd_config)."
        )
        return AuthFailed(a.name, sentence, details, whole=True)
    if not offered and problems:
        sentence = f"nfstune could not log in to {a.where}: " + " ".join(problems.values())
    elif not offered:
        sentence = (
            f"nfstune had nothing to log in to {a.where} with: no key file was given or found in ~/.ssh, "
            "the ssh agent holds no key, and no password was given. Give a key file (Key file here, or "
            "IdentityFile in ~/.ssh/config), load a key into the agent (ssh-add), or give the password when asked."
        )
    else:
        sentence = f"{a.where} refused the login with {_and(offered)}. Check the user name ({user})"
        if usable:
            sentence += f", and that the public key ({usable[0]}.pub) is in ~{user}/.ssh/authorized_keys there"
        sentence += ", and the password." if a.password else "."
        sentence += "".join(f" {p}" for p in problems.values())
    if allowed and not PASSWORD_METHODS & set(allowed):
        sentence += f" The host allows no password login (it accepts {_and(allowed)} only)."
    elif allowed and offered and not a.password:
        sentence += " The host also accepts a password, which was not given."
    return AuthFailed(a.name, sentence, details, whole=True)


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _the_keys(keys: Sequence[Path]) -> str:
    return f"the key {keys[0]}" if len(keys) == 1 else f"the keys {_and([str(k) for k in keys])}"


def _keys(a: Attempt) -> list[Path]:
    """The key files offered, in paramiko's order: those named, then ~/.ssh's own when it looked for them."""
    keys = list(a.target.identity_files)
    if a.default_keys:
        home = Path("~/.ssh").expanduser()
        keys += [home / k for k in DEFAULT_KEYS if (home / k).is_file() and home / k not in keys]
    return keys


def _agent_keys() -> int:
    try:
        agent = paramiko.Agent()
    except paramiko.SSHException:  # a socket that is no agent
        return 0
    try:
        return len(agent.get_keys())
    finally:
        agent.close()


def takes_password(transport: paramiko.Transport | None, user: str, exc: BaseException) -> bool:
    """Whether a password (or keyboard-interactive) may log in: False only when the host said it takes neither."""
    allowed = _allowed(transport, user, exc)
    return not allowed or bool(PASSWORD_METHODS & set(allowed))


def _allowed(transport: paramiko.Transport | None, user: str, exc: BaseException) -> list[str]:
    """The login methods the host accepts. A refusal does not say them; a "none" login does, as its refusal,
    and sshd counts no failure for it."""
    if isinstance(exc, paramiko.BadAuthenticationType):
        return list(exc.allowed_types)
    if transport is None or not transport.is_active():
        return []
    try:
        transport.auth_none(user)
    except paramiko.BadAuthenticationType as refusal:
        return list(refusal.allowed_types)
    except (paramiko.SSHException, OSError, EOFError):
        pass
    return []


def _key_problems(keys: Sequence[Path]) -> dict[Path, str]:
    """What stops a key file from being offered at all, by key: a passphrase, a file that is no private key."""
    problems = {}
    for key in keys:
        try:
            paramiko.PKey.from_path(key)
        except (paramiko.SSHException, OSError, ValueError, TypeError) as exc:
            # cryptography says "password-protected" with a TypeError; paramiko's own loaders with this one
            if isinstance(exc, paramiko.PasswordRequiredException) or "password" in str(exc):
                problems[key] = (
                    f"the key {key} needs its passphrase, which nfstune does not ask for: load it into the ssh "
                    f"agent (ssh-add {key})."
                )
            else:
                problems[key] = f"{key} cannot be read as a private key ({exc})."
    return problems
