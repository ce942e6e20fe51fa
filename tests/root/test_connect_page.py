"""The connect page against a real sshd on loopback (as root): the host-key prompt with its SHA256 fingerprint
(asked on the GUI thread for the worker), a state per host, a failure that names the host with a Retry (a name that
does not resolve: in a child process whose resolver asks no DNS server); and this computer as the client, whose sudo
is root's own."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from nfstune.ui.controller import ConnState
from nfstune.ui.pages.connect import ConnectPage
from tests.conftest import free_port
from tests.root.conftest import RunFilesOnly, Sshd, keygen
from tests.ui import test_connect_page

page = test_connect_page.page  # the fixture: the page, its controller and settings in tmp_path


def fill(page: ConnectPage, role: str, sshd: Sshd, port: int | None = None) -> None:
    panel = page.panels[role]
    panel.target.setText("127.0.0.1")
    panel.user.setText("root")
    panel.port.setValue(port or sshd.port)
    panel.key.setText(str(sshd.client_key))


def test_unknown_host_key_is_asked_on_the_gui_thread_and_remembered(
    qtbot: QtBot, page: ConnectPage, sshd: Sshd, tmp_path: Path
) -> None:
    asked: list[tuple[str, str, str]] = []

    def answer(label: str, key_type: str, fingerprint: str) -> bool:
        asked.append((label, key_type, fingerprint))
        return True

    page.controller.prompter.answer_host_key = answer
    for role in ("server", "client"):
        fill(page, role, sshd)
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(page.is_complete, timeout=30_000)
    assert asked and asked[0][1] == "ssh-ed25519" and asked[0][2].startswith("SHA256:")
    assert "127.0.0.1" in asked[0][0]
    assert page.panels["server"].state.text().startswith("connected: ")
    known = (tmp_path / "data" / "nfstune" / "known_hosts").read_text()
    assert f"[127.0.0.1]:{sshd.port} ssh-ed25519 " in known
    assert page.recent.count() == 1 and "127.0.0.1" in page.recent.itemText(0)  # the pair is remembered
    qtbot.waitUntil(page.controller.shutdown, timeout=60_000)


def test_refused_key_and_closed_port_fail_with_the_reason_and_a_retry(
    qtbot: QtBot, page: ConnectPage, sshd: Sshd
) -> None:
    page.controller.prompter.answer_host_key = lambda *_: False
    closed = free_port()
    fill(page, "server", sshd)
    fill(page, "client", sshd, port=closed)
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    states = page.controller.states
    qtbot.waitUntil(lambda: ConnState.CONNECTING not in states.values(), timeout=30_000)
    assert states == {"server": ConnState.FAILED, "client": ConnState.FAILED}
    server_text, client_text = (page.panels[r].state.text() for r in ("server", "client"))
    assert "host key" in server_text.lower() and "127.0.0.1" in server_text, server_text
    assert f"127.0.0.1:{closed}" in client_text or str(closed) in client_text, client_text
    assert page.panels["client"].retry.isVisibleTo(page)
    # Retry after trusting the key: the server connects, and only the retried panel changes
    page.controller.prompter.answer_host_key = lambda *_: True
    qtbot.mouseClick(page.panels["server"].retry, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: states["server"] is ConnState.CONNECTED, timeout=30_000)
    assert states["client"] is ConnState.FAILED and not page.panels["server"].retry.isVisibleTo(page)
    qtbot.waitUntil(page.controller.shutdown, timeout=60_000)


def test_a_failure_is_said_in_plain_words_with_the_technical_text_behind_details(
    qtbot: QtBot, page: ConnectPage, sshd: Sshd
) -> None:
    closed = free_port()
    shut = next(port for port in iter(free_port, None) if port != closed)  # a second closed port: the server's
    fill(page, "server", sshd, port=shut)
    fill(page, "client", sshd, port=closed)
    page.more.setText(f"root@127.0.0.1:{closed}")  # a further client: its line says it, its tooltip the details
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    states = page.controller.states
    qtbot.waitUntil(lambda: len(states) == 3 and ConnState.CONNECTING not in states.values(), timeout=30_000)
    server, client = page.panels["server"], page.panels["client"]
    assert f"refused the connection: nothing listens on port {closed}" in page.more_state.text()
    assert page.more_state.toolTip() == (
        f"client2: 127.0.0.1 port {closed}: ConnectionRefusedError: [Errno 111] Connection refused"
    )
    assert server.state.text().startswith(f"failed: server root@127.0.0.1:{shut} refused the connection: nothing ")
    assert "firewall" in server.state.text()
    assert client.state.text().startswith(f"failed: client root@127.0.0.1:{closed} refused the connection: nothing ")
    assert "Errno" not in server.state.text() + client.state.text()  # Python's words are behind Details
    for panel in (server, client):
        assert panel.details_button.isVisible() and not panel.details.isVisible()
    qtbot.mouseClick(client.details_button, Qt.MouseButton.LeftButton)
    assert client.details.isVisible() and not server.details.isVisible()
    assert client.details.text() == f"127.0.0.1 port {closed}: ConnectionRefusedError: [Errno 111] Connection refused"
    assert server.details.text() == f"127.0.0.1 port {shut}: ConnectionRefusedError: [Errno 111] Connection refused"
    # connected on Retry: the failure's Details go with it
    client.port.setValue(sshd.port)
    page.controller.prompter.answer_host_key = lambda *_: True
    qtbot.mouseClick(client.retry, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: states["client"] is ConnState.CONNECTED, timeout=30_000)
    assert not client.details_button.isVisible() and not client.details.isVisible()
    assert server.details_button.isVisible()  # the other host's failure stands
    qtbot.waitUntil(page.controller.shutdown, timeout=60_000)


def test_a_name_that_does_not_resolve_is_said_with_where_to_look(
    tmp_path: Path, files_only_hosts: RunFilesOnly
) -> None:
    # the page in a child process (Qt offscreen) whose resolver asks no DNS server: tests/root/conftest.py says why
    found = files_only_hosts("tests.root.unresolvable_child", "page", tmp_path, env={"QT_QPA_PLATFORM": "offscreen"})
    assert found["state"] == "FAILED", found
    assert found["text"].startswith("failed: Cannot find server ")  # the role, then the user, host and port
    assert "@nonexistent.invalid:22: the name does not resolve" in found["text"]
    assert "DNS, /etc/hosts" in found["text"]
    assert "Errno" not in found["text"]  # Python's words are behind Details
    assert found["details_button"] and not found["details_shown"]
    assert found["details_shown_on_click"] and found["details"].startswith("gaierror: [Errno -")


def test_this_computer_as_the_client_needs_no_ssh(qtbot: QtBot, page: ConnectPage) -> None:
    panel = page.panels["client"]
    panel.this_computer.setChecked(True)
    assert not panel.target.isEnabled()
    page._connect("client")
    states = page.controller.states
    qtbot.waitUntil(lambda: states["client"] is not ConnState.CONNECTING, timeout=30_000)
    assert states["client"] is ConnState.CONNECTED, panel.state.text()
    assert "this computer (" in panel.state.text()
    assert page.controller.hosts["client"].run(["true"], sudo=True).exit_status == 0
    qtbot.waitUntil(page.controller.shutdown, timeout=60_000)


def test_connecting_undoes_what_a_crashed_run_left(qtbot: QtBot, page: ConnectPage, sshd: Sshd, tmp_path: Path) -> None:
    from nfstune.store import Journal, open_store

    leftover = Path(f"/var/tmp/nfstune-test-{sshd.port}.tar")
    leftover.write_bytes(b"left by a run that was killed")
    conn = open_store(tmp_path / "s.sqlite3")  # the controller's store
    Journal(conn).record(f"root@127.0.0.1:{sshd.port}", "tempfile", str(leftover))
    conn.close()
    page.controller.prompter.answer_host_key = lambda *_: True
    fill(page, "server", sshd)
    page._connect("server")
    qtbot.waitUntil(lambda: page.controller.states["server"] is ConnState.CONNECTED, timeout=30_000)
    assert not leftover.exists()
    qtbot.waitUntil(lambda: "undid 1 change" in page.lab_status.text(), timeout=5_000)
    conn = open_store(tmp_path / "s.sqlite3")
    assert Journal(conn).pending() == []
    conn.close()
    qtbot.waitUntil(page.controller.shutdown, timeout=60_000)


def test_without_a_login_on_the_nas_apply_and_its_undo_say_why_they_cannot(qtbot: QtBot, page: ConnectPage) -> None:
    from PySide6.QtWidgets import QWidget

    from nfstune.ui.apply_dialog import NO_LOGIN, run_undo_flow
    from nfstune.ui.pages.recommendation import RecommendationPage

    page.panels["server"].no_login.setChecked(True)
    page.panels["server"].target.setText("127.0.0.1")
    page._connect("server")
    page.panels["client"].this_computer.setChecked(True)
    page._connect("client")
    states = page.controller.states
    qtbot.waitUntil(lambda: states["client"] is not ConnState.CONNECTING, timeout=30_000)
    assert states == {"server": ConnState.CONNECTED, "client": ConnState.CONNECTED}, page.panels["client"].state.text()
    page.controller.share = "/export"
    recommendation = RecommendationPage()
    qtbot.addWidget(recommendation)
    run_undo_flow(QWidget(), page.controller, recommendation)  # nothing is read or written: said at once
    assert recommendation.apply_state.text() == NO_LOGIN
    qtbot.waitUntil(page.controller.shutdown, timeout=60_000)


def test_a_pair_is_remembered_once_it_connected_after_a_retry(qtbot: QtBot, page: ConnectPage, sshd: Sshd) -> None:
    page.controller.prompter.answer_host_key = lambda *_: True
    closed = free_port()
    fill(page, "server", sshd)
    fill(page, "client", sshd, port=closed)  # a typo: the wrong port
    qtbot.mouseClick(page.connect_button, Qt.MouseButton.LeftButton)
    states = page.controller.states
    qtbot.waitUntil(lambda: ConnState.CONNECTING not in states.values(), timeout=30_000)
    assert states == {"server": ConnState.CONNECTED, "client": ConnState.FAILED}
    assert page._recent() == []  # the typo is not offered again
    page.panels["client"].port.setValue(sshd.port)
    qtbot.mouseClick(page.panels["client"].retry, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(page.is_complete, timeout=30_000)
    assert [pair["client"]["port"] for pair in page._recent()] == [sshd.port]  # the pair that connected
    assert page.panels["client"].state.text().startswith(f"connected: root@127.0.0.1:{sshd.port}")
    qtbot.waitUntil(page.controller.shutdown, timeout=60_000)


def test_no_password_is_asked_for_a_host_that_takes_keys_only(
    qtbot: QtBot, page: ConnectPage, sshd: Sshd, keys_only_sshd: Sshd, tmp_path: Path
) -> None:
    asked: list[tuple[str, str]] = []

    def answer(label: str, what: str) -> None:
        asked.append((label, what))

    page.controller.prompter.answer_secret = answer
    page.controller.prompter.answer_host_key = lambda *_: True
    stranger = keygen(tmp_path / "id_stranger")  # a key the host does not know: a mistyped user, say
    states = page.controller.states
    for server, prompted in ((keys_only_sshd, False), (sshd, True)):  # the same refusal where a password is taken
        fill(page, "server", server)
        page.panels["server"].key.setText(str(stranger))
        page._connect("server")
        qtbot.waitUntil(lambda: states["server"] is not ConnState.CONNECTING, timeout=30_000)
        assert states["server"] is ConnState.FAILED
        assert bool(asked) is prompted, asked
    assert [what for _label, what in asked] == ["SSH password for root"]
    qtbot.waitUntil(page.controller.shutdown, timeout=60_000)
