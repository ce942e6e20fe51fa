"""Where to connect: a host as the admin names it, resolved through the SSH config as OpenSSH does.

Where the ssh client is installed, OpenSSH itself resolves the host (`ssh -G`, remote/openssh_config.py):
Include, Match, canonicalization and first-value-wins are then exactly ssh's. nfstune honours HostName, User,
Port, IdentityFile, IdentitiesOnly, ProxyCommand, ProxyJump (each hop resolved by ssh too, as `ssh -J` does),
HostKeyAlias, UserKnownHostsFile and GlobalKnownHostsFile (read only). Without the client, paramiko reads
~/.ssh/config (remote/config_fallback.py) and every directive it cannot honour is named in `warnings`."""

from __future__ import annotations

import dataclasses
import getpass
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nfstune.errors import ConfigError
from nfstune.nfs import names
from nfstune.remote import openssh_config as og
from nfstune.words import plural


@dataclass(frozen=True)
class SshTarget:
    alias: str  # what the admin typed; messages use it
    hostname: str
    port: int = 22
    user: str = "root"
    identity_files: tuple[Path, ...] = ()
    jump: SshTarget | None = None
    identities_only: bool = False
    proxy_command: str | None = None  # tokens expanded; run with the user's shell, as ssh does
    host_key_alias: str | None = None  # the name the host key is looked up (and saved) under
    known_hosts_files: tuple[Path, ...] = ()  # the config's UserKnownHostsFile and GlobalKnownHostsFile: read only
    warnings: tuple[str, ...] = ()  # what of the SSH config nfstune could not honour: shown to the admin
    resolved_by: str = ""  # "ssh -G", "paramiko" (no ssh client), or "" (built directly)
    # the file (and line) of the Host or Match block that named this host, as "~/.ssh/conf.d/nas line 1 (Host
    # nas)"; "" when only defaults (Host *) applied
    config_source: str = ""

    @property
    def label(self) -> str:
        where = self.hostname if self.port == 22 else f"{self.hostname}:{self.port}"
        return self.alias if self.alias in (self.hostname, where) else f"{self.alias} ({where})"

    def named(self, role: str = "") -> str:
        """The host as an error names it, each part once: 'server mynas (admin@127.0.0.1:2222)', or 'client
        root@10.0.0.7:22' when it was given by its address."""
        said = self._login_at if self.alias in (self.hostname, self._login_at) else f"{self.alias} ({self._login_at})"
        return f"{role} {said}" if role else said

    @property
    def _login_at(self) -> str:
        host = f"[{self.hostname}]" if ":" in self.hostname else self.hostname
        return f"{self.user}@{host}:{self.port}"

    @property
    def jumps(self) -> list[SshTarget]:
        """The jump hosts in the order they are crossed: the hop nearest the host holds the one before it, so the
        first one crossed is the last reached from here."""
        hops: list[SshTarget] = []
        jump = self.jump
        while jump is not None:
            hops.insert(0, jump)
            jump = jump.jump
        return hops

    @property
    def destination(self) -> str:
        """user@address:port and the way there (the jump hosts in the order they are crossed, or the ProxyCommand):
        where a login goes, said before it is made."""
        said = self._login_at
        hops = [jump._login_at for jump in self.jumps]
        if hops:
            said += f" via the {plural(len(hops), 'jump host')} {', then '.join(hops)}"
        elif self.proxy_command:
            said += " via its ProxyCommand"
        return said


# (host, user, port) -> the target without its jump hosts, and its ProxyJump spec
Lookup = Callable[[str, str | None, int | None], tuple[SshTarget, str | None]]


