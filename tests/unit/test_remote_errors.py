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
    assert missing_command("ls: cannot access 'x': No such file or directory\n") is None
