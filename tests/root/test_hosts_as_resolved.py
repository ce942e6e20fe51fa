"""Issue 42: where nfstune would connect, said before anything else, and every connection error naming the role,
the user and the address; a jump host's failure names the host it was going to. Against the real `ssh -G` and the
loopback sshd of tests/root/conftest.py."""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nfstune.remote import AuthFailed, Unreachable, open_host
from tests.conftest import free_port
from tests.root.conftest import ROOT, Sshd


def write_home(home: Path, bastion_port: int) -> None:
    """A fresh HOME whose ~/.ssh/config Includes the file that defines the NAS (behind a jump host)."""
    ssh = home / ".ssh"
    (ssh / "config.d").mkdir(parents=True)
    (ssh / "config").write_text("Include config.d/*\n\nHost *\n  ServerAliveInterval 15\n")
    (ssh / "config.d" / "nas").write_text(
        "Host mynas\n  HostName 127.0.0.1\n  Port 2222\n  User admin\n  ProxyJump bastion\n\n"
        f"Host bastion\n  HostName 127.0.0.1\n  Port {bastion_port}\n  User jumper\n"
    )


def test_a_dry_run_names_each_host_with_its_login_jump_host_and_included_file(tmp_path: Path) -> None:
    """ssh reads ~/.ssh/config from the user's home in the password database, not $HOME: the child runs in a mount
    namespace of its own where that home is the test's fresh one (this computer's is untouched)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("needs unshare (util-linux) to give ssh a fresh home")
    home_dir = pwd.getpwuid(os.getuid()).pw_dir
    home = tmp_path / "home"
    write_home(home, 2200)
    # the fresh home shows the real one's other entries (the Python running the tests may live there), not its .ssh
    binds = []
    for entry in Path(home_dir).iterdir():
        if entry.name != ".ssh":
            stand_in = home / entry.name
            stand_in.mkdir() if entry.is_dir() else stand_in.touch()
            binds.append(f"mount --bind {shlex.quote(str(entry))} {shlex.quote(str(stand_in))}")
    inside = " && ".join([*binds, f"mount --rbind {shlex.quote(str(home))} {shlex.quote(home_dir)}", 'exec "$@"'])
    argv = [unshare, "--mount", "--propagation", "private", "--", "sh", "-c", inside, "sh"]
    argv += [sys.executable, "-m", "nfstune", "run", "--server", "mynas", "--client", "mynas"]
    argv += ["--share", "/export", "--recipe", "quick-check", "--dry-run"]
    env = os.environ | {
        "HOME": home_dir,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    result = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    included = f"{home_dir}/.ssh/config.d/nas"
    hosts = result.stdout.split("\n\n", 1)[0].splitlines()
    assert hosts == [
        "Hosts, as nfstune reaches them:",
        "  server    mynas: admin@127.0.0.1:2222",
        "            via the jump host bastion (jumper@127.0.0.1:2200)",
        f"            from {included} line 1 (Host mynas)",
        "  client    mynas: admin@127.0.0.1:2222",
        "            via the jump host bastion (jumper@127.0.0.1:2200)",
        f"            from {included} line 1 (Host mynas)",
    ]


def ssh_config(tmp_path: Path, text: str) -> Path:
    config = tmp_path / "ssh_config"
    config.write_text(text)
    return config


def test_a_wrong_user_is_named_with_the_role(sshd: Sshd, tmp_path: Path) -> None:
    config = ssh_config(
        tmp_path,
        f"Host nas\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User nosuchuser\n"
        f"  IdentityFile {sshd.client_key}\n  IdentitiesOnly yes\n  UserKnownHostsFile {sshd.known_hosts}\n",
    )
    host = open_host("nas", ssh_config=config, role="client")
    host.connect_timeout = 5
    with pytest.raises(AuthFailed) as info:
        host.connect()
    assert str(info.value).startswith(
        f"client nas (nosuchuser@127.0.0.1:{sshd.port}) refused the login with the key {sshd.client_key}. Check "
        "the user name (nosuchuser)"
    )


def test_a_refused_port_is_named_with_the_role_and_user(tmp_path: Path) -> None:
    closed = free_port()
    config = ssh_config(tmp_path, f"Host nas\n  HostName 127.0.0.1\n  Port {closed}\n  User admin\n")
    with pytest.raises(Unreachable) as info:
        open_host("nas", ssh_config=config, role="server").connect()
    assert str(info.value).startswith(
        f"server nas (admin@127.0.0.1:{closed}) refused the connection: nothing listens on port {closed} there."
    )


def test_a_broken_jump_host_names_the_host_it_was_going_to(tmp_path: Path) -> None:
    closed = free_port()
    config = ssh_config(
        tmp_path,
        "Host mynas\n  HostName 10.0.0.5\n  User admin\n  ProxyJump bastion\n\n"
        f"Host bastion\n  HostName 127.0.0.1\n  Port {closed}\n  User jumper\n",
    )
    with pytest.raises(Unreachable) as info:
        open_host("mynas", ssh_config=config, role="server").connect()
    assert str(info.value).startswith(
        "could not reach server mynas (admin@10.0.0.5:22) through the jump host bastion: jump host bastion "
        f"(jumper@127.0.0.1:{closed}) refused the connection: nothing listens on port {closed} there."
    )
