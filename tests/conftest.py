"""Shared fixtures: a real OpenSSH server on loopback, with its own host key and an authorized key of ours."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import psutil
import pytest

if TYPE_CHECKING:
    from nfstune.lab import LabConfig

SSHD = "/usr/sbin/sshd"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def keygen(path: Path, comment: str = "nfstune-test") -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)], check=True)
    return path


@dataclass(frozen=True)
class Sshd:
    port: int
    host_key: Path  # private; .pub beside it
    client_key: Path
    known_hosts: Path  # holds the right host key for [127.0.0.1]:port
    directory: Path


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    if not Path(SSHD).exists():
        pytest.fail(f"{SSHD} is missing: `make test` installs openssh-server")
    d = tmp_path_factory.mktemp("sshd")
    host_key = keygen(d / "ssh_host_ed25519_key", "nfstune-test-host")
    client_key = keygen(d / "id_ed25519")
    shutil.copy(client_key.with_suffix(".pub"), d / "authorized_keys")
    port = free_port()
    config = d / "sshd_config"
    config.write_text(
        f"ListenAddress 127.0.0.1\nHostKey {host_key}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'} .ssh/authorized_keys\n"
        f"PidFile {d / 'sshd.pid'}\nPermitRootLogin prohibit-password\nPasswordAuthentication yes\n"
        "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nSubsystem sftp internal-sftp\n"
    )
    known_hosts = d / "known_hosts"
    key_type, key_b64 = host_key.with_suffix(".pub").read_text().split()[:2]
    known_hosts.write_text(f"[127.0.0.1]:{port} {key_type} {key_b64}\n")
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    log = open(d / "sshd.log", "w")  # noqa: SIM115 (open for the server's lifetime)
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config), "-p", str(port)], stdout=log, stderr=log)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"sshd did not start: {(d / 'sshd.log').read_text()}")
            time.sleep(0.05)
    yield Sshd(port, host_key, client_key, known_hosts, d)
    proc.terminate()
    proc.wait(timeout=10)
    log.close()


@contextmanager
def local_users(sshd: Sshd, sudo_rules: Mapping[str, str | None], password: str) -> Iterator[None]:
    """Real users of this machine for the SSH tests: each logs in to the test sshd with the test key (or the
    password), with `sudo_rules[user]` as its sudoers rule after the name (None: no sudo at all). Removed after."""
    for user, rule in sudo_rules.items():
        subprocess.run(["userdel", "-r", user], capture_output=True)
        subprocess.run(["useradd", "-m", "-s", "/bin/sh", user], check=True)
        subprocess.run(["chpasswd"], input=f"{user}:{password}\n", text=True, check=True)
        # sshd reads a user's authorized keys as that user: the test's key goes into their home
        ssh_dir = Path(f"/home/{user}/.ssh")
        ssh_dir.mkdir(mode=0o700, exist_ok=True)
        (ssh_dir / "authorized_keys").write_text(sshd.client_key.with_suffix(".pub").read_text())
        subprocess.run(["chown", "-R", f"{user}:{user}", str(ssh_dir)], check=True)
        if rule is not None:
            sudoers = Path(f"/etc/sudoers.d/{user}")
            sudoers.write_text(f"{user} {rule.format(user=user)}\n")
            sudoers.chmod(0o440)
            subprocess.run(["visudo", "-cf", str(sudoers)], check=True, capture_output=True)
    try:
        yield
    finally:
        for user in sudo_rules:
            Path(f"/etc/sudoers.d/{user}").unlink(missing_ok=True)
            subprocess.run(["userdel", "-r", user], capture_output=True)


# --- the practice lab, booted once per test session ------------------------------------------------------------


@pytest.fixture(scope="session")
def lab_state_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """XDG_STATE_HOME of the test lab, so that `nfstune lab ...` subprocesses find it too."""
    return tmp_path_factory.mktemp("xdg-state")


@pytest.fixture(scope="session")
def lab(lab_state_home: Path) -> Iterator[LabConfig]:
    """Both lab VMs up, on free ports, with the hdd disk profile and the 50mbit link profile (so that the tests
    can check the shaping); the image cache is the user's own, shared with `nfstune lab`."""
    from nfstune.lab import LabConfig, down, up

    cfg = LabConfig(
        state_dir=lab_state_home / "nfstune" / "lab",
        nas_port=free_port(),
        client_port=free_port(),
        link_port=free_port(),
        disk="hdd",
        link="50mbit",
    ).validate()
    log: list[str] = []
    up(cfg, log.append)
    yield cfg.as_running()
    down(cfg, log.append)
    leftovers = [
        p.info["pid"]
        for p in psutil.process_iter(["pid", "cmdline"])
        if str(cfg.state_dir) in " ".join(p.info["cmdline"] or [])
    ]
    assert leftovers == [], f"qemu processes left running: {leftovers}"
    assert not list(cfg.state_dir.glob("*.pid")), "stale pid files left"
