"""The preflight page on recorded probe output: the facts table, the problems with their Install buttons, the
share picker and blocking()."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QPushButton
from pytestqt.qtbot import QtBot

from nfstune.facts.model import HostFacts
from nfstune.facts.probe_output import parse_probe_output
from nfstune.ui.pages.preflight import HIGHLIGHT_BACKGROUND, TITLE, PreflightPage

CAPTURES = Path(__file__).parent.parent / "captures" / "probe"
EXPORTS = ["/export", "/srv/media"]


def facts(name: str) -> HostFacts:
    return parse_probe_output((CAPTURES / name).read_text())


@pytest.fixture
def page(qtbot: QtBot) -> PreflightPage:
    widget = PreflightPage()
    qtbot.addWidget(widget)
    widget.resize(1366, 768)
    widget.show()
    return widget


def show(page: PreflightPage, server: HostFacts, client: HostFacts, share: str | None = "/export") -> None:
    page.show_facts(
        server,
        client,
        server_label="nas",
        client_label="client",
        exports=EXPORTS,
        share=share,
        client_mounts_of_server=["/mnt/nas"],
    )


def table_text(page: PreflightPage) -> dict[str, tuple[str, str]]:
    cell = page.table.item
    return {cell(r, 0).text(): (cell(r, 1).text(), cell(r, 2).text()) for r in range(page.table.rowCount())}


def buttons(page: PreflightPage, text: str) -> list[QPushButton]:
    return [b for b in page.findChildren(QPushButton) if b.text() == text]


def test_the_table_shows_both_hosts(page: PreflightPage) -> None:
    show(page, facts("lab-nas-root.txt"), facts("lab-client-root.txt"))
    assert page.findChildren(QLabel)[0].text() == TITLE
    headers = [page.table.horizontalHeaderItem(c).text() for c in range(3)]
    assert headers == ["", "Server: nas", "Client: client"]
    rows = table_text(page)
    assert rows["Kernel"] == ("6.1.0-56-cloud-amd64", "6.1.0-56-cloud-amd64")
    assert rows["Hostname"] == ("nas", "client")
    assert rows["nfsd max block size"] == ("128 KiB", "\u2013")
    assert page.table.editTriggers() == page.table.EditTrigger.NoEditTriggers
    assert not page.blocking()
    assert page.share == "/export"


def test_an_mtu_mismatch_is_highlighted(page: PreflightPage) -> None:
    client = facts("lab-client-root.txt")
    assert client.route is not None
    show(page, facts("lab-nas-root.txt"), replace(client, route=replace(client.route, mtu=9000)))
    nic = next(r for r in range(page.table.rowCount()) if page.table.item(r, 0).text() == "NIC")
    assert page.table.item(nic, 2).background().color() == HIGHLIGHT_BACKGROUND
    assert page.table.item(nic - 1, 2).background().color() != HIGHLIGHT_BACKGROUND
    assert any(p.title.startswith("MTU mismatch") for p in page.problems())


def test_install_button_asks_for_the_exact_command(page: PreflightPage, qtbot: QtBot) -> None:
    client = facts("lab-client-root.txt")
    show(page, facts("lab-nas-root.txt"), replace(client, fio_version=None, tools=client.tools - {"fio"}))
    (install,) = buttons(page, "&Install")
    with qtbot.waitSignal(page.install_requested) as signal:
        install.click()
    assert signal.args == ["client", "apt-get install -y fio"]
    (copy,) = buttons(page, "C&opy command")
    copy.click()
    assert QGuiApplication.clipboard().text() == "apt-get install -y fio"

    page.set_install_state("client", "fio", "installing\u2026")
    assert not install.isEnabled()
    assert [w.text() for w in page.findChildren(QLabel) if w.text() == "installing\u2026"]
    page.set_install_state("client", "fio", "failed: E: Unable to locate package fio")
    assert install.isEnabled()  # so that the admin can try again
    page.set_install_state("server", "iperf3", "installed")  # no such row: nothing happens


def test_share_combo_lists_the_exports_and_emits(page: PreflightPage, qtbot: QtBot) -> None:
    show(page, facts("lab-nas-root.txt"), facts("lab-client-root.txt"))
    combo = page.share_combo
    assert [combo.itemText(i) for i in range(combo.count())] == EXPORTS
    assert combo.currentText() == "/export"
    with qtbot.waitSignal(page.share_changed) as signal:
        combo.setCurrentIndex(1)
    assert signal.args == ["/srv/media"]
    assert page.share == "/srv/media"


def test_a_share_that_is_not_exported_blocks(page: PreflightPage, qtbot: QtBot) -> None:
    show(page, facts("lab-nas-root.txt"), facts("lab-client-root.txt"), share="/srv/data")
    assert page.blocking()
    assert page.problems()[0].title == "/srv/data is not exported by nas"
    assert page.share_combo.currentIndex() == -1
    assert page.share_combo.placeholderText() == "/srv/data (not exported)"
    with qtbot.waitSignal(page.share_changed):
        page.share_combo.setCurrentIndex(0)  # picking an exported share clears the error at once
    assert not page.blocking()


def test_a_stopped_server_blocks(page: PreflightPage) -> None:
    show(page, replace(facts("lab-nas-root.txt"), nfs_server_state="failed"), facts("lab-client-root.txt"))
    assert page.blocking()


def test_exports_traps_are_listed_with_file_and_line(page: PreflightPage) -> None:
    files = {"/etc/exports": "/export 10.99.0.0/24(rw,sync)\n/srv/l host (rw)\n"}
    page.show_facts(
        facts("lab-nas-root.txt"),
        facts("lab-client-root.txt"),
        server_label="nas",
        client_label="client",
        exports=EXPORTS,
        share="/export",
        client_mounts_of_server=[],
        export_files=files,
    )
    shown = [label.text() for label in page.findChildren(QLabel)]
    assert "/etc/exports line 2: /srv/l *" in shown
    assert any("no host before '('" in text for text in shown)
    assert not page.blocking()  # told, not stopped: the share itself is fine


def test_before_the_facts_come_it_says_it_is_reading_them(qtbot: QtBot) -> None:
    page = PreflightPage()
    qtbot.addWidget(page)
    page.show()
    assert page.reading.isVisible() and page.busy.isVisible() and not page.table.isVisible()
    headers = [page.table.horizontalHeaderItem(c).text() for c in range(3)]
    assert headers == ["", "Server", "Client"]  # never Qt's "1 2 3"
    page.reading_failed("nas: connection reset")
    assert not page.busy.isVisible() and "Could not read the hosts' facts: nas: connection reset" in page.reading.text()


def test_a_nas_without_login_shows_what_the_client_saw_and_what_is_lost(page: PreflightPage) -> None:
    from nfstune.session.nas_view import facts_seen

    tried = (CAPTURES.parent / "nas-view" / "versions-lab-export.txt").read_text()
    page.show_facts(
        facts_seen("nas", tried),
        facts("lab-client-root.txt"),
        server_label="nas (no login)",
        client_label="client",
        exports=["/export"],
        share="/export",
        client_mounts_of_server=[],
        server_login=False,
    )
    assert not page.blocking()
    titles = [p.title for p in page.problems()]
    assert "No login on nas (no login): the client's side alone" in titles
    assert not any("NFS server" in t and "running" in t for t in titles)  # nothing said of what was not seen
    rows = table_text(page)
    assert rows["Hostname"][0] == "nas" and rows["NFS versions enabled"][0] == "3, 4.0, 4.1, 4.2"
    assert rows["nfs-server"][0] == "answers NFS (seen from the client)"
    # unknown, not "not installed": the client cannot see what the NAS has
    assert {rows[label][0] for label in ("Kernel", "fio", "iperf3", "RDMA devices")} == {"\u2013"}
    shown = " ".join(label.text() for label in page.findChildren(QLabel))
    assert "page cache cannot be dropped" in shown


def test_an_export_no_share_can_be_is_said_and_not_offered(page: PreflightPage) -> None:
    page.show_facts(
        facts("lab-nas-root.txt"),
        facts("lab-client-root.txt"),
        server_label="nas",
        client_label="client",
        exports=EXPORTS,
        share="/export",
        client_mounts_of_server=[],
        refused_exports=["/srv/a\nb"],  # session/script.py's survey left it out of the exports
    )
    assert [page.share_combo.itemText(i) for i in range(page.share_combo.count())] == EXPORTS
    (said,) = [p for p in page.problems() if p.title == "nas lists exports nfstune leaves out"]
    assert said.severity == "warning" and "'/srv/a\\nb': a share path cannot contain" in said.detail
