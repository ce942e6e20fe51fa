"""Non-root logins against the real sshd: sudo without a password, sudo with one (held in memory), no sudo,
and the SSH password fallback. The test users exist only for the test session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.remote import AuthFailed, Host, PermissionDenied
from tests.root.conftest import Sshd, keygen, local_users

USERS = {"nfstune-nopw": "ALL=(ALL) NOPASSWD: ALL", "nfstune-pw": "ALL=(ALL) ALL", "nfstune-nosudo": None}
PASSWORD = "correct horse 7"


@pytest.fixture(scope="module")
def users(sshd: Sshd) -> Iterator[None]:
    with local_users(sshd, USERS, PASSWORD):
        yield


def login(sshd: Sshd, user: str, secrets: dict[str, str] | None = None, key: Path | None = None) -> Host:
    asked: list[str] = []

    def ask(label: str, what: str) -> str | None:
        asked.append(what)
        return (secrets or {}).get(what.split()[0])

    h = Host(
        "127.0.0.1",
        port=sshd.port,
        username=user,
        key_filename=key or sshd.client_key,
        known_hosts=sshd.known_hosts,
        label="testhost",
        ask_secret=ask,
    )
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
    message = str(info.value)
    assert message.startswith("testhost: sudo refused the password for nfstune-pw: check it"), message
    assert "incorrect password" in info.value.details  # sudo's own words, behind the message


def test_no_sudo_and_no_password_is_a_clear_error(sshd: Sshd, users: None) -> None:
    with login(sshd, "nfstune-nosudo") as h, pytest.raises(PermissionDenied) as info:
        h.run("true", sudo=True)
    message = str(info.value)
    assert message.startswith("testhost: nfstune needs root here: sudo asks nfstune-nosudo for a password, and none")
    assert "log in as root" in message and "NOPASSWD" in message
    assert info.value.details == "sudo said: sudo: a password is required\n"


def test_a_user_sudo_does_not_allow_is_told_so(sshd: Sshd, users: None) -> None:
    """With a password, sudo gets as far as its rules: a user who is in none of them is told that, not that the
    password was wrong."""
    with login(sshd, "nfstune-nosudo", {"sudo": PASSWORD}) as h, pytest.raises(PermissionDenied) as info:
        h.run("true", sudo=True)
    assert str(info.value) == (
        "testhost: nfstune-nosudo may not use sudo here: log in as root, or as a user sudoers allows"
    ), str(info.value)
    assert "not in the sudoers file" in info.value.details


def test_password_login_when_the_key_is_refused(sshd: Sshd, users: None, tmp_path: Path) -> None:
    stranger = keygen(tmp_path / "id_stranger")
    with login(sshd, "nfstune-nosudo", {"SSH": PASSWORD}, key=stranger) as h:
        assert h.run("id -un").stdout.strip() == "nfstune-nosudo"
    assert h.asked == ["SSH password for nfstune-nosudo"]  # type: ignore[attr-defined]
    with pytest.raises(AuthFailed):
        login(sshd, "nfstune-nosudo", {"SSH": "wrong"}, key=stranger).connect()


def test_the_sudo_password_goes_only_to_sudo_when_it_asks(sshd: Sshd, users: None) -> None:
    """A command that reads its stdin, run through sudo: with a password sudo reads it itself; where the command
    needs none (a NOPASSWD rule for it, or cached credentials) sudo does not ask, and the password used to reach
    the command's stdin."""
    with login(sshd, "nfstune-pw", {"sudo": PASSWORD}) as h:
        assert h.run("cat", sudo=True).stdout == ""  # sudo asked and read it; cat read EOF
        assert h.run("cat", sudo=True, stdin=b"data\n").stdout == "data\n"
        rule = Path("/etc/sudoers.d/nfstune-pw")
        before = rule.read_text()
        # the wrapper every command runs under is setsid: without a password for it, sudo no longer asks
        rule.write_text(before + "nfstune-pw ALL=(ALL) NOPASSWD: /usr/bin/setsid\n")
        try:
            for stdin in (b"", b"data\n"):
                out = h.run("cat", sudo=True, stdin=stdin).stdout
                assert PASSWORD not in out and out == stdin.decode()
            assert h.run("id -un", sudo=True).stdout.strip() == "root"
        finally:
            rule.write_text(before)
        assert h.asked == ["sudo password for nfstune-pw"]  # type: ignore[attr-defined]


def test_a_nas_login_without_root_is_told_the_client_alone_can_still_answer(sshd: Sshd, users: None) -> None:
    from nfstune.remote.local import LocalHost
    from nfstune.session.workflow import Pair, probe_pair

    with login(sshd, "nfstune-nosudo") as server, pytest.raises(PermissionDenied) as info:
        probe_pair(Pair(server, LocalHost(), "127.0.0.1", "/srv"))
    message = str(info.value)
    assert message.startswith("testhost: nfstune needs root here: sudo asks nfstune-nosudo for a password")
    assert info.value.details.startswith("sudo said: ")  # kept through the hint added to the message
    assert message.endswith(
        "from the client alone: `nfstune run --no-server-login`, or tick \u201cI cannot log in "
        "to this NAS\u201d on the Connect page"
    )
