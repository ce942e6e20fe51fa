"""A regression found by a watched run, said on the desktop: a freedesktop notification over the session's D-Bus
(Desktop Notifications Specification, org.freedesktop.Notifications.Notify through `gdbus call`, which GLib ships
on every desktop that shows such notifications). Where that cannot be done (no session bus: the admin is logged
out, a server without a desktop; no gdbus), the message goes to the watch's log and to standard error, which the
service's journal keeps (`journalctl --user -u <watch>.service`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

APP = "nfstune"
ICON = "nfstune"  # the hicolor icon `nfstune desktop-entry --install` puts in place
EXPIRE_MS = -1  # the server's own default
TIMEOUT_S = 10

Runner = Callable[..., subprocess.CompletedProcess[str]]


def gvariant_string(text: str) -> str:
    """A GVariant text-format string literal: quoted, its backslashes and quotes escaped."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def notify_argv(gdbus: str, summary: str, body: str) -> list[str]:
    """`gdbus call` of Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout), each
    argument typed, so that gdbus need not introspect the server to read it."""
    return [
        gdbus,
        "call",
        "--session",
        "--dest",
        "org.freedesktop.Notifications",
        "--object-path",
        "/org/freedesktop/Notifications",
        "--method",
        "org.freedesktop.Notifications.Notify",
        gvariant_string(APP),
        "uint32 0",
        gvariant_string(ICON),
        gvariant_string(summary),
        gvariant_string(body),
        "@as []",
        "@a{sv} {'urgency': <byte 1>}",  # normal: a slower NAS is news, not an emergency
        f"int32 {EXPIRE_MS}",
    ]


def log_message(log: Path, summary: str, body: str) -> None:
    """The fallback: a line in the watch's log and on standard error (the journal, under systemd)."""
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {summary}: {body}"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as out:
        out.write(line + "\n")
    print(f"nfstune: {summary}: {body}", file=sys.stderr)


def notify(
    summary: str,
    body: str,
    log: Path,
    *,
    environ: Mapping[str, str] = os.environ,
    run: Runner = subprocess.run,
) -> str:
    """Raises the notification, else logs it; 'desktop', or 'logged: ' and why."""
    gdbus = shutil.which("gdbus", path=environ.get("PATH"))
    if gdbus is None:
        why = "gdbus is not installed"
    elif (
        not environ.get("DBUS_SESSION_BUS_ADDRESS")
        and not Path(environ.get("XDG_RUNTIME_DIR", "/nonexistent"), "bus").exists()
    ):
        why = "no session bus: nobody is logged in to a desktop"
    else:
        try:
            done = run(
                notify_argv(gdbus, summary, body),
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                check=False,
                env=dict(environ),
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"gdbus: {exc}"
        else:
            if done.returncode == 0:
                return "desktop"
            why = f"gdbus exited {done.returncode}: {' '.join(done.stderr.split())}"
    log_message(log, summary, body)
    return f"logged: {why}"
