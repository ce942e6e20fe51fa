"""~/.ssh/config as OpenSSH reads it, against the real sshd on loopback: a host defined in an Included file, a
ProxyCommand, a two-hop ProxyJump, a Match block, HostKeyAlias, and the fallback without the ssh client."""

from __future__ import annotations

import os
from pathlib import Path

import paramiko
import psutil
import pytest

from nfstune.remote import Host, HostKeyChanged, openssh_config, resolve
from tests.root.conftest import Sshd


def login(sshd: Sshd) -> str:
    """The lines that log in to the test sshd as root with the test key."""
    return (
        f"  User root\n  IdentityFile {sshd.client_key}\n  IdentitiesOnly yes\n"
        f"  UserKnownHostsFile {sshd.known_hosts}\n"
    )


def peer_owner(h: Host) -> int:
    """The local process at the other end of the session's TCP connection, as sshd saw it (SSH_CONNECTION)."""
    source_port = int(h.run("echo $SSH_CONNECTION").stdout.split()[1])
    (owner,) = [c.pid for c in psutil.net_connections("tcp") if c.laddr and c.laddr.port == source_port]
    assert owner is not None
    return owner


def test_a_host_defined_in_an_included_file(sshd: Sshd, tmp_path: Path) -> None:
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "nas.conf").write_text(
        f"Host nas-included\n  HostName 127.0.0.1\n  Port {sshd.port}\n" + login(sshd)
    )
    config = tmp_path / "ssh_config"
    config.write_text(f"Include {tmp_path}/conf.d/*.conf\n")
    # paramiko's parser (what nfstune used before) skips Include: the alias itself on port 22, the bug
    assert "port" not in paramiko.SSHConfig.from_path(str(config)).lookup("nas-included")
    target = resolve("nas-included", ssh_config=config)
    assert (target.hostname, target.port, target.resolved_by) == ("127.0.0.1", sshd.port, "ssh -G")
    with Host(target, known_hosts=tmp_path / "ours") as h:  # the key comes from the config's UserKnownHostsFile
        assert h.run("echo $SSH_CONNECTION").stdout.split()[3] == str(sshd.port)
    assert not (tmp_path / "ours").exists()


def test_proxy_command_runs_through_the_shell(sshd: Sshd, tmp_path: Path) -> None:
    errors = tmp_path / "proxy stderr"
    config = tmp_path / "ssh_config"
    # the redirection only works through a shell, as ssh runs it (split into words, ssh would get "2>...")
    config.write_text(
        f"Host nas-proxied\n  HostName 127.0.0.1\n  Port {sshd.port}\n" + login(sshd) + "  ProxyCommand ssh -F none "
        f"-i {sshd.client_key} -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile={sshd.known_hosts} "
        f"-p {sshd.port} -W %h:%p root@127.0.0.1 2>'{errors}'\n"
    )
    target = resolve("nas-proxied", ssh_config=config)
    assert target.proxy_command is not None and f"-W 127.0.0.1:{sshd.port} " in target.proxy_command
    with Host(target, known_hosts=tmp_path / "ours") as h:
        # the target's client is sshd forwarding for the proxy's `ssh -W`, not this process
        owner = peer_owner(h)
        assert owner != os.getpid() and psutil.Process(owner).name() == "sshd"
        proxies = [p for p in psutil.Process().children(recursive=True) if p.name() == "ssh"]
        assert len(proxies) == 1 and "-W" in proxies[0].cmdline()
    assert errors.exists()
    assert not proxies[0].is_running() or proxies[0].status() == psutil.STATUS_ZOMBIE


def test_two_hop_proxy_jump(sshd: Sshd, tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    hop = f"  HostName 127.0.0.1\n  Port {sshd.port}\n" + login(sshd)
    config.write_text(f"Host nas-far\n{hop}  ProxyJump hop-a,hop-b\nHost hop-a\n{hop}Host hop-b\n{hop}")
    target = resolve("nas-far", ssh_config=config)
    assert target.jump is not None and target.jump.alias == "hop-b"
    assert target.jump.jump is not None and target.jump.jump.alias == "hop-a" and target.jump.jump.jump is None
    with Host(target, known_hosts=tmp_path / "ours") as h:
        assert psutil.Process(peer_owner(h)).name() == "sshd"  # reached through hop-b's tunnel
        hop_b = h._jump
        assert hop_b is not None and hop_b.target.alias == "hop-b"
        assert psutil.Process(peer_owner(hop_b)).name() == "sshd"  # hop-b itself through hop-a's
        hop_a = hop_b._jump
        assert hop_a is not None and hop_a.target.alias == "hop-a"
        assert peer_owner(hop_a) == os.getpid()  # the first hop: our own connection


def test_a_match_block(sshd: Sshd, tmp_path: Path) -> None:
    flag = tmp_path / "on the lab network"
    config = tmp_path / "ssh_config"
    config.write_text(
        f"Match originalhost nas-matched exec \"test -e '{flag}'\"\n  HostName 127.0.0.1\n  Port {sshd.port}\n"
        + login(sshd)
    )
    assert resolve("nas-matched", ssh_config=config).port == 22  # the exec fails: the block does not apply
    flag.touch()
    target = resolve("nas-matched", ssh_config=config)
    assert (target.hostname, target.port) == ("127.0.0.1", sshd.port)
    with Host(target, known_hosts=tmp_path / "ours") as h:
        assert h.run("whoami").stdout.strip() == "root"


def test_host_key_alias(sshd: Sshd, tmp_path: Path) -> None:
    key_type, key_b64 = sshd.host_key.with_suffix(".pub").read_text().split()[:2]
    right, wrong = tmp_path / "right", tmp_path / "wrong"
    right.write_text(f"nas-key {key_type} {key_b64}\n")  # under the alias only: no [127.0.0.1]:port line
    other = paramiko.Ed25519Key.from_private_key_file(str(sshd.client_key))  # any other ed25519 key
    wrong.write_text(f"nas-key {other.get_name()} {other.get_base64()}\n")
    config = tmp_path / "ssh_config"
    for known in (right, wrong):
        config.write_text(
            f"Host nas-aliased\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User root\n"
            f"  IdentityFile {sshd.client_key}\n  HostKeyAlias nas-key\n  UserKnownHostsFile {known}\n"
        )
        target = resolve("nas-aliased", ssh_config=config)
        assert target.host_key_alias == "nas-key"
        host = Host(target, known_hosts=tmp_path / "ours")  # no prompt: an unknown key would be refused
        if known is right:
            with host:
                assert host.run("true").exit_status == 0
        else:
            with pytest.raises(HostKeyChanged):
                host.connect()
    assert not (tmp_path / "ours").exists()


def test_without_the_ssh_client_include_is_named(sshd: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "more.conf").write_text("Host elsewhere\n  Port 2200\n")
    config = tmp_path / "ssh_config"
    config.write_text(f"Include {tmp_path}/more.conf\n\nHost nas-direct\n  HostName 127.0.0.1\n  Port {sshd.port}\n")
    monkeypatch.setattr(openssh_config, "SSH", str(tmp_path / "no-ssh-here"))
    target = resolve("nas-direct", ssh_config=config, identity_file=sshd.client_key)
    assert target.resolved_by == "paramiko"
    assert len(target.warnings) == 1
    assert "ssh client is not installed" in target.warnings[0]
    assert f"{config} line 1: Include {tmp_path}/more.conf" in target.warnings[0]
    with Host(target, known_hosts=sshd.known_hosts) as h:  # what paramiko does read is still honoured
        assert h.run("echo $SSH_CONNECTION").stdout.split()[3] == str(sshd.port)