@dataclass
class _Resolver:
    lookup: Lookup
    seen: set[str] = field(default_factory=set)

    def resolve(
        self, spec: str, user: str | None, port: int | None, keys: tuple[Path, ...], via: str | None = None
    ) -> SshTarget:
        """`via`: the host whose ProxyJump names `spec`, for a message about it."""
        try:
            alias, spec_user, spec_port = split_spec(spec)
        except ConfigError as error:
            if via is None:
                raise
            raise ConfigError(f"the ProxyJump of {via!r} in the SSH config: {error}") from None
        if alias in self.seen:
            raise ConfigError(f"ProxyJump loop in the SSH config at {alias!r}")
        self.seen.add(alias)
        found, jump_spec = self.lookup(alias, user or spec_user, port or spec_port)
        jump = None
        # "a,b,c": connect to a, through it to b, through b to c, through c to the target
        for hop in (s.strip() for s in (jump_spec or "").split(",")):
            if hop:
                jump = _with_jump(self.resolve(hop.removeprefix("ssh://"), None, None, (), alias), jump)
        # a key given here is tried first, then the config's (ssh -i does the same)
        files = keys + tuple(p for p in found.identity_files if p not in keys)
        warnings = found.warnings + (jump.warnings if jump else ())  # a hop's too: the admin sees only this one
        return dataclasses.replace(found, identity_files=files, jump=jump, warnings=warnings)


def _with_jump(target: SshTarget, jump: SshTarget | None) -> SshTarget:
    return target if jump is None else dataclasses.replace(target, jump=jump)


