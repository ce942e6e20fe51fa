"""SSH errors that need no server: nothing listening, and the "command not found" of common shells."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.remote import Host, Unreachable
from tests.conftest import free_port


def test_nothing_listening_is_unreachable(tmp_path: Path) -> None:
    kh = tmp_path / "known_hosts"
    kh.write_text("")
    h = Host("127.0.0.1", port=free_port(), known_hosts=kh, label="nowhere", connect_timeout=2)
    with pytest.raises(Unreachable) as info:
        h.connect()
    assert str(info.value).startswith("nowhere: ")


def test_missing_command_messages_of_common_shells() -> None:
    from nfstune.remote.tools import missing_command

    assert missing_command("sh: 1: fio: not found\n") == "fio"
    assert missing_command("bash: line 1: fio: command not found\n") == "fio"
    assert missing_command("/bin/sh: exportfs: not found\n") == "exportfs"
    assert missing_command("sh: 1: eval: fio: not found\n") == "fio"  # through the remote wrapper
    assert missing_command("ls: cannot access 'x': No such file or directory\n") is None


def test_a_failed_action_names_the_action_and_the_host_not_the_script() -> None:
    """A generated script (here 50 kB, as a file write's payload can be) never fills the admin's message box."""
    from nfstune.remote import CommandFailed
    from nfstune.remote.local import LocalHost

    script = "echo 'no such export' >&2; exit 3 # " + "A" * 50_000
    h = LocalHost()
    with pytest.raises(CommandFailed) as info:
        h.run(script, action="reading the kernel's exports")
    assert str(info.value) == f"reading the kernel's exports on {h.label} failed (exit status 3):\nno such export"
    assert info.value.exit_status == 3 and info.value.command == script  # the whole command stays for the log
    # without an action the command is quoted, cut to its start, with its length
    with pytest.raises(CommandFailed) as info:
        h.run(script)
    message = str(info.value)
    assert message.startswith(f"{h.label}: `echo 'no such export' >&2; exit 3 # AAA") and len(message) < 300
    assert "(a script of 50,036 characters) failed with exit status 3:\nno such export" in message
    # a short command is quoted whole
    with pytest.raises(CommandFailed) as info:
        h.run(["false"])
    assert str(info.value) == f"{h.label}: `false` failed with exit status 1"
