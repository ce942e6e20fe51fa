"""Non-root logins against the real sshd: sudo without a password, sudo with one (held in memory), no sudo,
and the SSH password fallback. The test users exist only for the test session."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.remote import AuthFailed, Host, PermissionDenied
from tests.conftest import Sshd, keygen

USERS = {"nfstune-nopw": "NOPASSWD: ", "nfstune-pw": "", "nfstune-nosudo": None}
PASSWORD = "correct horse 7"


@pytest.fixture(scope="module")
def users(sshd: Sshd) -> Iterator[None]:
    for user, tag in USERS.items():
        subprocess.run(["userdel", "-r", user], capture_output=True)
        subprocess.run(["useradd", "-m", "-s", "/bin/sh", user], check=True)
        subprocess.run(["chpasswd"], input=f"{user}:{PASSWORD}\n", text=True, check=True)
        # sshd reads a user's authorized keys as that user: the test's key goes into their home
        ssh_dir = Path(f"/home/{user}/.ssh")
        ssh_dir.mkdir(mode=0o700, exist_ok=True)
        (ssh_dir / "authorized_keys").write_text(sshd.client_key.with_suffix(".pub").read_text())
        subprocess.run(["chown", "-R", f"{user}:{user}", str(ssh_dir)], check=True)
        if tag is not None:
            rule = Path(f"/etc/sudoers.d/{user}")
            rule.write_text(f"{user} ALL=(ALL) {tag}ALL\n")
            rule.chmod(0o440)
    yield
    for user, tag in USERS.items():
        if tag is not None:
            Path(f"/etc/sudoers.d/{user}").unlink(missing_ok=True)
        subprocess.run(["userdel", "-r", user], capture_output=True)


def login(sshd: Sshd, user: str, secrets: dict[str, str] | None = None, key: Path | None = None) -> Host:
    asked: list[str] = []

    def ask(label: str, what: str) -> str | None:
        asked.append(what)
        return (secrets or {}).get(what.split()[0])

    h = Host(
        "127.0.0.1", port=sshd.port, username=user, key_filename=key or sshd.client_key,
        known_hosts=sshd.known_hosts, label="testhost", ask_secret=ask,
    )  # fmt: skip
    h.asked = asked  # type: ignore[attr-defined]
    return h


def test_sudo_without_password(sshd: Sshd, users: None) -> None:
    with login(sshd, "nfstune-nopw") as h:
        assert h.run("id -un").stdout.strip() == "nfstune-nopw"
        assert h.run("id -un", sudo=True).stdout.strip() == "root"
        assert h.asked == []  # type: ignore[attr-defined]


def test_sudo_password_is_asked_once_and_used(sshd: Sshd, users: None) -> None:
    with login(sshd, "nfstune-pw", {"sudo": PASSWORD}) as h:
        assert h.run("id -un", sudo=True).stdout.strip() == "root"
        assert h.run(["cat", "/etc/shadow"], sudo=True).stdout.startswith("root:")
        h.write_file("/root/nfstune-sudo-test", b"written via sudo\n", sudo=True)
        assert h.read_file("/root/nfstune-sudo-test", sudo=True) == b"written via sudo\n"
        h.run("rm /root/nfstune-sudo-test", sudo=True)
        assert h.asked == ["sudo password for nfstune-pw"]  # type: ignore[attr-defined]


def test_wrong_sudo_password_is_refused(sshd: Sshd, users: None) -> None:
    with login(sshd, "nfstune-pw", {"sudo": "wrong"}) as h, pytest.raises(PermissionDenied) as info:
        h.run("true", sudo=True)
    assert "testhost" in str(info.value) and "refused the password" in str(info.value)


def test_no_sudo_and_no_password_is_a_clear_error(sshd: Sshd, users: None) -> None:
    with login(sshd, "nfstune-nosudo") as h, pytest.raises(PermissionDenied) as info:
        h.run("true", sudo=True)
    message = str(info.value)
    assert message.startswith("testhost: nfstune needs root here: nfstune-nosudo cannot use `sudo -n`")


def test_password_login_when_the_key_is_refused(sshd: Sshd, users: None, tmp_path: Path) -> None:
    stranger = keygen(tmp_path / "id_stranger")
    with login(sshd, "nfstune-nosudo", {"SSH": PASSWORD}, key=stranger) as h:
        assert h.run("id -un").stdout.strip() == "nfstune-nosudo"
    assert h.asked == ["SSH password for nfstune-nosudo"]  # type: ignore[attr-defined]
    with pytest.raises(AuthFailed):
        login(sshd, "nfstune-nosudo", {"SSH": "wrong"}, key=stranger).connect()
