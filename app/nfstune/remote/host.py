"""One SSH login on one machine. The host key is always verified: a known key passes, an unknown key goes to
a callback that shows its SHA256 fingerprint (and is saved to our own known_hosts only if accepted), a changed
key is refused.

paramiko (with cryptography, nacl and invoke: over a tenth of a second) is imported by the first login, not with this
module: the desktop starts without it (issue 31)."""

from __future__ import annotations

import dataclasses
import secrets
import socket
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from nfstune.errors import ToolMissing
from nfstune.remote.errors import (
    AuthFailed,
    CommandFailed,
    PermissionDenied,
    RemoteError,
    Unreachable,
    shown_command,
)
from nfstune.remote.files import FileAccess
from nfstune.remote.known_hosts import HostKeyPrompt
from nfstune.remote.process import CommandResult, RemoteProcess, wrap
from nfstune.remote.proxy import ProxyProcess
from nfstune.remote.reach import open_tcp, technical, where
from nfstune.remote.target import SshTarget
from nfstune.remote.tools import install_hint, missing_command
from nfstune.shell_text import join, sh_line

if TYPE_CHECKING:
    import paramiko

# (label, what is asked) -> the secret, or None to give up
SecretPrompt = Callable[[str, str], str | None]

SYSTEM_KNOWN_HOSTS = "~/.ssh/known_hosts"  # expanded when used: HOME may differ (tests, sudo)


def _broken_connection(*also: type[Exception]) -> tuple[type[Exception], ...]:
    """What a command's channel raises when the connection breaks: called in an `except` clause, so only once an
    exception reaches it, by when a login has imported paramiko (a LocalHost's channel, remote/local.py, has
    none: it imports paramiko then)."""
    import paramiko

    return (*also, OSError, paramiko.SSHException)


