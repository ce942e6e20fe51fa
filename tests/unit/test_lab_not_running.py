"""A command given --lab when the lab is down: it says so, as `nfstune lab ssh nas` does, before any connection. The
lab's state folder here is a temporary one (XDG_STATE_HOME) where no VM runs, its lab.json pointing the lab's ports
at a socket of the test's own on 127.0.0.1: what listens there is not the lab, and must not be connected to."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.lab import LabConfig, LabError
from nfstune.remote import Unreachable

SAID = "the lab's nas VM is not running: start the lab with `nfstune lab up`"


@pytest.fixture
def impostor() -> Iterator[socket.socket]:
    """A port on 127.0.0.1 that takes connections (into its backlog) and never speaks: what a connection made to
    it leaves there is found by accept() afterwards."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        yield listener


def connections(listener: socket.socket) -> int:
    """How many connections were made to the listener (each is in its backlog, accepted or not)."""
    count = 0
    while True:
        try:
            conn, _ = listener.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


def lab_state(tmp_path: Path, port: int) -> dict[str, str]:
    """The environment of an nfstune whose lab is down, its settings saying that it listens on `port`."""
    state = tmp_path / "state" / "nfstune" / "lab"
    state.mkdir(parents=True)
    (state / "lab.json").write_text(json.dumps({"nas_port": port, "client_port": port}))
    (state / "nas.pid").write_text("999999999\n")  # a lab that was up once: its pid is gone
    return os.environ | {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


def nfstune(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "nfstune", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)


def stored_session(tmp_path: Path) -> int:
    from nfstune.store import Results, open_store

    results = Results(open_store(tmp_path / "data" / "nfstune" / "nfstune.sqlite3"))
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    results.end_session(sid, "completed")
    return sid


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--lab", "--recipe", "quick-check"],
        ["run", "--lab", "--recipe", "quick-check", "--no-server-login"],  # the client alone: it is down too
        ["check", "--lab", "{session}", "--yes"],
        ["apply", "--lab", "{session}", "--yes"],
        ["lab", "ssh", "nas"],
    ],
)
def test_a_command_on_the_lab_when_it_is_down_says_so_and_connects_nowhere(
    tmp_path: Path, impostor: socket.socket, command: list[str]
) -> None:
    env = lab_state(tmp_path, impostor.getsockname()[1])
    session = str(stored_session(tmp_path))
    result = nfstune(env, *(word.replace("{session}", session) for word in command))
    assert result.returncode == 2, result.stderr
    said = SAID.replace("nas", "client") if "--no-server-login" in command else SAID
    assert result.stderr.strip().splitlines()[-1] == f"nfstune: error: {said}"
    # no advice about whatever answered there: its host key, sshd, the SSH config
    assert "Traceback" not in result.stderr and "ssh" not in result.stderr.replace("lab ssh", "").lower()
    assert connections(impostor) == 0


def test_the_check_is_by_the_vms_processes_alone(tmp_path: Path) -> None:
    from nfstune.lab import require_running

    cfg = LabConfig(state_dir=tmp_path / "lab", cache_dir=tmp_path / "cache")
    cfg.state_dir.mkdir()
    cfg.pid_file("nas").write_text(f"{os.getpid()}\n")  # alive, but this test, not the lab's qemu
    with pytest.raises(LabError) as info:
        require_running(cfg, ["nas", "client"])
    assert str(info.value) == SAID
    with pytest.raises(LabError, match="the lab's client VM is not running"):
        require_running(cfg, ["client"])


def test_a_lab_vm_is_named_once_with_its_role_user_and_port(tmp_path: Path) -> None:
    """ "lab nas (127.0.0.1:2298) (127.0.0.1, port 2298)" said the host twice."""
    from nfstune.lab import host
    from tests.conftest import free_port

    closed = free_port()
    cfg = LabConfig(state_dir=tmp_path, cache_dir=tmp_path, nas_port=closed)
    with pytest.raises(Unreachable) as info:
        host(cfg, "nas", timeout=2).connect()
    message = str(info.value)
    assert message.startswith(f"lab nas (root@127.0.0.1:{closed}) refused the connection: nothing listens")
    assert message.count("127.0.0.1") == 1
    with pytest.raises(Unreachable) as info:
        host(cfg, "nas", timeout=2, role="server").connect()
    assert str(info.value).startswith(f"server lab nas (root@127.0.0.1:{closed}) refused the connection")
