"""The TCP connection to a host's sshd. nfstune opens it itself, not paramiko, so that a failure says which step
failed (finding the name, reaching the port) and at which address, in plain words with what to check; Python's
text ("[Errno None] Unable to connect to port 1 on 127.0.0.1") goes to the error's details."""

from __future__ import annotations

import errno
import socket
from collections.abc import Sequence

from nfstune.remote.errors import Unreachable
from nfstune.remote.target import SshTarget

REFUSED = {errno.ECONNREFUSED}
NO_ROUTE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN}
TIMED_OUT = {errno.ETIMEDOUT}


def where(name: str, target: SshTarget, addresses: Sequence[str] = ()) -> str:
    """The host as named (SshTarget.named: role, name, user@address:port), then the addresses its name stood for
    when they differ: 'server nas (admin@nas.lan:22) at 10.0.0.5', 'client root@127.0.0.1:1'."""
    shown = [a for a in addresses if a != target.hostname]
    return f"{name} at {' and '.join(shown)}" if shown else name


def technical(exc: BaseException) -> str:
    """The exception as Python words it, for the details: its type and its text."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def open_tcp(name: str, target: SshTarget, timeout: float) -> socket.socket:
    """A connected socket to the target's sshd: each address its name resolves to is tried in turn, as ssh does."""
    try:
        found = socket.getaddrinfo(target.hostname, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:  # gaierror; UnicodeError: a label too long for IDNA
        raise Unreachable(name, not_found(name, target, exc), technical(exc), whole=True) from None
    errors: dict[str, OSError] = {}
    for family, kind, proto, _, address in found:
        ip = str(address[0])
        if ip in errors:
            continue
        sock = socket.socket(family, kind, proto)
        sock.settimeout(timeout)
        try:
            sock.connect(address)
        except OSError as exc:
            sock.close()
            errors[ip] = exc
            continue
        return sock
    details = "; ".join(f"{address} port {target.port}: {technical(e)}" for address, e in errors.items())
    raise Unreachable(name, not_connected(name, target, errors, timeout), details, whole=True)


def not_found(name: str, target: SshTarget, exc: BaseException) -> str:
    if isinstance(exc, socket.gaierror) and exc.errno == socket.EAI_AGAIN:
        return (
            f"The name {target.hostname} of {name} could not be looked up: no name server answered. Check this "
            "computer's network connection and its DNS settings (resolvectl status, /etc/resolv.conf), then retry."
        )
    given = f"its HostName in the SSH config, {target.hostname}," if target.hostname != target.alias else "the name"
    return (
        f"Cannot find {name}: {given} does not resolve to an address on this computer. Check the "
        "spelling, DNS, /etc/hosts, and the Host and HostName lines for it in ~/.ssh/config."
    )


def _kind(exc: OSError) -> str:
    if isinstance(exc, TimeoutError) or exc.errno in TIMED_OUT:
        return "timeout"
    if exc.errno in REFUSED:
        return "refused"
    return "no route" if exc.errno in NO_ROUTE else "other"


def not_connected(name: str, target: SshTarget, errors: dict[str, OSError], timeout: float) -> str:
    """Why no address of the host took the connection; when addresses failed differently, the failure that says
    most: a refusal comes from the host itself, a timeout from somewhere on the way."""
    kinds = {address: _kind(e) for address, e in errors.items()}
    kind = next(k for k in ("refused", "timeout", "no route", "other") if k in kinds.values())
    at = where(name, target, [a for a, k in kinds.items() if k == kind])
    port = target.port
    if kind == "refused":
        return (
            f"{at} refused the connection: nothing listens on port {port} there. Check that sshd runs on that host "
            f"(systemctl status ssh), that it listens on port {port} (the port given here or in ~/.ssh/config), and "
            "that no firewall rejects the connection."
        )
    if kind == "timeout":
        return (
            f"{at} did not answer within {timeout:g} s. Check that the host is on and on this network, that its "
            f"name or address is right, and that no firewall drops connections to port {port}."
        )
    if kind == "no route":
        return (
            f"There is no route from this computer to {at}. Check that the host is on and on this network, its "
            "address, and this computer's own network connection."
        )
    reason = next(e.strerror or technical(e) for a, e in errors.items() if kinds[a] == kind)
    return f"Cannot connect to {at}: {reason}. Check the host's name or address and port, and this network."
