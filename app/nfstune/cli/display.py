"""Whether the desktop window can open here, found out before Qt is loaded.

Without a display Qt's platform plugin calls qFatal, which aborts the process: exit 134 and a hint about
libxcb-cursor0 whatever is actually missing. So `nfstune` and `nfstune gui` ask first, without Qt: the environment
(QT_QPA_PLATFORM, DISPLAY, WAYLAND_DISPLAY), a connection to the X server (libxcb through ctypes: what Qt's xcb
plugin itself opens), the Wayland socket, and the xcb plugin's own libraries. What is missing is said in a sentence
with how to run without a window instead (`nfstune run`).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import socket
import subprocess
from collections.abc import Mapping
from pathlib import Path

from nfstune.errors import NfstuneError

# Qt platforms that need no display server: Qt opens them anywhere (the tests use offscreen)
NO_SERVER_PLATFORMS = {"offscreen", "minimal", "minimalegl", "vnc", "linuxfb", "eglfs", "vkkhrdisplay"}
XCB_ERRORS = {
    1: "the connection failed or was closed",
    2: "an extension is not supported",
    3: "out of memory",
    4: "a request was too long",
    5: "the display name could not be parsed",
    6: "no such screen",
    7: "file descriptor passing failed",
}
# Debian's package for a library whose name the usual rule (libfoo-bar.so.N -> libfoo-barN) does not give
PACKAGES = {"libglib-2.0.so.0": "libglib2.0-0", "libEGL.so.1": "libegl1", "libGL.so.1": "libgl1"}
LOCAL_DISPLAY = re.compile(r"(?:unix)?:(\d+)(?:\.\d+)?")


class NoDisplay(NfstuneError):
    def __init__(self, reason: str, details: str = "") -> None:
        self.reason, self.details = reason, details
        super().__init__(
            f"the desktop window cannot open here: {reason}.\n"
            "  Start nfstune in a graphical session (or over `ssh -X`), or use it from this terminal:\n"
            "    nfstune run --server NAS --client CLIENT --share /export --recipe quick-check\n"
            "    nfstune run --lab --recipe quick-check   (on the practice lab: nfstune lab up)\n"
            "    nfstune --help                           (every command: run, recipes, history, report, ...)"
        )


def for_demo(environ: Mapping[str, str] | None = None) -> NoDisplay | None:
    """Why `nfstune demo` shows its summary rather than the window: also Qt's offscreen platforms (the tests'),
    where nobody would see it."""
    env = os.environ if environ is None else environ
    if env.get("QT_QPA_PLATFORM", "").split(":")[0] in ("offscreen", "minimal"):
        return NoDisplay(f"QT_QPA_PLATFORM is {env['QT_QPA_PLATFORM']}, which shows nothing")
    try:
        check(env)
    except NoDisplay as problem:
        return problem
    return None


def check(environ: Mapping[str, str] | None = None) -> None:
    """Raise NoDisplay when no window can open; return when Qt can open one."""
    env = os.environ if environ is None else environ
    requested = [p.split(":")[0].strip() for p in env.get("QT_QPA_PLATFORM", "").split(";") if p.strip()]
    requested = _known_platforms(env, requested)
    if any(p in NO_SERVER_PLATFORMS for p in requested):
        return
    if not requested:  # Qt's own choice: Wayland in a Wayland session, else X (XWayland in most Wayland sessions)
        if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
            raise NoDisplay(
                "there is no display: neither DISPLAY nor WAYLAND_DISPLAY is set (a text console, or ssh without -X)"
            )
        requested = [p for p, v in (("wayland", "WAYLAND_DISPLAY"), ("xcb", "DISPLAY")) if env.get(v)]
    found: list[NoDisplay] = []
    for platform in requested:  # Qt tries them in turn: one that opens is enough
        try:
            if platform == "xcb":
                _xcb(env)
            else:
                _wayland(env, platform)
        except NoDisplay as problem:
            found.append(problem)
        else:
            return
    if len(found) == 1:
        raise found[0]
    raise NoDisplay("; and ".join(p.reason for p in found), "; ".join(p.details for p in found if p.details))


def platforms(environ: Mapping[str, str] | None = None) -> list[str] | None:
    """The platforms Qt can load here, by their plugins' file names (libqxcb.so: xcb): PySide6's own and those in
    the folders QT_QPA_PLATFORM_PLUGIN_PATH and QT_PLUGIN_PATH add; None when PySide6's folder is not found."""
    env = os.environ if environ is None else environ
    spec = importlib.util.find_spec("PySide6")  # finds it without importing Qt
    if spec is None or not spec.submodule_search_locations:
        return None
    folders = [Path(spec.submodule_search_locations[0]) / "Qt" / "plugins" / "platforms"]
    folders += [Path(p) for p in env.get("QT_QPA_PLATFORM_PLUGIN_PATH", "").split(os.pathsep) if p]
    folders += [Path(p) / "platforms" for p in env.get("QT_PLUGIN_PATH", "").split(os.pathsep) if p]
    found = set()
    for folder in folders:
        try:
            found |= {m.group(1) for f in folder.iterdir() if (m := re.fullmatch(r"libq(.+)\.so", f.name))}
        except OSError:
            continue
    return sorted(found)


