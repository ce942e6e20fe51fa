"""The child process of the tests of a host name that does not resolve (test_connect_errors.py and
test_connect_page.py): it runs where this computer's resolver asks no DNS server (see `files_only_hosts` in
tests/root/conftest.py), connects the way nfstune does, and prints what nfstune said as one JSON line.

    python -m tests.root.unresolvable_child connect FOLDER   # Host.connect: a name, and an alias of the SSH config
    python -m tests.root.unresolvable_child page FOLDER      # the Connect page's server panel (Qt offscreen)

A name lookup in the test process itself would go to the nameserver in /etc/resolv.conf, off this computer: the
project's tests send traffic only to loopback and to their own test hosts. So this child refuses to run unless
/etc/nsswitch.conf has `hosts: files` alone: glibc then answers from /etc/hosts, and a name not there is
EAI_NONAME, as DNS answers a name under .invalid (RFC 6761)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from nfstune.errors import NfstuneError
from nfstune.remote import Host, resolve

NSSWITCH = Path("/etc/nsswitch.conf")


def hosts_sources() -> list[str]:
    """The sources of the `hosts:` line of /etc/nsswitch.conf, as glibc reads them."""
    for line in NSSWITCH.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words and words[0] == "hosts:":
            return words[1:]
    return []  # no hosts line: glibc's default, which asks DNS first


def connect(folder: Path) -> list[dict[str, Any]]:
    """What Host.connect says of a name that does not resolve, and of an alias whose HostName does not."""
    config = folder / "ssh_config"
    config.write_text("Host nas\n  HostName nas.nonexistent.invalid\n")
    found: list[dict[str, Any]] = []
    for target in (resolve("nonexistent.invalid"), resolve("nas", ssh_config=config)):
        try:
            Host(target, known_hosts=folder / "kh", connect_timeout=1.0).connect()
        except NfstuneError as exc:
            found.append({"type": type(exc).__name__, "message": str(exc), "details": exc.details})
        else:
            found.append({"type": None})
    return found


def page(folder: Path) -> dict[str, Any]:
    """The Connect page with nonexistent.invalid as the server: its panel's words, and its Details once opened."""
    os.environ["XDG_DATA_HOME"] = str(folder / "data")  # nfstune's own known_hosts starts empty
    os.environ["HOME"] = str(folder / "home")  # and so does ~/.ssh
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from nfstune.ui.controller import ConnState, Controller
    from nfstune.ui.jobs import Prompter
    from nfstune.ui.pages.connect import ConnectPage

    app = QApplication([sys.argv[0]])
    controller = Controller(Prompter(), folder / "s.sqlite3")
    widget = ConnectPage(controller, QSettings(str(folder / "nfstune.ini"), QSettings.Format.IniFormat))
    widget.show()
    server = widget.panels["server"]
    server.target.setText("nonexistent.invalid")  # .invalid never resolves (RFC 6761)
    widget._connect("server")
    deadline = time.monotonic() + 30
    while controller.states["server"] in (ConnState.IDLE, ConnState.CONNECTING):
        if time.monotonic() > deadline:
            raise SystemExit("the server's panel still says connecting after 30 s")
        QTest.qWait(10)
    app.processEvents()
    found: dict[str, Any] = {
        "state": controller.states["server"].name,
        "text": server.state.text(),
        "details_button": server.details_button.isVisible(),
        "details_shown": server.details.isVisible(),
    }
    QTest.mouseClick(server.details_button, Qt.MouseButton.LeftButton)
    found |= {"details_shown_on_click": server.details.isVisible(), "details": server.details.text()}
    deadline = time.monotonic() + 60
    while not controller.shutdown():
        if time.monotonic() > deadline:
            raise SystemExit("the controller did not shut down within 60 s")
        QTest.qWait(10)
    widget.close()
    return found


def main(what: str, folder: Path) -> None:
    sources = hosts_sources()
    if sources != ["files"]:
        raise SystemExit(
            f"refusing to look up names: {NSSWITCH} says `hosts: {' '.join(sources)}`, not `files` alone, so a "
            "name that is not in /etc/hosts would be sent to a DNS server. Run this through files_only_hosts "
            "(tests/root/conftest.py)."
        )
    found = connect(folder) if what == "connect" else page(folder)
    print(json.dumps(found), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
