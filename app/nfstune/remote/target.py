"""Where to connect: a host as the admin names it, resolved through ~/.ssh/config like OpenSSH does
(HostName, User, Port, IdentityFile, ProxyJump)."""

from __future__ import annotations

import getpass
from dataclasses import dataclass, field
from pathlib import Path

import paramiko

from nfstune.errors import ConfigError


@dataclass(frozen=True)
class SshTarget:
    alias: str  # what the admin typed; messages use it
    hostname: str
    port: int = 22
    user: str = "root"
    identity_files: tuple[Path, ...] = ()
    jump: SshTarget | None = None
    identities_only: bool = False

    @property
    def label(self) -> str:
        where = self.hostname if self.port == 22 else f"{self.hostname}:{self.port}"
        return self.alias if self.alias in (self.hostname, where) else f"{self.alias} ({where})"


@dataclass
class _Resolver:
    config: paramiko.SSHConfig
    seen: set[str] = field(default_factory=set)

    def resolve(self, spec: str, user: str | None, port: int | None, keys: tuple[Path, ...]) -> SshTarget:
        alias, spec_user, spec_port = split_spec(spec)
        if alias in self.seen:
            raise ConfigError(f"ProxyJump loop in the SSH config at {alias!r}")
        self.seen.add(alias)
        found = self.config.lookup(alias)
        jump_spec = found.get("proxyjump")
        jump = None
        if jump_spec and jump_spec.lower() != "none":
            # "a,b,c": connect to a, through it to b, through b to c, through c to the target
            chain = [s.strip() for s in jump_spec.split(",") if s.strip()]
            for hop in chain:
                hop_target = self.resolve(hop, None, None, ())
                jump = _with_jump(hop_target, jump)
        files = keys or tuple(Path(p).expanduser() for p in found.get("identityfile", []))
        try:
            final_port = port or spec_port or int(found.get("port", 22))
        except ValueError:
            raise ConfigError(f"the SSH config gives {alias!r} a port that is not a number: {found['port']}") from None
        if not 0 < final_port < 65536:
            raise ConfigError(f"port {final_port} for {alias!r} is out of range")
        return SshTarget(
            alias=alias,
            hostname=found.get("hostname", alias),
            port=final_port,
            user=user or spec_user or found.get("user") or getpass.getuser(),
            identity_files=files,
            jump=jump,
            identities_only=found.get("identitiesonly", "no").lower() == "yes",
        )


def _with_jump(target: SshTarget, jump: SshTarget | None) -> SshTarget:
    if jump is None:
        return target
    return SshTarget(
        target.alias, target.hostname, target.port, target.user, target.identity_files, jump, target.identities_only
    )


def _is_port(text: str) -> bool:
    # ASCII digits only: int() takes "²" for isdigit() but refuses it, and refuses 5000 digits
    return text.isascii() and text.isdigit() and len(text) <= 5 and 0 < int(text) < 65536


def split_spec(spec: str) -> tuple[str, str | None, int | None]:
    """'user@host:port' -> (host, user, port), as ProxyJump and the connect form accept it."""
    user, _, rest = spec.rpartition("@")
    host, port = rest, None
    if rest.startswith("["):  # [v6addr]:port
        host, _, tail = rest[1:].partition("]")
        port = int(tail[1:]) if tail.startswith(":") and _is_port(tail[1:]) else None
    elif rest.count(":") == 1:
        host, _, p = rest.partition(":")
        if not _is_port(p):
            raise ConfigError(f"{spec!r}: the port after ':' must be a number from 1 to 65535")
        port = int(p)
    if not host or any(c.isspace() for c in host):
        raise ConfigError(f"{spec!r} is not a host name or address")
    return host, user or None, port


def resolve(
    spec: str,
    *,
    user: str | None = None,
    port: int | None = None,
    identity_file: Path | None = None,
    ssh_config: Path | None = None,
) -> SshTarget:
    """A host as typed ('nas', 'admin@nas:2222', an alias from ~/.ssh/config) -> where and how to connect.
    Values given here win over the SSH config, as they do on ssh's command line."""
    path = ssh_config if ssh_config is not None else Path("~/.ssh/config").expanduser()
    config = paramiko.SSHConfig()
    if path.is_file():
        try:
            config = paramiko.SSHConfig.from_path(str(path))
        except (OSError, ValueError, paramiko.SSHException) as exc:
            raise ConfigError(f"cannot read the SSH config {path}: {exc}") from None
    keys = (identity_file,) if identity_file else ()
    return _Resolver(config).resolve(spec.strip(), user, port, keys)