def _port(text: str, alias: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise ConfigError(f"the SSH config gives {alias!r} a port that is not a number: {text}") from None
    if not 0 < port < 65536:
        raise ConfigError(f"port {port} for {alias!r} is out of range")
    return port


def _openssh(binary: str, config: Path | None) -> Lookup:
    def lookup(alias: str, user: str | None, port: int | None) -> tuple[SshTarget, str | None]:
        options, source = og.ssh_g_source(binary, alias, config=config, user=user, port=port)
        found, jump = from_ssh_g(options, alias)
        return dataclasses.replace(found, config_source=source), jump

    return lookup


def from_ssh_g(o: og.Options, alias: str) -> tuple[SshTarget, str | None]:
    """What `ssh -G alias` printed -> the target (without its jump hosts) and its ProxyJump spec."""
    values = og.tokens(o, alias)
    ids = [og.expand(f, values, og.FILE_TOKENS, "IdentityFile", path=True) for f in o.get("identityfile", [])]
    proxy = og.first(o, "proxycommand")
    warnings = []
    if og.first(o, "proxyusefdpass") == "yes" and proxy:
        warnings.append(f"{alias}: ProxyUseFdpass is not supported: the ProxyCommand's output is the connection")
    if og.first(o, "knownhostscommand"):
        warnings.append(f"{alias}: KnownHostsCommand is not run: host keys come from known_hosts files only")
    known = [k for key in ("userknownhostsfile", "globalknownhostsfile") for v in o.get(key, []) for k in v.split()]
    target = SshTarget(
        alias=alias,
        hostname=o["hostname"][0],
        port=_port(o["port"][0], alias),
        user=o["user"][0],
        # ssh lists its default keys (~/.ssh/id_rsa, ...) whether or not they exist; paramiko refuses a missing one
        identity_files=tuple(Path(f) for f in ids if Path(f).is_file()),
        identities_only=og.first(o, "identitiesonly") == "yes",
        proxy_command=og.expand(proxy, values, og.PROXY_TOKENS, "ProxyCommand") if proxy else None,
        host_key_alias=og.first(o, "hostkeyalias"),
        known_hosts_files=tuple(Path(k).expanduser() for k in known if k.lower() != "none"),
        warnings=tuple(warnings),
        resolved_by="ssh -G",
    )
    return target, og.first(o, "proxyjump")


def _paramiko(config_path: Path | None) -> tuple[Lookup, list[str]]:
    from nfstune.remote import config_fallback  # paramiko's parser: imported when there is no ssh client to ask

    path = config_path if config_path is not None else Path("~/.ssh/config").expanduser()
    config, warnings = config_fallback.load(path)
    if config_path is None and config_fallback.SYSTEM_CONFIG.is_file():
        warnings.append(f"{config_fallback.SYSTEM_CONFIG}: not read (ssh reads it after {path})")

    def lookup(alias: str, user: str | None, port: int | None) -> tuple[SshTarget, str | None]:
        found = config_fallback.lookup(config, alias)
        # as ssh: the typed host is the HostName unless the config sets one, whose %h is then the typed host
        hostname = str(found["hostname"])
        if hostname != alias:  # paramiko fills in the typed host itself when the config sets none
            hostname = og.expand(hostname, {"%": "%", "h": alias}, "%h", "HostName")
        port = port or _port(str(found.get("port", 22)), alias)
        user = user or str(found.get("user") or getpass.getuser())
        key_alias = str(found.get("hostkeyalias") or "") or None
        options = {"hostname": [hostname], "port": [str(port)], "user": [user], "hostkeyalias": [key_alias or "none"]}
        values = og.tokens(options, alias)  # the host, port and user this connection uses, as ssh fills them in
        ids = found.get("identityfile") or []
        assert isinstance(ids, list)
        files = [og.expand(str(f), values, og.FILE_TOKENS, "IdentityFile", path=True) for f in ids]
        known = str(found.get("userknownhostsfile") or "").split()
        jump = str(found.get("proxyjump") or "")
        proxy = found.get("proxycommand")
        target = SshTarget(
            alias=alias,
            hostname=hostname,
            port=port,
            user=user,
            identity_files=tuple(Path(f) for f in files),
            identities_only=str(found.get("identitiesonly", "no")).lower() == "yes",
            proxy_command=og.expand(str(proxy), values, og.PROXY_TOKENS, "ProxyCommand") if proxy else None,
            host_key_alias=key_alias,
            known_hosts_files=tuple(Path(k).expanduser() for k in known if k.lower() != "none"),
            resolved_by="paramiko",
            config_source=config_fallback.source(path, alias),
        )
        return target, (jump if jump.lower() != "none" else None)

    return lookup, warnings


def _is_port(text: str) -> bool:
    # ASCII digits only: int() takes "²" for isdigit() but refuses it, and refuses 5000 digits
    return text.isascii() and text.isdigit() and len(text) <= 5 and 0 < int(text) < 65536


def split_spec(spec: str) -> tuple[str, str | None, int | None]:
    """'user@host:port' -> (host, user, port), as ProxyJump and the connect form accept it. The host and the user
    are held to what ssh takes (nfs/names.py): a ProxyCommand's shell gets them."""
    user, at, rest = spec.rpartition("@")
    host, port = rest, None
    if rest.startswith("["):  # [v6addr]:port
        host, _, tail = rest[1:].partition("]")
        port = int(tail[1:]) if tail.startswith(":") and _is_port(tail[1:]) else None
    elif rest.count(":") == 1:
        host, _, p = rest.partition(":")
        if not _is_port(p):
            raise ConfigError(f"{spec!r}: the port after ':' must be a number from 1 to 65535")
        port = int(p)
    problem = names.host_problem(host) or (names.user_problem(user) if at else None)
    if problem is not None:
        raise ConfigError(f"{spec!r}: {problem}")
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
    Values given here win over the SSH config, as they do on ssh's command line. `ssh_config`: that file alone
    (as ssh -F); by default ~/.ssh/config and /etc/ssh/ssh_config, as ssh reads them."""
    if user is not None:
        names.check_user(user, "the user")
    if identity_file is not None and "\0" in str(identity_file):
        raise ConfigError("the key file: a file name cannot contain an unprintable character (U+0000)")
    keys = (identity_file,) if identity_file else ()
    binary = og.ssh_binary()
    if binary is not None:
        return _Resolver(_openssh(binary, ssh_config)).resolve(spec.strip(), user, port, keys)
    lookup, warnings = _paramiko(ssh_config)
    target = _Resolver(lookup).resolve(spec.strip(), user, port, keys)
    if warnings:
        said = "the ssh client is not installed: nfstune reads the SSH config itself and cannot honour "
        warnings = [said + warnings[0], *warnings[1:]]
    return dataclasses.replace(target, warnings=tuple(warnings))
