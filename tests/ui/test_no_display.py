"""`nfstune` without a display: exit 2 and a message saying what is missing and how to work without a window,
where Qt would abort (exit 134). Checked against real X servers (Xvfb), a display number nothing serves, and a copy
of Qt's xcb plugin whose libraries cannot be found."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.cli import display
from nfstune.cli.display import NoDisplay

DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")


def nfstune(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The command with none of this session's display variables, and its own state folders."""
    base = {k: v for k, v in os.environ.items() if k not in DISPLAY_VARIABLES}
    base |= {f"XDG_{d}_HOME": str(tmp_path / d.lower()) for d in ("CONFIG", "DATA", "STATE", "CACHE")}
    return subprocess.run(
        [sys.executable, "-m", "nfstune", *args], capture_output=True, text=True, env=base | env, timeout=60
    )


def unused_display() -> str:
    """A display number no X server on this computer has (from :987 up)."""
    number = next(n for n in range(987, 1100) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    return f":{number}"


@pytest.mark.parametrize("args", [(), ("gui",), ("lab-window",)])
def test_without_a_display_the_window_is_not_tried_and_the_terminal_commands_are_named(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    result = nfstune(tmp_path, *args)
    assert result.returncode == 2, result.stderr  # Qt's abort was 134
    assert result.stderr.strip().startswith(
        "nfstune: error: the desktop window cannot open here: there is no display: neither DISPLAY nor "
        "WAYLAND_DISPLAY is set"
    )
    assert "nfstune run --server NAS --client CLIENT --share /export --recipe quick-check" in result.stderr
    assert "nfstune --help" in result.stderr
    assert "qt.qpa" not in result.stderr and "xcb-cursor" not in result.stderr  # Qt never started


def test_a_display_nothing_serves_is_named(tmp_path: Path) -> None:
    nowhere = unused_display()
    result = nfstune(tmp_path, DISPLAY=nowhere)
    assert result.returncode == 2, result.stderr
    assert f"no X server runs as display {nowhere} on this computer (DISPLAY={nowhere})" in result.stderr
    assert f"  details: xcb_connect('{nowhere}'): error 1, the connection failed or was closed" in result.stderr
    # Qt's xcb platform asked for by name: the same answer
    assert nfstune(tmp_path, "gui", DISPLAY=nowhere, QT_QPA_PLATFORM="xcb").returncode == 2


def test_qt_platforms_without_a_display_server_are_left_to_qt() -> None:
    display.check({"QT_QPA_PLATFORM": "offscreen"})  # the tests' own platform: no error
    display.check({"QT_QPA_PLATFORM": "vnc:size=800x600"})
    with pytest.raises(NoDisplay) as info:
        display.check({"QT_QPA_PLATFORM": "xcb"})
    assert info.value.reason == "QT_QPA_PLATFORM asks for X (xcb), but DISPLAY is not set"


def test_a_wayland_socket_that_is_not_there(tmp_path: Path) -> None:
    with pytest.raises(NoDisplay) as info:
        display.check({"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": str(tmp_path)})
    assert info.value.reason == f"no Wayland compositor answers at {tmp_path}/wayland-9 (WAYLAND_DISPLAY=wayland-9)"


@pytest.fixture
def xvfb(tmp_path: Path) -> Iterator[str]:
    """A private Xvfb that admits only clients with its cookie; yields ":N" (it picks N itself)."""
    cookies = tmp_path / "Xauthority"
    subprocess.run(["xauth", "-f", str(cookies), "add", ":0", ".", "0" * 32], check=True, capture_output=True)
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-auth", str(cookies), "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()  # written once the server takes connections
    assert number, f"Xvfb did not start (exit {server.poll()})"
    subprocess.run(["xauth", "-f", str(cookies), "add", f":{number}", ".", "0" * 32], check=True, capture_output=True)
    yield f":{number}"
    server.terminate()
    server.wait(timeout=10)


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (make test installs it)")
def test_a_real_x_server_is_taken_and_one_that_refuses_this_user_is_said_so(
    xvfb: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # libxcb reads XAUTHORITY from the process' environment, as Qt's xcb plugin does
    monkeypatch.setenv("XAUTHORITY", str(tmp_path / "Xauthority"))
    display.check({"DISPLAY": xvfb})  # no error: the window can open
    monkeypatch.setenv("XAUTHORITY", str(tmp_path / "no cookies"))
    with pytest.raises(NoDisplay) as info:
        display.check({"DISPLAY": xvfb})
    assert info.value.reason.startswith(f"the X server of display {xvfb} does not let this user in (check XAUTHORITY")


LOAD = """
import sys
from pathlib import Path
from nfstune.cli.display import NoDisplay, load_xcb_plugin
try:
    load_xcb_plugin(Path(sys.argv[1]))
except NoDisplay as exc:
    print(exc.reason, exc.details, sep="\\n")
"""


def test_an_xcb_plugin_whose_libraries_are_missing_is_named_with_them(tmp_path: Path) -> None:
    """A copy of Qt's xcb plugin away from PySide6's folder: its RUNPATH ($ORIGIN/../../lib) finds none of Qt's own
    libraries, as a plugin missing a system library finds none of that one. Loaded in a fresh process: in this one
    an earlier test may have loaded the libraries already, and the loader then takes those."""
    import PySide6

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    copy = tmp_path / "plugins" / "platforms" / "libqxcb.so"
    copy.parent.mkdir(parents=True)
    shutil.copy(plugin, copy)
    assert "libQt6XcbQpa.so.6" in display.missing_libraries(copy)
    said = subprocess.run([sys.executable, "-c", LOAD, str(copy)], capture_output=True, text=True, check=True)
    reason, details = said.stdout.splitlines()
    assert reason.startswith("Qt's xcb platform plugin cannot load: ") and "libQt6XcbQpa.so.6" in reason
    assert reason.endswith("are missing, which PySide6 brings (reinstall nfstune)")
    assert "cannot open shared object file" in details
    said = subprocess.run([sys.executable, "-c", LOAD, str(plugin)], capture_output=True, text=True, check=True)
    assert said.stdout == ""  # PySide6's own loads


def test_system_libraries_are_named_with_their_debian_packages() -> None:
    assert display.missing_text(["libxcb-icccm.so.4", "libxcb-cursor.so.0", "libxkbcommon-x11.so.0"]) == (
        "Qt's xcb platform plugin cannot load: libxcb-icccm.so.4, libxcb-cursor.so.0, libxkbcommon-x11.so.0 are "
        "missing (Debian or Ubuntu: apt install libxcb-icccm4 libxcb-cursor0 libxkbcommon-x11-0)"
    )
    assert display.package_of("libglib-2.0.so.0") == "libglib2.0-0"
    assert display.package_of("libxcb-render-util.so.0") == "libxcb-render-util0"


def test_demo_shows_its_summary_where_no_one_would_see_a_window() -> None:
    assert display.for_demo({}) is not None
    offscreen = display.for_demo({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"})
    assert offscreen is not None and "QT_QPA_PLATFORM is offscreen" in offscreen.reason
