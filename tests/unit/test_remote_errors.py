"""SSH errors that need no server: nothing listening, and the "command not found" of common shells."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.remote import Host, Unreachable
from tests.conftest import free_port


def test_nothing_listening_is_unreachable(tmp_path: Path) -> None:
    kh = tmp_path / "known_hosts"
    kh.write_text("")
    port = free_port()
    h = Host("127.0.0.1", port=port, known_hosts=kh, label="nowhere", connect_timeout=2)
    with pytest.raises(Unreachable) as info:
        h.connect()
    assert str(info.value).startswith(f"nowhere (root@127.0.0.1:{port}) refused the connection: ")
    assert info.value.host == f"nowhere (root@127.0.0.1:{port})"  # as the message names it


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


def test_no_route_and_addresses_that_fail_differently() -> None:
    """Failures no loopback socket gives (a route missing): said from the errors themselves, nothing connected."""
    import errno

    from nfstune.remote import SshTarget
    from nfstune.remote.reach import not_connected

    target = SshTarget("nas", "nas.lan", 22, "admin")
    named = target.named("server")
    no_route = {"10.0.0.5": OSError(errno.EHOSTUNREACH, "No route to host")}
    assert not_connected(named, target, no_route, 10) == (
        "There is no route from this computer to server nas (admin@nas.lan:22) at 10.0.0.5. Check that the host is "
        "on and on this network, its address, and this computer's own network connection."
    )
    # an IPv6 address without a route and an IPv4 one that refuses: the refusal came from the host itself
    mixed = {
        "fd00::5": OSError(errno.ENETUNREACH, "Network is unreachable"),
        "10.0.0.5": ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
    }
    assert not_connected(named, target, mixed, 10).startswith(
        "server nas (admin@nas.lan:22) at 10.0.0.5 refused the connection"
    )
