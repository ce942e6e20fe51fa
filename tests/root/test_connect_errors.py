"""Connection failures in plain words, against real sockets on loopback and the real sshd: each message names the
host as it was given (and the address and port it stands for) and says what to check; the exception nfstune got is
kept in `details`. Only 127.0.0.1 is connected to; `.invalid` names never resolve (RFC 6761), and are looked up in
a child process whose resolver reads /etc/hosts alone: none is sent to a DNS server."""

from __future__ import annotations

import getpass
import shlex
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from nfstune.remote import AuthFailed, Host, HostKeyChanged, HostKeyUnknown, SshTarget, Unreachable
from tests.conftest import free_port
from tests.root.conftest import RunFilesOnly, Sshd, keygen


def connect(target: str | SshTarget, known_hosts: Path, **kw: object) -> BaseException:
    """What connecting raises (it must fail)."""
    h = Host(target, known_hosts=known_hosts, connect_timeout=1.0, **kw)  # type: ignore[arg-type]
    with pytest.raises((Unreachable, AuthFailed, HostKeyChanged, HostKeyUnknown)) as info:
        h.connect()
    return info.value


def test_a_closed_port_says_nothing_listens_and_to_check_sshd_and_the_firewall(tmp_path: Path) -> None:
    port = free_port()
    error = connect("127.0.0.1", tmp_path / "kh", port=port)
    assert isinstance(error, Unreachable)
    assert str(error).startswith(f"root@127.0.0.1:{port} refused the connection: nothing listens on port {port}")
    assert "sshd runs on that host" in str(error) and "firewall" in str(error)
    assert error.details == f"127.0.0.1 port {port}: ConnectionRefusedError: [Errno 111] Connection refused"


def test_a_name_that_does_not_resolve_says_where_to_look(tmp_path: Path, files_only_hosts: RunFilesOnly) -> None:
    # looked up in a child whose resolver asks no DNS server (tests/root/conftest.py says why and how)
    name, alias = files_only_hosts("tests.root.unresolvable_child", "connect", tmp_path)
    assert name["type"] == "Unreachable"
    assert name["message"] == (
        f"Cannot find {getpass.getuser()}@nonexistent.invalid:22: the name does not resolve to an address on this "
        "computer. Check the spelling, DNS, /etc/hosts, and the Host and HostName lines for it in ~/.ssh/config."
    )
    assert name["details"].startswith("gaierror: ")
    # an alias of the SSH config (Host nas, HostName nas.nonexistent.invalid): the name typed, and the HostName
    assert alias["type"] == "Unreachable"
    assert alias["message"].startswith(
        f"Cannot find nas ({getpass.getuser()}@nas.nonexistent.invalid:22): its HostName in the SSH config, "
        "nas.nonexistent.invalid, does not resolve"
    )


