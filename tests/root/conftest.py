"""Tests that need root, and their fixtures: a real OpenSSH server on loopback (with its own host key and an
authorized key of ours) that the tests log in to as root, and real users of this machine with their sudo rules.
CI and `make test` run as root; elsewhere every test of this folder is skipped, saying so (marker `root`)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port

SSHD = "/usr/sbin/sshd"
HERE = Path(__file__).parent
ROOT = HERE.parents[1]  # where `tests.root.*_child` modules are importable from
NOT_ROOT = (
    "needs root (CI and `make test` run as root): a loopback sshd logged in to as root, sudo without a password, "
    "users and sudo rules created, or a file only root may write"
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.root)
            if os.geteuid() != 0:
                item.add_marker(pytest.mark.skip(reason=NOT_ROOT))


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


def _until_listening(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"sshd did not start: {log.read_text()}")
            time.sleep(0.05)


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
    _until_listening(proc, port, d / "sshd.log")
    yield Sshd(port, host_key, client_key, known_hosts, d)
    proc.terminate()
    proc.wait(timeout=10)
    log.close()


@pytest.fixture(scope="session")
def keys_only_sshd(sshd: Sshd) -> Iterator[Sshd]:
    """The same sshd (host key, authorized key, known_hosts line) on a port of its own, taking public keys only: no
    password, no keyboard-interactive."""
    port = free_port()
    d = sshd.directory
    known_hosts = d / "known_hosts_keys_only"
    key_type, key_b64 = sshd.host_key.with_suffix(".pub").read_text().split()[:2]
    known_hosts.write_text(f"[127.0.0.1]:{port} {key_type} {key_b64}\n")
    log = open(d / "sshd_keys_only.log", "w")  # noqa: SIM115 (open for the server's lifetime)
    # -o wins over the file: sshd keeps the first value it gets
    options = ["PasswordAuthentication=no", "KbdInteractiveAuthentication=no", f"PidFile={d / 'keys_only.pid'}"]
    argv = [SSHD, "-D", "-e", "-f", str(d / "sshd_config"), "-p", str(port)]
    proc = subprocess.Popen([*argv, *(f"-o{o}" for o in options)], stdout=log, stderr=log)
    _until_listening(proc, port, d / "sshd_keys_only.log")
    yield Sshd(port, sshd.host_key, sshd.client_key, known_hosts, d)
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


# --- names that do not resolve, without asking a DNS server ------------------------------------------------------
# A test of a name that does not resolve cannot look it up in the test process: glibc would ask the nameserver of
# /etc/resolv.conf, off this computer, and the project's tests send traffic only to loopback and to their own test
# hosts (tests/conftest.py refuses such a lookup). So such a test runs a child process in namespaces of its own:
# - a mount namespace where /etc/nsswitch.conf is a copy whose `hosts:` line is `files` alone: glibc answers from
#   /etc/hosts only, and a name not there is EAI_NONAME, what DNS answers for it (RFC 6761 keeps .invalid
#   unresolvable): the real resolver, the real error, the same words from nfstune;
# - a network namespace, whose only interface is a loopback that is down: were the copy ever ignored, the query
#   could not leave it (and the test would fail on the words, not pass on a reply).
# The bind mount lives in the child's namespace alone and goes with it; this computer's files are untouched.
RunFilesOnly = Callable[..., Any]


@pytest.fixture(scope="session")
def files_only_hosts(tmp_path_factory: pytest.TempPathFactory) -> RunFilesOnly:
    """`run(module, *args, env=None)`: `python -m module args` in those namespaces; what it printed last, as JSON.
    Skipped, saying why, where they cannot be made (no unshare, not root, a container that forbids them)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("needs unshare (util-linux) to look up a name that does not resolve without asking DNS")
    if os.geteuid() != 0:
        pytest.skip(NOT_ROOT)
    nsswitch = Path("/etc/nsswitch.conf")
    if not nsswitch.is_file():
        pytest.skip(f"{nsswitch} is missing: there is nothing to bind a files-only copy over (glibc then asks DNS)")
    copy = tmp_path_factory.mktemp("nsswitch") / "nsswitch.conf"
    lines = nsswitch.read_text().splitlines()
    kept = [line for line in lines if not line.split("#", 1)[0].strip().startswith("hosts:")]
    copy.write_text("\n".join([*kept, "hosts: files"]) + "\n")
    inside = 'mount --bind "$0" /etc/nsswitch.conf && exec "$@"'
    prefix = [unshare, "--mount", "--propagation", "private", "--net", "--", "sh", "-c", inside, str(copy)]
    probe = subprocess.run([*prefix, "true"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a mount and a network namespace here: {probe.stderr.strip()}")

    def run(module: str, *args: object, env: Mapping[str, str] | None = None) -> Any:
        environment = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)} | dict(env or {})
        argv = [*prefix, sys.executable, "-m", module, *map(str, args)]
        done = subprocess.run(argv, capture_output=True, text=True, env=environment, cwd=ROOT, timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    return run
