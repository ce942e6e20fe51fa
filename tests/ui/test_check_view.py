"""Check it held on the desktop: the answer drawn from a check judged through the real store (its word first, a
row per workload in the picture, Undo last Apply only when the change measured slower), and History's button for a
session whose recommendation an Apply in force wrote."""

from __future__ import annotations

import json
from pathlib import Path

from pytestqt.qtbot import QtBot

from nfstune.results.in_force import InForce
from nfstune.session.check_run import judge_check
from nfstune.store import Journal, Results, open_store
from nfstune.ui.check_dialog import CheckDialog
from nfstune.ui.pages.history import HistoryPage
from tests.ui.test_history_page import Jobs, jobs  # noqa: F401 (the fixture)
from tests.unit.test_check_session import FILES, GAIN, READ, _wobble, plan_of, store_check, store_n

HELD = {"small-files": _wobble(FILES, 1 / GAIN), "seq-read": _wobble(READ, GAIN)}
BACK = {"small-files": _wobble(FILES, 1.0), "seq-read": _wobble(READ, 1.0)}


def dialog_for(qtbot: QtBot, tmp_path: Path, figures: dict[str, tuple[float, ...]], network: float) -> CheckDialog:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    n = store_n(results)
    check = store_check(results, n, figures, network)
    result = judge_check(results, plan_of(results, n), check, InForce(("lab client: vers=3 in force",)))
    dialog = CheckDialog(n)
    qtbot.addWidget(dialog)
    dialog.show_outcome(json.loads(result.to_json(n)), check)
    dialog.resize(1024, 700)
    dialog.show()
    return dialog


def test_a_check_that_held_says_so_first_and_offers_no_undo(qtbot: QtBot, tmp_path: Path) -> None:
    dialog = dialog_for(qtbot, tmp_path, HELD, 108.0)
    view = dialog.view
    assert view.headline.text().startswith("Held")
    assert [h.workload for h in view.plot.rows] == ["small-files", "seq-read"]
    assert all(h.word == "held" for h in view.plot.rows)
    assert not view.undo_button.isVisible()
    assert not view.words.isVisible()  # the words are behind Details
    view.details.button.click()
    assert view.words.isVisible() and "unpaired" in view.words.toPlainText()


def test_a_change_measured_slower_offers_the_undo_and_names_the_network(qtbot: QtBot, tmp_path: Path) -> None:
    dialog = dialog_for(qtbot, tmp_path, BACK, 66.0)
    view = dialog.view
    assert view.headline.text().startswith("Did not hold")
    assert view.undo_button.isVisible()
    assert "the network (client → server) measured 40 % slower" in view.summary.text()
    with qtbot.waitSignal(view.undo_requested):
        view.undo_button.click()


def test_history_offers_the_check_for_an_applied_session_only(qtbot: QtBot, tmp_path: Path, jobs: Jobs) -> None:  # noqa: F811
    conn = open_store(tmp_path / "s.sqlite3")
    results, journal = Results(conn), Journal(conn)
    applied, other = store_n(results), store_n(results)
    entry = journal.record("root@nas:22", "file", "/etc/fstab", detail={"apply": True, "session": applied})
    journal.mark_committed([entry])
    page = HistoryPage(results, store_path=tmp_path / "s.sqlite3", background=jobs.background)
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    with qtbot.waitSignal(page.sessions_shown, timeout=10_000):
        page.show()
    rows = {page.model.session_at(r).id: r for r in range(page.model.rowCount())}
    page.table.selectRow(rows[other])
    assert not page.check_button.isEnabled()
    page.table.selectRow(rows[applied])
    assert page.check_button.isEnabled()
    with qtbot.waitSignal(page.check_requested) as asked:
        page.check_button.click()
    assert asked.args == [applied]
