"""Large and binary files through Host.read_file/write_file against the real sshd, as root and as non-root
sudo users (with a password, without one, and one for whom sudo does not ask for the password it is sent)."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest

from nfstune.remote import FileAccessFailed, Host
from nfstune.remote.local import LocalHost
from tests.root.conftest import Sshd, local_users

PASSWORD = "tr0ub4dor &3"
# the rule for -cached: a password for everything except setsid, which every command runs under: so sudo is
# sent the password line (`sudo -n true` fails) but does not read it, as with cached credentials
USERS = {
    "nfstune-files-pw": "ALL=(ALL) ALL",
    "nfstune-files-nopw": "ALL=(ALL) NOPASSWD: ALL",
    "nfstune-files-cached": "ALL=(ALL) ALL\n{user} ALL=(ALL) NOPASSWD: /usr/bin/setsid",
}
MIB = 1 << 20


def megabyte() -> bytes:
    """1 MiB of random bytes with NULs, invalid UTF-8, CRs, ^D and lines of their own."""
    head = b"\n\0\0\xff\xfe\xc3(\r\n\x04\x03\n\n/srv *(rw)\n\x80\x81\xed\xa0\x80\n"
    return head + os.urandom(MIB - len(head) - 4) + b"\r\x04\0z"


@pytest.fixture(scope="module")
def users(sshd: Sshd) -> Iterator[None]:
    with local_users(sshd, USERS, PASSWORD):
        yield


class _RecordingChannel:
    """A real paramiko channel that notes the command line it is asked to run."""

    def __init__(self, channel: paramiko.Channel, sent: list[str]) -> None:
        self._channel, self._sent = channel, sent

    def exec_command(self, command: str) -> None:
        self._sent.append(command)
        self._channel.exec_command(command)

    def __getattr__(self, name: str) -> object:
        return getattr(self._channel, name)


class RecordingHost(Host):
    """A Host whose every remote command line is kept in `sent`, to see what `ps` on the host would show."""

    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.sent: list[str] = []

    def _open_channel(self, text: str) -> paramiko.Channel:
        return _RecordingChannel(super()._open_channel(text), self.sent)  # type: ignore[return-value]


def login(sshd: Sshd, user: str) -> RecordingHost:
    asked: list[str] = []

    def ask(label: str, what: str) -> str | None:
        asked.append(what)
        return PASSWORD

    h = RecordingHost(
        "127.0.0.1",
        port=sshd.port,
        username=user,
        key_filename=sshd.client_key,
        known_hosts=sshd.known_hosts,
        label="testhost",
        ask_secret=ask,
    )
    h.asked = asked  # type: ignore[attr-defined]
    return h


def round_trip(h: Host, directory: str, sudo: bool) -> None:
    data = megabyte()
    path = f"{directory}/my exports $(touch pwned)"
    h.write_file(path, data, sudo=sudo)
    assert Path(path).read_bytes() == data
    assert h.read_file(path, sudo=sudo) == data
    h.write_file(path, data[::-1], sudo=sudo)  # over an existing file: owner and mode kept
    assert Path(path).read_bytes() == data[::-1]
    assert sorted(p.name for p in Path(directory).iterdir()) == [Path(path).name]  # no temp file, no `pwned`


def no_payload_sent(h: RecordingHost) -> None:
    assert h.sent, "the recorder saw no command"
    assert max(len(line) for line in h.sent) < 4096  # the megabyte (or its base64) is on stdin, not here


@pytest.fixture
def space_dir(tmp_path: Path) -> Path:
    """A directory with a space in its name (the test users write into it through sudo)."""
    d = tmp_path / "a dir"
    d.mkdir()
    return d


def test_a_megabyte_round_trips_as_root(sshd: Sshd, space_dir: Path) -> None:
    with RecordingHost(
        "127.0.0.1", port=sshd.port, key_filename=sshd.client_key, known_hosts=sshd.known_hosts, label="testhost"
    ) as h:
        round_trip(h, str(space_dir), sudo=True)
    no_payload_sent(h)


@pytest.mark.parametrize("user", USERS)
def test_a_megabyte_round_trips_as_a_sudo_user(sshd: Sshd, users: None, space_dir: Path, user: str) -> None:
    with login(sshd, user) as h:
        round_trip(h, str(space_dir), sudo=True)
        assert h.run("id -un", sudo=True).stdout.strip() == "root"
    no_payload_sent(h)
    assert h.asked == ([] if user.endswith("nopw") else [f"sudo password for {user}"])  # type: ignore[attr-defined]
    assert all(PASSWORD not in line for line in h.sent)


def test_a_megabyte_round_trips_on_this_computer(tmp_path: Path) -> None:
    d = tmp_path / "a dir"
    d.mkdir()
    round_trip(LocalHost(), str(d), sudo=False)


def test_a_failed_write_names_the_file_and_host_and_not_the_data(sshd: Sshd, tmp_path: Path) -> None:
    data = b"/srv/secret host(rw) # " + b"x" * MIB + b"\n"  # more than the channel window: the send must end
    path = str(tmp_path / "no such dir" / "exports")
    with Host("127.0.0.1", port=sshd.port, key_filename=sshd.client_key, known_hosts=sshd.known_hosts) as h:
        h.label = "nas"
        with pytest.raises(FileAccessFailed) as info:
            h.write_file(path, data, sudo=True)
    message = str(info.value)
    assert message.startswith(f"writing {path} on nas: ")
    assert "No such file or directory" in message

    assert "x" * 50 not in message and base64.b64encode(data)[:40].decode() not in message
    assert not (tmp_path / "no such dir").exists()