def test_a_port_that_does_not_answer_times_out_with_what_to_check(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        # the one connection its queue holds: the kernel answers no further SYN, as a host that is off or a
        # firewall that drops would
        with socket.create_connection(("127.0.0.1", port)):
            error = connect("127.0.0.1", tmp_path / "kh", port=port, label="nas")
    assert str(error).startswith(f"nas (root@127.0.0.1:{port}) did not answer within 1 s. Check that the host is on")
    assert "firewall drops connections" in str(error) and "TimeoutError" in error.details


@contextmanager
def server(answer: bytes | None) -> Iterator[int]:
    """A port on loopback that takes one connection and sends `answer` (None: closes it at once)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)

        def serve() -> None:
            conn, _ = listener.accept()
            with conn:
                if answer is not None:
                    conn.sendall(answer)
                    while conn.recv(4096):  # until the client hangs up
                        pass

        thread = threading.Thread(target=serve)
        thread.start()
        yield listener.getsockname()[1]
        thread.join(timeout=10)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (None, "closed the connection before the SSH login began. Check that port {port} is sshd's"),
        (b"HTTP/1.0 400 Bad Request\r\n" * 101, "answered, but not as an SSH server: something other than sshd"),
    ],
)
def test_a_port_that_is_not_sshd(tmp_path: Path, answer: bytes | None, said: str) -> None:
    with server(answer) as port:
        error = connect("127.0.0.1", tmp_path / "kh", port=port)
    assert str(error).startswith(f"root@127.0.0.1:{port} {said.format(port=port)}"), str(error)


def test_a_port_that_takes_the_connection_but_says_nothing(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)  # the kernel takes the connection; nobody ever speaks on it
        port = listener.getsockname()[1]
        error = connect("127.0.0.1", tmp_path / "kh", port=port)
    assert str(error).startswith(f"root@127.0.0.1:{port} took the connection, but no SSH server greeted nfstune")
    assert error.details.startswith("SSHException: ")  # the banner's wait, or paramiko's own wait for the handshake


def test_a_refused_key_names_the_key_the_user_and_what_the_host_accepts(sshd: Sshd, tmp_path: Path) -> None:
    stranger = keygen(tmp_path / "id_stranger")
    error = connect("127.0.0.1", sshd.known_hosts, port=sshd.port, key_filename=stranger, label="nas")
    assert isinstance(error, AuthFailed)
    assert str(error) == (
        f"nas (root@127.0.0.1:{sshd.port}) refused the login with the key {stranger}. Check the user name (root), "
        f"and that the public key ({stranger}.pub) is in ~root/.ssh/authorized_keys there. The host also accepts a "
        "password, which was not given."
    )
    assert error.details.endswith("the host accepts: publickey, password")


def test_a_key_with_a_passphrase_is_said_to_need_the_agent(sshd: Sshd, tmp_path: Path) -> None:
    locked = tmp_path / "id_locked"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "a passphrase", "-f", str(locked)], check=True)
    error = connect("127.0.0.1", sshd.known_hosts, port=sshd.port, key_filename=locked)
    assert isinstance(error, AuthFailed)
    assert str(error) == (
        f"nfstune could not log in to root@127.0.0.1:{sshd.port}: the key {locked} needs its passphrase, "
        f"which nfstune does not ask for: load it into the ssh agent (ssh-add {locked})."
    )


def test_a_changed_host_key_names_the_known_hosts_line_and_how_to_remove_it(sshd: Sshd, tmp_path: Path) -> None:
    other = keygen(tmp_path / "other_host_key")
    key_type, key_b64 = other.with_suffix(".pub").read_text().split()[:2]
    known = tmp_path / "known_hosts"
    name = f"[127.0.0.1]:{sshd.port}"
    known.write_text(f"elsewhere.invalid {key_type} {key_b64}\n{name} {key_type} {key_b64}\n")
    subprocess.run(["ssh-keygen", "-H", "-f", str(known)], check=True, capture_output=True)  # as HashKnownHosts
    assert name not in known.read_text()
    error = connect("127.0.0.1", known, port=sshd.port, label="nas")
    assert isinstance(error, HostKeyChanged)
    message = str(error)
    assert message.startswith(f"HOST KEY CHANGED: nas (root@127.0.0.1:{sshd.port}) now offers the ssh-ed25519 key ")
    assert f" {error.fingerprint}, not the one on line 2 of {known}. nfstune refuses to connect: " in message
    assert "reinstalled" in message and "intercepting" in message
    assert (
        f"if `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on the host's own console shows {error.fingerprint}"
        in message
    )
    assert error.details == (
        f"BadHostKeyException: {name} offered ssh-ed25519 {error.fingerprint}; known_hosts has {error.expected}"
    )
    remove = message.split("remove the old entry with `")[1].split("`")[0]
    assert remove == f"ssh-keygen -R '{name}' -f {known}"
    # the command as the message gives it removes that entry and no other: the host is then unknown, not changed
    subprocess.run(shlex.split(remove), check=True, capture_output=True)
    assert len(known.read_text().splitlines()) == 1
    assert isinstance(connect("127.0.0.1", known, port=sshd.port), HostKeyUnknown)


def test_an_unknown_host_key_that_is_not_accepted(sshd: Sshd, tmp_path: Path) -> None:
    error = connect("127.0.0.1", tmp_path / "empty", port=sshd.port, label="nas")
    assert isinstance(error, HostKeyUnknown)
    assert str(error).startswith(
        f"nas (root@127.0.0.1:{sshd.port}) offers a host key that is in no known_hosts file (ssh-ed25519 SHA256:"
    )
    assert "was not accepted, so nfstune did not log in" in str(error)


def test_a_proxy_command_that_fails_is_named_with_what_it_said(sshd: Sshd, tmp_path: Path) -> None:
    command = "sh -c 'echo bastion.invalid: no route to host >&2; exit 3'"
    target = SshTarget("nas", "127.0.0.1", sshd.port, "root", (sshd.client_key,), proxy_command=command)
    error = connect(target, sshd.known_hosts)
    assert str(error) == (
        f"The ProxyCommand for nas (root@127.0.0.1:{sshd.port}) ended (exit status 3) before an SSH connection was "
        "made; it said: bastion.invalid: "
        f"no route to host. Check the command in your SSH config by running it yourself: {command}"
    )


def test_a_jump_host_that_cannot_reach_the_target(sshd: Sshd, tmp_path: Path) -> None:
    closed = free_port()
    jump = SshTarget("bastion", "127.0.0.1", sshd.port, "root", (sshd.client_key,), identities_only=True)
    target = SshTarget("nas", "127.0.0.1", closed, "root", (sshd.client_key,), jump=jump)
    error = connect(target, sshd.known_hosts)
    assert str(error).startswith(
        f"could not reach nas (root@127.0.0.1:{closed}) through the jump host bastion: jump host bastion "
        f"(root@127.0.0.1:{sshd.port}) let nfstune log in but could not connect on to 127.0.0.1 port {closed}."
    )
    assert "AllowTcpForwarding" in str(error) and "Connect failed" in error.details


def test_nothing_to_log_in_with_says_what_could_be_given(
    sshd: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh keys
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)  # no agent
    error = connect(SshTarget("nas", "127.0.0.1", sshd.port, "root"), sshd.known_hosts)
    assert isinstance(error, AuthFailed)
    assert str(error).startswith(
        f"nfstune had nothing to log in to nas (root@127.0.0.1:{sshd.port}) with: no key file was given or "
        "found in ~/.ssh, the ssh agent holds no key, and no password was given."
    )
    assert error.details.endswith("offered: nothing; the host accepts: publickey, password")


def test_no_password_is_asked_of_a_host_that_takes_keys_only(keys_only_sshd: Sshd, tmp_path: Path) -> None:
    asked: list[str] = []

    def ask(label: str, what: str) -> str:
        asked.append(what)
        return "a password typed for nothing"

    stranger = keygen(tmp_path / "id_stranger")
    error = connect(
        "127.0.0.1", keys_only_sshd.known_hosts, port=keys_only_sshd.port, key_filename=stranger, ask_secret=ask
    )
    assert isinstance(error, AuthFailed) and asked == []
    assert str(error).endswith("The host allows no password login (it accepts publickey only).")