class Host(FileAccess):
    """An SSH login. `known_hosts` is nfstune's own file (accepted keys are added to it); the user's
    ~/.ssh/known_hosts is read too, never written."""

    def __init__(
        self,
        hostname: str | SshTarget,
        *,
        port: int = 22,
        username: str = "root",
        key_filename: Path | None = None,
        known_hosts: Path,
        system_known_hosts: Path | None = None,
        label: str | None = None,
        connect_timeout: float = 10.0,
        on_unknown_host_key: HostKeyPrompt | None = None,
        ask_secret: SecretPrompt | None = None,
        role: str = "",
    ) -> None:
        """`role`: "server", "client", "client 2", "jump host": a connection's errors say it first."""
        if isinstance(hostname, SshTarget):
            self.target = hostname
        else:
            keys = (key_filename,) if key_filename else ()
            self.target = SshTarget(hostname, hostname, port, username, keys, identities_only=bool(keys))
        self.label = label or self.target.label
        self.role = role
        # a connection's errors name the host once, with its role, user, address and port
        self.named = (dataclasses.replace(self.target, alias=label) if label else self.target).named(role)
        self.known_hosts, self.system_known_hosts = known_hosts, system_known_hosts
        self.connect_timeout = connect_timeout
        self._on_unknown_host_key, self._ask_secret = on_unknown_host_key, ask_secret
        self._password: str | None = None  # held in memory only
        self._sudo_password: str | None = None
        self._sudo_prompt = ""
        self._sudo_prefix: str | None = None  # "" when root, "sudo -n " or "sudo -S -p <our prompt> " otherwise
        self._client: paramiko.SSHClient | None = None
        self._jump: Host | None = None
        self._proxy: ProxyProcess | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> Host:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- connection -----------------------------------------------------------------------------------------

    def connect(self) -> None:
        with self._lock:
            if self._client is not None:
                transport = self._client.get_transport()
                if transport is not None and transport.is_active():
                    return
                self._close_locked()
            self._connect_locked()

    def _open_sock(self) -> tuple[socket.socket | paramiko.Channel, str]:
        """What the SSH connection goes over, and the host as a message about it names it (with its address, or
        the way it is reached); anew for each try, as a tunnel or a proxy command is used up by a failed login."""
        t = self.target
        if t.jump is not None:
            if self._jump is None:
                self._jump = Host(
                    t.jump,
                    known_hosts=self.known_hosts,
                    system_known_hosts=self.system_known_hosts,
                    connect_timeout=self.connect_timeout,
                    on_unknown_host_key=self._on_unknown_host_key,
                    ask_secret=self._ask_secret,
                    role="jump host",
                )
            try:
                tunnel = self._jump.open_tunnel(t.hostname, t.port)
            except RemoteError as exc:
                raise _through_jump(exc, self.named, self._jump.target.alias) from None
            return tunnel, f"{self.named} through the jump host {self._jump.target.alias}"
        if t.proxy_command:
            if self._proxy is not None:
                self._proxy.close()
            try:
                self._proxy = ProxyProcess(t.proxy_command)
            except OSError as exc:
                raise Unreachable(
                    self.label,
                    f"The ProxyCommand for {self.named} could not be started ({exc.strerror}). Check the command "
                    f"in your SSH config, and the SHELL it runs with: {t.proxy_command}",
                    technical(exc),
                    whole=True,
                ) from None
            return self._proxy.sock, f"{self.named} through its ProxyCommand"
        # our own socket, not paramiko's: its failures say which step failed and at which address
        sock = open_tcp(self.named, t, self.connect_timeout)
        return sock, where(self.named, t, [sock.getpeername()[0]])

    def _connect_locked(self) -> None:
        try:
            self._login()
        except BaseException:
            self._close_locked()  # the jump host's login, the proxy command: nothing is left running
            raise

    def _login(self) -> None:
        import paramiko

        from nfstune.remote.key_policy import AskOrRefuse
        from nfstune.remote.login_errors import Attempt, explain, takes_password

        t = self.target
        sock, at = self._open_sock()
        client = paramiko.SSHClient()
        if self.system_known_hosts is not None and self.system_known_hosts.exists():
            client.load_system_host_keys(str(self.system_known_hosts))
        for path in t.known_hosts_files:  # the SSH config's UserKnownHostsFile and GlobalKnownHostsFile
            if path.is_file():
                client.load_system_host_keys(str(path))
        if self.known_hosts.exists():
            client.load_host_keys(str(self.known_hosts))
        client.set_missing_host_key_policy(AskOrRefuse(self.label, at, self.known_hosts, self._on_unknown_host_key))
        # paramiko is given the socket: it uses hostname and port only to look the host key up, and with
        # HostKeyAlias ssh looks the key up under the alias as it is, without a port
        look_for_keys = not t.identities_only and t.resolved_by != "ssh -G"
        kwargs = {
            "hostname": t.host_key_alias or t.hostname,
            "port": 22 if t.host_key_alias else t.port,
            "username": t.user,
            "sock": sock,
            "timeout": self.connect_timeout,
            "banner_timeout": self.connect_timeout,
            "auth_timeout": self.connect_timeout,
        }
        try:
            try:
                client.connect(
                    **kwargs,  # type: ignore[arg-type]
                    key_filename=[str(p) for p in t.identity_files] or None,  # type: ignore[arg-type]
                    # ssh -G lists the keys ssh itself would try (its defaults when the config names none): no
                    # others, or a strict server counts extra failures against the login
                    look_for_keys=look_for_keys,
                    allow_agent=not t.identities_only,
                    password=self._password,
                )
            except (paramiko.AuthenticationException, paramiko.SSHException) as exc:
                # no key worked, or there was none to try: the password is the fallback
                no_methods = "No authentication methods available" in str(exc)
                if not isinstance(exc, paramiko.AuthenticationException) and not no_methods:
                    raise
                if self._password is not None or self._ask_secret is None:
                    raise paramiko.AuthenticationException(str(exc)) from None
                # a host that takes keys only would be sent the password for nothing: ask only when it takes one
                if not takes_password(client.get_transport(), t.user, exc):
                    raise
                self._password = self._ask_secret(self.label, f"SSH password for {t.user}")
                if self._password is None:
                    raise
                kwargs["sock"] = self._open_sock()[0]  # the first try used up the tunnel or proxy command
                client.connect(**kwargs, password=self._password, look_for_keys=False, allow_agent=False)  # type: ignore[arg-type]
        except (OSError, EOFError, paramiko.SSHException) as exc:
            attempt = Attempt(
                name=self.named,
                where=at,
                target=t,
                timeout=self.connect_timeout,
                agent=not t.identities_only,
                default_keys=look_for_keys,
                password=self._password is not None,
                # in the order paramiko looks a key up: the system's files first, then ours
                known_hosts=[p for p in (self.system_known_hosts, *t.known_hosts_files, self.known_hosts) if p],
                proxy=self._proxy,
            )
            error = explain(attempt, client, exc)  # before close: what the host accepts is asked on its transport
            client.close()
            if isinstance(error, AuthFailed):
                self._password = None  # refused: asked again on the next try
            raise error from None
        except BaseException:
            client.close()
            raise
        self._client = client

    def open_tunnel(self, hostname: str, port: int) -> paramiko.Channel:
        """A TCP channel from this host to another (ProxyJump); the host behind says what it was for."""
        self.connect()
        assert self._client is not None
        transport = self._client.get_transport()
        assert transport is not None
        try:
            return transport.open_channel("direct-tcpip", (hostname, port), ("127.0.0.1", 0))
        except _broken_connection() as exc:
            raise Unreachable(
                self.label,
                f"{self.named} let nfstune log in but could not connect on to {hostname} port {port}. Check that "
                f"{hostname} is its name as the jump host knows it, that sshd runs there, and that the jump host's "
                "sshd allows forwarding (AllowTcpForwarding).",
                technical(exc),
                whole=True,
            ) from None

    def close(self) -> None:
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._jump is not None:
            self._jump.close()
            self._jump = None
        if self._proxy is not None:
            self._proxy.close()
            self._proxy = None

    # --- commands -------------------------------------------------------------------------------------------

    def start(
        self,
        command: str | Sequence[str],
        *,
        sudo: bool = False,
        timeout: float | None = None,
        stdin: bytes = b"",
    ) -> RemoteProcess:
        """Start a command; a sequence is quoted for the remote shell, a string is sent as it is (ours only).
        With sudo=True it runs as root (directly when the login is root). `stdin` is sent to the command (after
        sudo's password line), then its stdin is closed."""
        text = command if isinstance(command, str) else join(command)
        prefix = self.sudo_prefix() if sudo else ""
        channel = self._open_channel(text)
        said = ""
        try:
            channel.exec_command(wrap(text, prefix))
            if prefix.startswith("sudo -S"):
                said = self._answer_sudo(channel)
        except _broken_connection() as exc:
            channel.close()
            raise Unreachable(self.label, _broke(text), technical(exc)) from None
        if stdin or prefix.startswith("sudo -S"):
            try:
                channel.sendall(stdin)
                # end stdin: after a wrong password sudo asks again, and must read EOF rather than wait forever
                channel.shutdown_write()
            except _broken_connection():
                pass  # the command ended without reading it all: its exit status and stderr say why
        proc = RemoteProcess(self.named, text, channel, lambda kill: self._kill(kill, prefix), timeout, said)
        proc.await_start(self.connect_timeout)
        return proc

    def run(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = 60.0,
        check: bool = True,
        sudo: bool = False,
        stdin: bytes = b"",
        action: str | None = None,
    ) -> CommandResult:
        """`action`: what the command does, in the admin's words ("reading the kernel's exports"): a failure
        names it and the host instead of quoting the command."""
        proc = self.start(command, sudo=sudo, timeout=timeout, stdin=stdin)
        out: list[str] = []
        err: list[str] = []
        for stream, text in proc.chunks():
            (out if stream == "out" else err).append(text)
        assert proc.exit_status is not None
        result = CommandResult(proc.command, proc.exit_status, "".join(out), "".join(err))
        if check and result.exit_status != 0:
            tool = missing_command(result.stderr) if result.exit_status == 127 else None
            if tool is not None:
                raise ToolMissing(tool, self.label, install_hint(tool, self.label))
            raise CommandFailed(self.label, proc.command, result.exit_status, result.stderr, action)
        return result

    def _open_channel(self, text: str) -> paramiko.Channel:
        import paramiko  # the login (connect, below) has imported it

        self.connect()
        assert self._client is not None
        transport = self._client.get_transport()
        try:
            if transport is None or not transport.is_active():
                raise paramiko.SSHException("the connection was lost")
            return transport.open_session(timeout=self.connect_timeout)
        except (OSError, paramiko.SSHException) as exc:
            self.close()
            raise Unreachable(self.label, _broke(text), technical(exc)) from None

    def _answer_sudo(self, channel: paramiko.Channel) -> str:
        """Send the sudo password when sudo asks for it (its prompt, ours, on stderr), and only then: with cached
        credentials or a NOPASSWD rule for the command sudo does not read it, and the command's own stdin would
        get it. Returns what came on stderr besides the prompt (sudo's own errors), for the command's output."""
        deadline, err = time.monotonic() + self.connect_timeout, b""
        while time.monotonic() < deadline:
            if channel.recv_stderr_ready():
                err += channel.recv_stderr(65536)
                text = err.decode(errors="replace")
                if self._sudo_prompt and self._sudo_prompt in text:
                    channel.sendall(((self._sudo_password or "") + "\n").encode())
                    return text.replace(self._sudo_prompt, "", 1)
            elif channel.recv_ready() or channel.exit_status_ready():
                break  # the wrapper's first line, or the end: sudo went on (or failed) without asking
            else:
                time.sleep(0.005)
        return err.decode(errors="replace")

    def _kill(self, command: str, prefix: str) -> None:
        """Run a kill line as the same user as the process it kills (best effort: used while cancelling)."""
        try:
            channel = self._open_channel(command)
            channel.exec_command(prefix + sh_line("sh -c {command}", command=command))
            if prefix.startswith("sudo -S"):
                self._answer_sudo(channel)
                # end stdin: after a wrong password sudo asks again, and must read EOF rather than wait forever
                channel.shutdown_write()
            channel.recv_exit_status()
            channel.close()
        except _broken_connection(Unreachable):
            pass  # the connection is gone: sshd hangs up the session, and our process group with it

    # --- root -----------------------------------------------------------------------------------------------

    def sudo_prefix(self) -> str:
        """How to run a command as root here; asks for the sudo password (kept in memory) if sudo needs one."""
        if self._sudo_prefix is not None:
            return self._sudo_prefix
        if self.target.user == "root":
            self._sudo_prefix = ""
            return ""
        probe = self.run("sudo -n true", check=False)
        if probe.exit_status == 0:
            self._sudo_prefix = "sudo -n "
            return self._sudo_prefix
        if "not found" in probe.stderr:
            raise ToolMissing("sudo", self.label, f"log in as root, or install sudo on {self.label}")
        password = self._ask_secret(self.label, f"sudo password for {self.target.user}") if self._ask_secret else None
        if password is not None:
            self._sudo_password = password
            # a prompt no command prints: the password is sent when it appears (_answer_sudo), never before
            self._sudo_prompt = f"[nfstune: sudo asks {secrets.token_hex(8)}]"
            self._sudo_prefix = sh_line("sudo -S -p {prompt} ", prompt=self._sudo_prompt)
            check = self.start("true", sudo=True, timeout=30)
            said = "".join(text for stream, text in check.chunks() if stream == "err")
            said = " ".join(said.replace(self._sudo_prompt, "").split())  # sudo asks again after a wrong one
            if check.exit_status == 0:
                return self._sudo_prefix
            self._sudo_password = self._sudo_prefix = None
            raise PermissionDenied(self.label, _sudo_refused(self.target.user, said), f"sudo said: {said}")
        raise PermissionDenied(
            self.label, _no_sudo(self.target.user, probe.stderr.strip()), f"sudo said: {probe.stderr}"
        )


