"""Issue 39's polish: History's empty state, the Preflight header's host named once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from nfstune.store import Results, open_store
from nfstune.ui.pages.history import HistoryPage
from nfstune.ui.pages.preflight import PreflightPage
from tests.ui.test_history_page import Jobs
from tests.ui.test_preflight_page import facts


@pytest.fixture
def jobs(qtbot: QtBot) -> Iterator[Jobs]:
    jobs = Jobs()
    yield jobs
    qtbot.waitUntil(lambda: not jobs.queue.busy(), timeout=10_000)


def test_history_with_no_sessions_says_how_to_get_one(qtbot: QtBot, tmp_path: Path, jobs: Jobs) -> None:
    store = tmp_path / "s.sqlite3"
    page = HistoryPage(Results(open_store(store)), store_path=store, background=jobs.background)
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    with qtbot.waitSignal(page.sessions_shown, timeout=10_000):
        page.show()
    text = page.details.toPlainText()
    assert page.model.rowCount() == 0
    assert "Select a session" not in text
    assert "No sessions yet" in text and "Guided tuning" in text and "practice lab" in text


def test_the_preflight_card_names_this_computer_without_nested_parentheses(qtbot: QtBot) -> None:
    page = PreflightPage()
    qtbot.addWidget(page)
    # the label LocalHost gives this computer: its own words, then the hostname in parentheses (uname -n, which
    # the probe reads too: the recorded client's is "client")
    client = facts("lab-client-root.txt")
    assert client.hostname == "client"
    page.show_facts(
        facts("lab-nas-root.txt"),
        client,
        server_label="nas",
        client_label="this computer (client)",
        exports=["/srv/nfs/share"],
        share="/srv/nfs/share",
        client_mounts_of_server=[],
    )
    # "Client (this computer (client))" was the header once: the card names the role and the words, and the
    # hostname goes to the line under them, so no parentheses are nested (or needed)
    assert page.client_card.title.text() == "Client \u00b7 this computer"
    assert page.client_card.summary.text().startswith("client \u00b7 ")  # the hostname, once
    assert "-" in page.client_card.summary.accessibleName()  # read aloud as written (the text has U+2011 for "-")
    assert page.server_card.title.text() == "Server \u00b7 nas"