def _known_platforms(env: Mapping[str, str], requested: list[str]) -> list[str]:
    """The platforms of QT_QPA_PLATFORM that Qt has a plugin for (wayland-egl is the wayland plugin's): Qt aborts
    the process when it has none of them, so NoDisplay says the variable and the platforms there are instead."""
    have = platforms(env)
    if not requested or have is None:
        return requested
    known = [p for p in requested if any(p == h or p.startswith(f"{h}-") for h in have)]
    if not known:
        value = env.get("QT_QPA_PLATFORM", "")
        raise NoDisplay(
            f"QT_QPA_PLATFORM is {value!r}, and Qt has no platform of that name (it has {', '.join(have)}): unset "
            "QT_QPA_PLATFORM to let Qt choose, or set it to one of those"
        )
    return known


def _wayland(env: Mapping[str, str], platform: str) -> None:
    if not platform.startswith("wayland"):  # a platform nfstune knows nothing of: Qt says itself what it lacks
        return
    name = env.get("WAYLAND_DISPLAY") or "wayland-0"
    runtime = env.get("XDG_RUNTIME_DIR")
    if not name.startswith("/") and not runtime:
        raise NoDisplay(f"WAYLAND_DISPLAY is {name}, but XDG_RUNTIME_DIR, where its socket would be, is not set")
    path = name if name.startswith("/") else os.path.join(runtime or "", name)
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.connect(path)
        except OSError as exc:
            raise NoDisplay(f"no Wayland compositor answers at {path} (WAYLAND_DISPLAY={name})", str(exc)) from None


def _xcb(env: Mapping[str, str]) -> None:
    display = env.get("DISPLAY", "")
    if not display:
        raise NoDisplay("QT_QPA_PLATFORM asks for X (xcb), but DISPLAY is not set")
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError as exc:
        raise NoDisplay(
            "the X client library libxcb.so.1 is missing (Debian or Ubuntu: apt install libxcb1)", str(exc)
        ) from None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(display.encode(), None)  # never NULL: an error is a connection in error
    try:
        error = xcb.xcb_connection_has_error(connection)
    finally:
        xcb.xcb_disconnect(connection)
    if error:
        raise NoDisplay(_x_refused(display), f"xcb_connect({display!r}): error {error}, {XCB_ERRORS.get(error, '')}")
    load_xcb_plugin()


def _x_refused(display: str) -> str:
    local = LOCAL_DISPLAY.fullmatch(display)
    if local is None:
        return (
            f"no X server answered at DISPLAY={display} (over ssh -X: is X11Forwarding on, and xauth installed on "
            "that host?)"
        )
    socket_file = Path(f"/tmp/.X11-unix/X{local.group(1)}")
    if not socket_file.exists():
        return f"no X server runs as display {display} on this computer (DISPLAY={display})"
    return (
        f"the X server of display {display} does not let this user in (check XAUTHORITY, or xhost, when nfstune "
        "runs as another user or through sudo)"
    )


def load_xcb_plugin(plugin: Path | None = None) -> None:
    """Load Qt's xcb plugin (PySide6's, by default), or raise NoDisplay naming the libraries it lacks: what qFatal
    aborts on, with a hint that blames libxcb-cursor0 whichever is missing."""
    if plugin is None:
        spec = importlib.util.find_spec("PySide6")  # finds it without importing Qt
        if spec is None or not spec.submodule_search_locations:
            return
        plugin = Path(spec.submodule_search_locations[0]) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        return
    try:
        # Qt loads this very file when the window opens: loaded now, it costs nothing more then
        ctypes.CDLL(str(plugin), mode=os.RTLD_LAZY)
    except OSError as exc:
        missing = missing_libraries(plugin) or [str(exc).split(":")[0]]
        raise NoDisplay(missing_text(missing), str(exc)) from None


def missing_libraries(binary: Path) -> list[str]:
    """The shared libraries `binary` needs that the loader cannot find, as ldd lists them (all, not the first)."""
    try:
        listed = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.split()[0] for line in listed.splitlines() if line.strip().endswith("=> not found")]


def package_of(library: str) -> str:
    """Debian's package for a shared library, by the naming policy: libxcb-icccm.so.4 -> libxcb-icccm4,
    libxkbcommon-x11.so.0 -> libxkbcommon-x11-0."""
    if library in PACKAGES:
        return PACKAGES[library]
    m = re.fullmatch(r"(lib.+)\.so\.(\d+)", library)
    if m is None:
        return library
    name, version = m.group(1).lower(), m.group(2)
    return f"{name}-{version}" if name[-1].isdigit() else f"{name}{version}"


def missing_text(missing: list[str]) -> str:
    listed = ", ".join(missing)
    own = [m for m in missing if m.startswith("libQt6") or m.startswith("libpyside6") or m.startswith("libshiboken6")]
    if own:
        verb = "is" if len(missing) == 1 else "are"
        return (
            f"Qt's xcb platform plugin cannot load: {listed} {verb} missing, which PySide6 brings (reinstall nfstune)"
        )
    packages = " ".join(dict.fromkeys(package_of(m) for m in missing))
    return (
        f"Qt's xcb platform plugin cannot load: {listed} {'is' if len(missing) == 1 else 'are'} missing "
        f"(Debian or Ubuntu: apt install {packages})"
    )
