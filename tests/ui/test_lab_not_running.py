"""The desktop's practice lab says of a VM that is not running what `nfstune run --lab` and `nfstune lab ssh` say,
before any connection: a further client (client2) whose qemu has gone, in a lab whose NAS and first client run.
Those two are stand-ins (a process named as qemu, holding the pid file, as vms.vm_pid recognises the lab's own), in
a state folder of the test's: the real lab is not touched, and nothing is booted."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from nfstune.lab import LabConfig
from nfstune.ui.controller import ConnState, Controller, HostSpec
from nfstune.ui.jobs import Prompter
from tests.conftest import free_port


@pytest.fixture
def half_lab(tmp_path: Path) -> Iterator[LabConfig]:
    state = tmp_path / "lab"
    state.mkdir()
    cfg = LabConfig(state_dir=state, cache_dir=tmp_path / "cache", nas_port=free_port(), client_port=free_port())
    stand_ins = []
    for vm in ("nas", "client"):
        argv = ["qemu-system-x86_64", "-c", "import sys; sys.stdin.read()", str(cfg.pid_file(vm))]
        proc = subprocess.Popen(argv, executable=sys.executable, stdin=subprocess.PIPE)
        cfg.pid_file(vm).write_text(f"{proc.pid}\n")
        stand_ins.append(proc)
    yield cfg
    for proc in stand_ins:
        proc.communicate(b"", timeout=10)  # end of stdin: each ends


def test_a_lab_vm_that_is_not_running_is_said_before_any_connection(
    qtbot: QtBot, tmp_path: Path, half_lab: LabConfig
) -> None:
    from nfstune.lab import status

    assert all(st.running for st in status(half_lab))  # the lab looks up: nothing would start it
    with socket.socket() as impostor:
        impostor.bind(("127.0.0.1", half_lab.port("client2")))  # whatever listens where client2 would
        impostor.listen(8)
        impostor.setblocking(False)
        controller = Controller(Prompter(), tmp_path / "s.sqlite3", lab_config=half_lab)
        said: list[tuple[str, ConnState, str]] = []
        controller.host_state.connect(lambda role, state, message: said.append((role, state, message)))
        controller.connect_more([HostSpec("client2", lab_vm="client2")])
        qtbot.waitUntil(lambda: controller.states.get("client2") is ConnState.FAILED, timeout=30_000)
        with pytest.raises(BlockingIOError):
            impostor.accept()  # no connection was made to it
    assert said[-1] == (
        "client2",
        ConnState.FAILED,
        "the lab's client2 VM is not running: start the lab with `nfstune lab up`",
    )
    qtbot.waitUntil(controller.shutdown, timeout=30_000)