def _sudo_refused(user: str, said: str) -> str:
    if "not in the sudoers" in said or "may not run sudo" in said or "not allowed" in said:
        return f"{user} may not use sudo here: log in as root, or as a user sudoers allows"
    return (
        f"sudo refused the password for {user}: check it (sudo asks for {user}'s own login password) and that "
        f"{user} may use sudo there (`sudo -l`)"
    )


def _no_sudo(user: str, said: str) -> str:
    """Why `sudo -n` did not work, and no password was given to try it with."""
    if "not in the sudoers" in said or "may not run sudo" in said:
        return f"nfstune needs root here, and {user} may not use sudo: log in as root, or as a user sudoers allows"
    return (
        f"nfstune needs root here: sudo asks {user} for a password, and none was given. Give it when asked "
        f"(`nfstune run` asks on a terminal), log in as root, or let {user} use sudo without a password "
        "(NOPASSWD in sudoers)"
    )


def _through_jump(error: RemoteError, target: str, jump: str) -> RemoteError:
    """The jump host's own error, said as the failure to reach the host behind it: the same kind of error (a
    changed host key stays one), its message led by where it was going."""
    said = RemoteError.__new__(type(error))
    said.__dict__.update(error.__dict__)
    said.args = (f"could not reach {target} through the jump host {jump}: {error}",)
    return said


def _broke(command: str) -> str:
    return (
        f"the SSH connection broke while starting {shown_command(command)}: check that the host is still on and on "
        "this network"
    )


def open_host(
    spec: str,
    *,
    user: str | None = None,
    port: int | None = None,
    identity_file: Path | None = None,
    on_unknown_host_key: HostKeyPrompt | None = None,
    ask_secret: SecretPrompt | None = None,
    ssh_config: Path | None = None,
    role: str = "",
) -> Host:
    """A host as the admin names it ('nas', 'admin@nas:2222', an alias of ~/.ssh/config), checked against
    ~/.ssh/known_hosts and nfstune's own known_hosts. `ssh_config`: that file alone, as `ssh -F`. `role`: as
    Host takes it."""
    from nfstune import paths
    from nfstune.remote.target import resolve

    target = resolve(spec, user=user, port=port, identity_file=identity_file, ssh_config=ssh_config)
    return Host(
        target,
        known_hosts=paths.known_hosts(),
        system_known_hosts=Path(SYSTEM_KNOWN_HOSTS).expanduser(),
        on_unknown_host_key=on_unknown_host_key,
        ask_secret=ask_secret,
        role=role,
    )
