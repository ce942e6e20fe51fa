"""The preflight page on recorded probe output: the problems first (worst first, with their Install buttons), the
share picker or the line that says there is none, the two host cards, blocking() and Read again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from nfstune.facts.model import HostFacts
from nfstune.facts.probe_output import parse_probe_output
from nfstune.ui.pages.preflight import NO_PROBLEMS, TITLE, PreflightPage
from nfstune.ui.pages.preflight_card import HIGHLIGHT_BACKGROUND, HostCardView

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


def card_text(card: HostCardView) -> dict[str, str]:
    """The facts a card draws now, by label."""
    return {label: value.text() for label, value in card.rows.items()}


def top(widget: QWidget, page: PreflightPage) -> int:
    assert widget.isVisible()
    return widget.mapTo(page, widget.rect().topLeft()).y()


def laid_out(qtbot: QtBot, page: PreflightPage) -> None:
    """Widgets added to a shown page are shown and placed by posted events: let them run."""
    qtbot.waitUntil(lambda: all(w.isVisible() for w in page.findChildren(QFrame) if w.property("severity")))
    QApplication.processEvents()


def buttons(page: PreflightPage, text: str) -> list[QPushButton]:
    return [b for b in page.findChildren(QPushButton) if b.text() == text]


def test_the_cards_show_both_hosts_known_facts(page: PreflightPage, qtbot: QtBot) -> None:
    show(page, facts("lab-nas-root.txt"), facts("lab-client-root.txt"))
    laid_out(qtbot, page)
    assert page.findChildren(QLabel)[0].text() == TITLE
    assert page.server_card.title.text() == "Server \u00b7 nas"
    assert page.client_card.title.text() == "Client \u00b7 client"
    server, client = card_text(page.server_card), card_text(page.client_card)
    assert server["nfsd threads"] == "8" and server["Max block size"] == "128 KiB"
    assert server["Filesystem"] == "ext4 on /dev/mapper/labslow"
    assert client["mount.nfs"] == "installed"
    # unknown facts are left out, not drawn as dashes: no speed for a virtual NIC, no filesystem on the client
    assert "Speed" not in server and "Filesystem" not in client
    shown = [label.text() for label in page.findChildren(QLabel) if label.isVisible()]
    assert "\u2013" not in shown
    # side by side, each half the row
    assert page.server_card.isVisible() and page.client_card.isVisible()
    assert top(page.server_card, page) == top(page.client_card, page)
    assert page.server_card.x() < page.client_card.x()
    assert abs(page.server_card.width() - page.client_card.width()) <= 2
    assert not page.blocking()
    assert page.share == "/export"


def test_problems_come_first_worst_first_then_the_share_then_the_cards(page: PreflightPage, qtbot: QtBot) -> None:
    client = facts("lab-client-root.txt")
    assert client.route is not None
    # a warning (fio missing), errors (the share, a stopped server) and infos (the user's own mount, the NIC)
    show(
        page,
        replace(facts("lab-nas-root.txt"), nfs_server_state="failed"),
        replace(client, fio_version=None, tools=client.tools - {"fio"}),
        share="/srv/data",
    )
    laid_out(qtbot, page)
    rows = [f for f in page.findChildren(QFrame) if f.property("severity")]
    ordered = sorted(rows, key=lambda f: top(f, page))
    severities = [f.property("severity") for f in ordered]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert severities[:2] == ["error", "error"] and "warning" in severities and severities[-1] == "info"
    (verdict,) = [w for w in page.findChildren(QLabel) if w.accessibleName() == "Preflight verdict"]
    assert verdict.text() == "Not ready: 2 problems below stop a run."
    assert top(verdict, page) < top(ordered[0], page)
    assert top(ordered[-1], page) < top(page.share_combo, page) < top(page.server_card, page)


def test_with_no_problems_one_line_says_the_hosts_are_ready(page: PreflightPage, qtbot: QtBot) -> None:
    nas, client = facts("lab-nas-root.txt"), facts("lab-client-root.txt")
    assert nas.route is not None and client.route is not None and nas.filesystem is not None
    fast_ssd = replace(nas.filesystem, devices=tuple(replace(d, rotational=False) for d in nas.filesystem.devices))
    page.show_facts(
        replace(nas, route=replace(nas.route, speed_mbps=10000), filesystem=fast_ssd),
        replace(client, route=replace(client.route, speed_mbps=10000)),
        server_label="nas",
        client_label="client",
        exports=EXPORTS,
        share="/export",
        client_mounts_of_server=[],
    )
    assert page.problems() == []
    laid_out(qtbot, page)
    (verdict,) = [w for w in page.findChildren(QLabel) if w.accessibleName() == "Preflight verdict"]
    assert verdict.text() == NO_PROBLEMS and verdict.isVisible()
    assert not [f for f in page.findChildren(QFrame) if f.property("severity")]


def test_an_mtu_mismatch_is_highlighted(page: PreflightPage) -> None:
    client = facts("lab-client-root.txt")
    assert client.route is not None
    show(page, facts("lab-nas-root.txt"), replace(client, route=replace(client.route, mtu=9000)))
    for card in (page.server_card, page.client_card):
        mtu, nic = card.rows["MTU"], card.rows["NIC"]
        assert mtu.palette().color(mtu.backgroundRole()) == HIGHLIGHT_BACKGROUND and mtu.autoFillBackground()
        assert nic.palette().color(nic.backgroundRole()) != HIGHLIGHT_BACKGROUND
    assert card_text(page.client_card)["MTU"] == "9000"
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
    assert page.reading.isVisible() and page.busy.isVisible()
    # no empty cards, no empty share list, nothing to read again yet
    assert not page.server_card.isVisible() and not page.share_combo.isVisible() and not page.read_again.isVisible()
    page.reading_failed("nas: connection reset")
    assert not page.busy.isVisible() and "Could not read the hosts' facts: nas: connection reset" in page.reading.text()
    assert page.read_again.isVisible() and page.read_again.isEnabled()  # after a failure, the way to try again


def test_read_again_asks_for_a_probe_and_says_it_is_reading(page: PreflightPage, qtbot: QtBot) -> None:
    show(page, facts("lab-nas-root.txt"), facts("lab-client-root.txt"))
    assert page.read_again.isVisible() and not page.busy.isVisible()
    with qtbot.waitSignal(page.read_again_requested):
        page.read_again.click()
    assert page.busy.isVisible() and page.reading.isVisible() and not page.read_again.isEnabled()
    show(page, facts("lab-nas-root.txt"), facts("lab-client-root.txt"))  # the wizard's answer
    assert not page.busy.isVisible() and page.read_again.isEnabled()


def test_a_server_that_exports_nothing_is_said_where_the_share_would_be(page: PreflightPage, qtbot: QtBot) -> None:
    page.show_facts(
        facts("lab-nas-root.txt"),
        facts("lab-client-root.txt"),
        server_label="nas",
        client_label="client",
        exports=[],
        share=None,
        client_mounts_of_server=[],
    )
    laid_out(qtbot, page)
    assert not page.share_combo.isVisible()  # no empty list to open
    assert page.no_share.isVisible() and page.no_share.text().startswith("nas exports nothing")
    assert "Read again" in page.no_share.text() and page.read_again.isVisible()
    assert top(page.no_share, page) < top(page.server_card, page)
    # and the wizard cannot go on to a run with no share: an error stands in the way
    assert page.blocking() and page.problems()[0].title == "nas exports nothing"
    show(page, facts("lab-nas-root.txt"), facts("lab-client-root.txt"))  # exported since, and read again
    assert page.share_combo.isVisible() and not page.no_share.isVisible() and not page.blocking()


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
    assert page.server_card.title.text() == "Server \u00b7 nas"
    server = card_text(page.server_card)
    assert server == {"nfs-server": "answers this client", "Versions offered": "3, 4.0, 4.1, 4.2"}
    # unknown, not "not installed": the client cannot see what the NAS has, and the card says why in one line
    assert page.server_card.note.isVisible() and page.server_card.note.text().startswith("No login")
    assert card_text(page.client_card)["fio"] == "3.33"
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
