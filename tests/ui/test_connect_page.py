"""The connect page before and without SSH: what it refuses to start and says, a port that cannot be read. Its
connections to a real sshd on loopback need root: tests/root/test_connect_page.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from nfstune.ui.controller import ConnState, Controller, HostSpec
from nfstune.ui.jobs import Prompter
from nfstune.ui.pages.connect import ConnectPage


@pytest.fixture
def page(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ConnectPage:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # nfstune's own known_hosts starts empty
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # and so does ~/.ssh
    prompter = Prompter()
    controller = Controller(prompter, tmp_path / "s.sqlite3")
    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    widget = ConnectPage(controller, settings)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def test_a_missing_host_name_is_said_and_nothing_starts(qtbot: QtBot, page: ConnectPage) -> None:
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    assert "Enter the server and the client host first" in page.error.text()
    assert page.controller.states == {"server": ConnState.IDLE, "client": ConnState.IDLE}


def test_this_computer_as_the_server_asks_for_its_address_before_connecting(qtbot: QtBot, page: ConnectPage) -> None:
    # a recent pair can name this computer as the server; "this computer" is no address a client can mount from
    page.panels["server"].fill({"local": True})
    page.panels["client"].fill({"local": True})
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    assert "This computer as the NFS server: enter its name or IP address" in page.error.text()
    assert "Address seen by the client" in page.error.text()
    assert page.controller.states == {"server": ConnState.IDLE, "client": ConnState.IDLE}  # nothing started
    page._connect("server")  # the Retry path says it too
    assert page.controller.states["server"] is ConnState.IDLE and "This computer" in page.error.text()


@pytest.mark.parametrize("address", ["x y", "[nas]", "nas:/export"])
def test_an_address_the_client_cannot_mount_from_is_said_before_connecting(
    qtbot: QtBot, page: ConnectPage, address: str
) -> None:
    for role in ("server", "client"):
        page.panels[role].target.setText("nas.invalid")  # text only: nothing is contacted
    page.panels["server"].address.setText(address)
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    assert page.error.text().startswith(f"Address seen by the client: {address!r} is not")
    assert page.controller.states == {"server": ConnState.IDLE, "client": ConnState.IDLE}


def test_the_controller_refuses_this_computer_as_a_server_without_an_address(qtbot: QtBot, page: ConnectPage) -> None:
    page.controller.connect_host("server", HostSpec("this computer", local=True))
    assert page.controller.states["server"] is ConnState.FAILED
    assert "needs the address the client uses" in page.panels["server"].state.text()
    assert "server" not in page.controller.hosts


def test_a_port_int_cannot_read_is_a_failure_with_the_reason_not_a_crash(qtbot: QtBot, page: ConnectPage) -> None:
    crashes: list[str] = []
    page.controller.crashed.connect(crashes.append)
    page.panels["server"].target.setText("nas.invalid:\u00b2")  # "²".isdigit() holds, but int() refuses it
    page._connect("server")  # said on the page, as ssh's other refusals are (the controller's own: below)
    assert page.controller.states["server"] is ConnState.IDLE and crashes == []
    assert "Server host: 'nas.invalid:\u00b2': the port after ':' must be a number from 1 to 65535" in page.error.text()


def test_a_connecting_host_says_so_once(page: ConnectPage) -> None:
    page.panels["server"].show_state(ConnState.CONNECTING, "connecting to nas")
    assert page.panels["server"].state.text() == "connecting to nas"
    page.panels["server"].show_state(ConnState.FAILED, "nas: connection refused")
    assert page.panels["server"].state.text() == "failed: nas: connection refused"


def test_the_practice_lab_is_a_recent_pair_and_stays_one_entry(page: ConnectPage, tmp_path: Path) -> None:
    page._remember_lab()
    page._remember_lab()
    assert [page.recent.itemText(i) for i in range(page.recent.count())] == ["the practice lab (nas → client)"]
    again = ConnectPage(page.controller, page.settings)  # the next start of nfstune reads it back
    assert again.recent.itemText(0) == "the practice lab (nas → client)"


@pytest.mark.parametrize(
    ("more", "message"),
    [
        ("pc2.invalid, pc3.invalid, pc4.invalid, pc5.invalid", "Further clients: at most 3"),
        ("pc2.invalid, pc2.invalid", "Further clients: pc2.invalid is given twice"),
        ("client.invalid", "Further clients: client.invalid is given twice"),
    ],
)
def test_a_list_of_further_clients_is_checked_before_anything_starts(
    qtbot: QtBot, page: ConnectPage, more: str, message: str
) -> None:
    page.panels["server"].target.setText("nas.invalid")
    page.panels["client"].target.setText("client.invalid")
    page.more.setText(more)
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    assert page.error.text().startswith(message)
    assert page.controller.states == {"server": ConnState.IDLE, "client": ConnState.IDLE}


def test_each_further_client_shows_its_own_state_and_a_pair_leaves_out_those_not_connected(
    qtbot: QtBot, page: ConnectPage
) -> None:
    c = page.controller
    c.connect_more([HostSpec("pc2.invalid:\u00b2"), HostSpec("pc3.invalid:\u00b3")])  # ports int() refuses
    assert c.more_roles() == ["client2", "client3"]
    qtbot.waitUntil(lambda: all(c.states[r] is ConnState.FAILED for r in ("client2", "client3")), timeout=10_000)
    lines = page.more_state.text().split("<br>")
    assert lines[0].startswith("client2: pc2.invalid:\u00b2: ") and "failed: " in lines[0] and "port" in lines[0]
    assert lines[1].startswith("client3: pc3.invalid:\u00b3: ")
    # a shorter list lets the others go
    c.connect_more([HostSpec("pc2.invalid:\u00b2")])
    assert c.more_roles() == ["client2"] and "client3" not in c.states
    qtbot.waitUntil(lambda: c.states["client2"] is ConnState.FAILED, timeout=10_000)
    assert page.more_state.text().count("<br>") == 0


def test_the_further_clients_are_remembered_with_the_pair(page: ConnectPage) -> None:
    page.panels["server"].target.setText("nas.invalid")
    page.panels["client"].target.setText("client.invalid")
    page.more.setText("pc2.invalid, pc3.invalid")
    page._remember()
    again = ConnectPage(page.controller, page.settings)
    assert again.recent.itemText(0) == "nas.invalid → client.invalid, pc2.invalid, pc3.invalid"
    again._on_recent_activated(0)
    assert again.more.text() == "pc2.invalid, pc3.invalid"


def test_a_nas_without_login_is_named_by_its_address_and_ready_without_ssh(qtbot: QtBot, page: ConnectPage) -> None:
    server = page.panels["server"]
    server.no_login.setChecked(True)
    assert not any(field.isEnabled() for field in (server.user, server.port, server.key, server.address))
    assert "as the client reaches it" in server.target.placeholderText()
    server.target.setText("admin@nas:2222")  # an ssh destination is no address to mount from
    page._connect("server")
    assert page.error.text().startswith("NFS server: ") and page.controller.states["server"] is ConnState.IDLE
    server.target.setText("127.0.0.1")
    page._connect("server")
    # nothing to log in to: ready at once, with no host and the address the client mounts it by
    assert page.controller.states["server"] is ConnState.CONNECTED
    assert "server" not in page.controller.hosts and page.controller.server_address == "127.0.0.1"
    assert server.state.text() == "connected: 127.0.0.1 (no login): tested from the client alone"
    assert page.controller.server_label() == "127.0.0.1 (no login)"
    page._remember()
    recent = page._recent()[0]
    assert recent["server"]["no_login"] is True and recent["server"]["target"] == "127.0.0.1"
    server.no_login.setChecked(False)
    server.fill(recent["server"])  # a recent pair brings the box back ticked
    assert server.no_login.isChecked() and not server.user.isEnabled()


# --- names nobody checked (issue 37): said on the page before anything runs, never a crash -------------------------


@pytest.mark.parametrize(
    ("role", "field", "value", "message"),
    [
        ("server", "target", "nas\0x", "Server host: 'nas\\x00x': a host name cannot contain an unprintable character"),
        ("client", "target", "$(touch${IFS}/tmp/nfstune-never)", "a host name cannot contain '$'"),
        ("server", "target", "`id`@nas", "Server host: '`id`@nas': a user name cannot contain '`'"),
        ("server", "user", "ad\0min", "Server user: a user name cannot contain an unprintable character (U+0000)"),
        ("client", "user", "-oProxyCommand=id", "Client user: a user name cannot begin with '-'"),
        ("client", "user", "a;b", "Client user: a user name cannot contain ';'"),
        ("server", "key", "/tmp/k\0ey", "Server key file: a file name cannot contain an unprintable character"),
    ],
)
def test_a_hostile_host_user_or_key_is_said_on_the_page_and_nothing_starts(
    qtbot: QtBot, page: ConnectPage, role: str, field: str, value: str, message: str
) -> None:
    crashes: list[str] = []
    page.controller.crashed.connect(crashes.append)
    for r in ("server", "client"):
        page.panels[r].target.setText(f"{r}.invalid")  # text only: nothing is contacted
    getattr(page.panels[role], field).setText(value)
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    assert message in page.error.text()
    assert page.controller.states == {"server": ConnState.IDLE, "client": ConnState.IDLE} and crashes == []
    page._connect(role)  # the Retry path checks the same
    assert page.controller.states[role] is ConnState.IDLE and message in page.error.text()


def test_a_hostile_further_client_is_said_before_anything_starts(qtbot: QtBot, page: ConnectPage) -> None:
    page.panels["server"].target.setText("nas.invalid")
    page.panels["client"].target.setText("client.invalid")
    page.more.setText("pc2.invalid, pc3;id")
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    assert page.error.text() == "Further clients: 'pc3;id': a host name cannot contain ';'"
    assert page.controller.states == {"server": ConnState.IDLE, "client": ConnState.IDLE}


# --- issue 39: where nfstune goes, said before it goes; a pair remembered once it connected -----------------------

SSH_CONFIG = (
    "Host nas\n  HostName 127.0.0.1\n  Port 2299\n  User admin\n  ProxyJump jumper@127.0.0.2:2022\n"
    "Host *\n  IdentitiesOnly yes\n"
)


@pytest.mark.parametrize("reader", ["ssh -G", "paramiko"])
def test_where_nfstune_will_log_in_is_shown_before_it_connects(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    from nfstune.remote import openssh_config

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    config = home / ".ssh" / "config"
    config.parent.mkdir(parents=True)
    config.write_text(SSH_CONFIG)
    if reader == "ssh -G":
        if openssh_config.ssh_binary() is None:
            pytest.skip("the ssh client is not installed")
        given = config  # ssh reads the passwd entry's home, not $HOME: the same file, named as `ssh -F` does
    else:
        monkeypatch.setattr(openssh_config, "SSH", str(tmp_path / "no-ssh-here"))  # paramiko reads ~/.ssh/config
        given = None
    controller = Controller(Prompter(), tmp_path / "s.sqlite3", ssh_config=given)
    page = ConnectPage(controller, QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(page)
    page.show()
    server = page.panels["server"]
    assert not server.goes_to.isVisibleTo(page)  # nothing typed: no blank "Goes to:" row
    server.target.setText("nas")
    assert "127.0.0.1" not in server.goes_to.text()  # not looked up on the GUI thread, at each key typed
    expected = "admin@127.0.0.1:2299 via the jump host jumper@127.0.0.2:2022"

    def shown() -> str:  # the label's lines, as one
        return " ".join(server.goes_to.text().split())

    qtbot.waitUntil(lambda: shown().startswith(expected), timeout=10_000)
    assert server.goes_to.isVisibleTo(page)
    assert ("by ssh -G" in server.goes_to.text()) is (reader == "ssh -G")
    assert controller.states == {"server": ConnState.IDLE, "client": ConnState.IDLE}  # nothing was contacted
    server.port.setValue(2022)  # typed here, it wins over the config's Port
    qtbot.waitUntil(lambda: shown().startswith("admin@127.0.0.1:2022 via"), timeout=10_000)
    server.user.setText("x;y")  # what ssh would refuse is said there too
    qtbot.waitUntil(lambda: "a user name cannot contain ';'" in server.goes_to.text(), timeout=10_000)


def test_a_pair_that_failed_is_not_remembered(qtbot: QtBot, page: ConnectPage) -> None:
    from tests.conftest import free_port

    closed = free_port()  # nothing listens there: both fail at once, on loopback
    for role in ("server", "client"):
        page.panels[role].target.setText(f"root@127.0.0.1:{closed}")
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    states = page.controller.states
    qtbot.waitUntil(lambda: ConnState.CONNECTING not in states.values(), timeout=30_000)
    assert states == {"server": ConnState.FAILED, "client": ConnState.FAILED}
    assert page.recent.count() == 0 and page._recent() == []


def test_the_host_key_fingerprint_is_shown_whole_on_one_line(qtbot: QtBot) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QFontInfo
    from PySide6.QtWidgets import QApplication, QLabel

    fingerprint = "SHA256:q3/dJ+v9b/1l1X0o/gkS3yNcT+Zk2m/e3Dq7g1hZ/aE"  # '/' is where a wrapped label breaks
    seen: list[tuple[str, bool, bool, bool]] = []

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        assert dialog is not None
        for label in dialog.findChildren(QLabel):
            if fingerprint in label.text():
                fits = label.fontMetrics().horizontalAdvance(fingerprint) <= label.contentsRect().width()
                seen.append((label.text(), label.wordWrap(), QFontInfo(label.font()).fixedPitch(), fits))
        dialog.close()

    QTimer.singleShot(0, look)
    assert Prompter().answer_host_key("nas (10.0.0.5)", "ssh-ed25519", fingerprint) is False  # closed: not trusted
    assert seen == [(fingerprint, False, True, True)]  # a line of its own, monospace, never wrapped, not cut
