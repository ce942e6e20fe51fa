"""`nfstune watch --status` and what the service runs after each first look (--notify): the watches, their last
run and an open regression read from a real store; a regression told once, on the desktop over a real session bus
(a stand-in notification server) or, without one, in the watch's log and on standard error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.cli import watch
from nfstune.cli.watch_notify import gvariant_string, notify, notify_argv
from nfstune.cli.watch_units import Watch
from nfstune.results.trend import day_text
from nfstune.store import Results, open_store
from tests.unit.trend_sessions import CLIENT_KEY, NAS_KEY, use_clock
from tests.unit.watch_sessions import store_watch_series

SERVER = Path(__file__).parent / "notification_server.py"
LAB = Watch("weekly", ("--lab",), "the practice lab: /export", NAS_KEY, CLIENT_KEY, "/export")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config home with the lab's watch, and the state folder (the watch's log) under the test's own."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    config = tmp_path / "config"
    watch.install(config, Path("/usr/bin/nfstune"), LAB, None, lambda _line: None)
    return config


def stored(path: Path, monkeypatch: pytest.MonkeyPatch, slower_from: int | None) -> list[int]:
    conn = open_store(path)
    try:
        return store_watch_series(Results(conn), use_clock(monkeypatch), slower_from)
    finally:
        conn.close()


def test_status_lists_the_watch_its_last_run_and_the_open_regression(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite3"
    assert watch.status_lines(home, store) == [
        "nfstune-watch-lab: a first look at the practice lab: /export, weekly",
        "    last run: none yet",
    ]
    ids = stored(store, monkeypatch, slower_from=4)
    lines = watch.status_lines(home, store)
    conn = open_store(store)
    last = conn.execute("SELECT started_at FROM sessions WHERE id = ?", (ids[-1],)).fetchone()[0]
    conn.close()
    assert lines[1] == f"    last run: session {ids[-1]}, {day_text(last)} (completed)"
    regression = lines[2]
    assert regression.startswith(f"    open regression: From session {ids[3]} (")
    assert "seq-read 47 % slower" in regression  # 19.2 MB/s to 10.2
    assert "likely cause: the network measured 7.1x slower (client to server)" in regression


def test_status_without_a_regression_says_so(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored(tmp_path / "s.sqlite3", monkeypatch, slower_from=None)
    assert watch.status_lines(home, tmp_path / "s.sqlite3")[2] == "    no open regression"


def test_status_without_a_watch(tmp_path: Path) -> None:
    assert watch.status_lines(tmp_path)[0].startswith("No watch installed.")


def test_a_regression_is_told_once_and_logged_without_a_session_bus(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.sqlite3"
    ids = stored(store, monkeypatch, slower_from=4)
    # the service's environment when nobody is logged in to a desktop: no session bus to reach
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "no-runtime"))
    said: list[str] = []
    how = watch.notify_command(home, LAB.name, said.append, store)
    assert how is not None and how == "logged: no session bus: nobody is logged in to a desktop"
    log = watch.watch_log(LAB.name).read_text()
    assert f"the practice lab: /export got slower: From session {ids[3]} (" in log
    assert "likely cause: the network measured" in capsys.readouterr().err  # the journal's copy
    # the next watched run finds the same regression: not told again
    assert watch.notify_command(home, LAB.name, said.append, store) is None
    assert said[-1] == f"{LAB.name}: the regression from session {ids[3]} was told already"
    assert watch.watch_log(LAB.name).read_text() == log


def test_the_notify_call_is_typed_and_quoted_for_gdbus() -> None:
    argv = notify_argv("gdbus", "nas got slower", "it's 47 % slower \\ now")
    assert argv[:9] == [
        "gdbus",
        "call",
        "--session",
        "--dest",
        "org.freedesktop.Notifications",
        "--object-path",
        "/org/freedesktop/Notifications",
        "--method",
        "org.freedesktop.Notifications.Notify",
    ]
    assert argv[9:] == [
        "'nfstune'",
        "uint32 0",
        "'nfstune'",
        "'nas got slower'",
        "'it\\'s 47 % slower \\\\ now'",
        "@as []",
        "@a{sv} {'urgency': <byte 1>}",
        "int32 -1",
    ]
    assert gvariant_string("") == "''"


@pytest.fixture
def session_bus(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A private session bus (dbus-daemon) with a stand-in notification server on it; the environment to reach
    it. Ended by their own process ids."""
    if not (shutil.which("dbus-daemon") and shutil.which("gdbus")):
        pytest.skip("dbus-daemon or gdbus is not installed")
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1", f"--address=unix:dir={tmp_path}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert daemon.stdout is not None
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=daemon.stdout.readline().strip(), QT_QPA_PLATFORM="offscreen")
    calls = tmp_path / "calls.jsonl"
    server = subprocess.Popen([sys.executable, str(SERVER), str(calls)], stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        yield env | {"CALLS": str(calls)}
    finally:
        for process in (server, daemon):
            process.terminate()
            process.wait(timeout=10)
            if process.stdout is not None:
                process.stdout.close()


def test_a_regression_raises_a_desktop_notification_over_the_session_bus(
    session_bus: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "watch.log"
    assert notify("nas got slower", "From session 4: seq-read 47 % slower", log, environ=session_bus) == "desktop"
    (call,) = [json.loads(line) for line in Path(session_bus["CALLS"]).read_text().splitlines()]
    assert call == [
        "nfstune",
        0,
        "nfstune",
        "nas got slower",
        "From session 4: seq-read 47 % slower",
        [],
        {"urgency": 1},
        -1,
    ]
    assert not log.exists()  # told on the desktop: nothing for the log


def test_a_bus_without_a_notification_server_falls_back_to_the_log(
    session_bus: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = dict(session_bus)
    bare["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={tmp_path / 'nothing-listens-here'}"
    log = tmp_path / "watch.log"
    how = notify("nas got slower", "From session 4", log, environ=bare)
    assert how.startswith("logged: gdbus exited ")
    assert log.read_text().endswith(" nas got slower: From session 4\n")
    assert "nfstune: nas got slower: From session 4" in capsys.readouterr().err
