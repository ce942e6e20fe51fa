"""The log file: paramiko's banner tracebacks (a booting VM, on every retry) go neither to the terminal nor to the
file, while its other errors go to the file; setting up twice is harmless."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.logs import LOG_DIR_ENV, NfstuneFileHandler, log_dir, setup_logging, teardown_logging

BANNER_ERROR = "Error reading SSH protocol banner"
RESET = "Socket exception: Connection reset by peer (104)"

# A host that accepts TCP but does not speak SSH yet, as a booting VM does: paramiko's transport thread logs the
# banner error with a traceback. A subprocess, because pytest's own log capture would hide lastResort's output.
TALK_TO_A_BOOTING_HOST = textwrap.dedent(
    """
    import socket, sys, threading
    import paramiko
    if sys.argv[1] == "setup":
        from nfstune.logs import setup_logging
        setup_logging()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    def answer_garbage():
        conn, _ = server.accept()
        conn.sendall(b"still booting\\r\\n")
        conn.close()
    threading.Thread(target=answer_garbage, daemon=True).start()
    transport = paramiko.Transport(("127.0.0.1", server.getsockname()[1]))
    try:
        transport.start_client(timeout=5)
    except paramiko.SSHException as e:
        print("raised:", e)
    transport.close()
    import logging
    logging.getLogger("paramiko.transport").error("Socket exception: Connection reset by peer (104)")
    """
)


@pytest.fixture
def log_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv(LOG_DIR_ENV, str(tmp_path / "logs"))
    nfstune_level = logging.getLogger("nfstune").level
    yield tmp_path / "logs"
    teardown_logging()
    logging.getLogger("nfstune").setLevel(nfstune_level)


def talk_to_a_booting_host(mode: str, log_directory: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, LOG_DIR_ENV: str(log_directory)}
    return subprocess.run(
        [sys.executable, "-c", TALK_TO_A_BOOTING_HOST, mode], env=env, capture_output=True, text=True, timeout=60
    )


def test_banner_tracebacks_reach_stderr_without_setup(tmp_path: Path) -> None:
    """The problem being fixed, so that the next test cannot pass for the wrong reason."""
    result = talk_to_a_booting_host("none", tmp_path)
    assert f"raised: {BANNER_ERROR}" in result.stdout
    assert BANNER_ERROR in result.stderr and "Traceback" in result.stderr


def test_banner_tracebacks_stay_out_of_the_terminal_and_the_file(tmp_path: Path) -> None:
    result = talk_to_a_booting_host("setup", tmp_path)
    assert f"raised: {BANNER_ERROR}" in result.stdout
    assert result.stderr == ""
    text = (tmp_path / "nfstune.log").read_text()
    assert BANNER_ERROR not in text and "Traceback" not in text and "  File " not in text
    # paramiko's other errors still reach the file
    assert re.search(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ ERROR +paramiko\.transport .*Connection reset", text, re.M)


def test_paramiko_skips_console_handlers(log_in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    console = logging.StreamHandler(sys.stderr)  # what a command line tool might add to the root logger
    logging.getLogger().addHandler(console)
    try:
        path = setup_logging()
        logging.getLogger("paramiko.transport").error(RESET)
        logging.getLogger("paramiko.transport").info("below WARNING: not logged")
        logging.getLogger("nfstune.remote").info("connected to nas")
    finally:
        logging.getLogger().removeHandler(console)
    assert path == log_in_tmp / "nfstune.log"
    text = path.read_text()
    assert RESET in text and "connected to nas" in text and "below WARNING" not in text
    err = capsys.readouterr().err
    assert RESET not in err
    assert "connected to nas" in err  # our own records still reach the root's other handlers


def test_setting_up_twice_adds_no_second_handler(log_in_tmp: Path) -> None:
    first = setup_logging()
    second = setup_logging(logging.DEBUG)
    assert first == second == log_dir() / "nfstune.log"
    assert sum(isinstance(h, NfstuneFileHandler) for h in logging.getLogger().handlers) == 1
    assert sum(isinstance(h, NfstuneFileHandler) for h in logging.getLogger("paramiko").handlers) == 1
    logging.getLogger("nfstune").debug("once")
    assert second.read_text().count("once") == 1
    handler = next(h for h in logging.getLogger().handlers if isinstance(h, NfstuneFileHandler))
    assert (handler.maxBytes, handler.backupCount) == (1_000_000, 3)


def test_teardown_restores_paramiko(log_in_tmp: Path) -> None:
    setup_logging()
    teardown_logging()
    paramiko = logging.getLogger("paramiko")
    assert paramiko.propagate and not paramiko.handlers
    assert not any(isinstance(h, NfstuneFileHandler) for h in logging.getLogger().handlers)


def test_log_dir_default_and_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(LOG_DIR_ENV, raising=False)
    assert log_dir().name in ("nfstune", "log")  # platformdirs: ~/.local/state/nfstune/log on Linux
    assert "nfstune" in str(log_dir())
    monkeypatch.setenv(LOG_DIR_ENV, str(tmp_path))
    assert log_dir() == tmp_path
