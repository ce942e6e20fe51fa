"""Check it held on the desktop: the plan in words with the exact commands behind Details, the progress as a step,
a bar and the time left with the log folded, the answer drawn from a check judged through the real store (its word
first, a row per workload in the picture, Undo last Apply only when the change measured slower), and History's
button for a session whose recommendation an Apply in force wrote."""

from __future__ import annotations

import html
import json
from pathlib import Path
from types import SimpleNamespace

from pytestqt.qtbot import QtBot

from nfstune.results.in_force import InForce
from nfstune.session.check_run import CHECK_RECIPE, CheckPlan, engine_plan, judge_check
from nfstune.session.engine import Event
from nfstune.session.workflow import Facts
from nfstune.store import Journal, Results, open_store
from nfstune.ui.check_dialog import CheckDialog
from nfstune.ui.pages.history import HistoryPage
from tests.ui.test_history_page import Jobs, jobs  # noqa: F401 (the fixture)
from tests.unit.test_check_session import FILES, GAIN, READ, _wobble, plan_of, store_check, store_n
from tests.unit.trend_sessions import LAB_CLIENT, LAB_NAS, shipped_recipes

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


def planned_dialog(qtbot: QtBot, tmp_path: Path) -> tuple[CheckDialog, CheckPlan]:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    n = store_n(results)
    plan = plan_of(results, n)
    pair = SimpleNamespace(share="/export", address="nas", server=object())
    built = engine_plan(plan, pair, Facts(LAB_NAS, LAB_CLIENT), seed=1)  # type: ignore[arg-type]
    dialog = CheckDialog(n)
    qtbot.addWidget(dialog)
    dialog.resize(1024, 700)
    dialog.show()
    dialog.show_plan(plan, built)
    return dialog, plan


def test_the_plan_says_what_the_check_does_and_keeps_the_commands_behind_details(qtbot: QtBot, tmp_path: Path) -> None:
    dialog, plan = planned_dialog(qtbot, tmp_path)
    page = dialog.plan_page
    assert dialog.pages.currentWidget() is page and dialog.start_button.isVisible()
    assert page.title.text().startswith("Check that the last Apply")  # the test's Apply kept no time
    assert f"{plan.rounds} rounds after a warm-up, about" in page.steps.text()
    assert "nfstune's own mount" in page.touched.text()
    assert not page.commands.isVisible()  # the shell lines wait behind Details
    assert "sudo" not in page.steps.text() + page.touched.text()
    page.details.button.click()
    assert page.commands.isVisible() and "mount -t nfs" in page.commands.toPlainText()
    # what the admin reads first stays at the top, above the commands
    assert page.title.geometry().bottom() < page.commands.geometry().top()


def test_the_progress_shows_the_step_the_bar_and_the_time_left_with_the_log_folded(
    qtbot: QtBot, tmp_path: Path
) -> None:
    dialog, plan = planned_dialog(qtbot, tmp_path)
    dialog.show_progress("Verifying the applied settings are in force")
    page = dialog.progress_page
    assert dialog.cancel_button.isVisible() and not dialog.start_button.isVisible()
    dialog.event_arrived.emit(Event("log", "verified: client: vers=3 in force (/proc/mounts)"))
    dialog.event_arrived.emit(
        Event("progress", f"{CHECK_RECIPE} round 3: applied", {"fraction": 0.5, "eta_s": 120.0, "eta_max_s": 120.0})
    )
    assert page.step.text().startswith(f"Round 3 of {plan.rounds}: ")
    assert page.bar.value() == 500
    assert page.eta.text() == "about 2 min left"
    assert not page.log.isVisible()
    page.details.button.click()
    assert page.log.isVisible() and "vers=3 in force" in page.log.toPlainText()
    again = Event("progress", f"{CHECK_RECIPE} round 3: applied", {"fraction": 0.55, "eta_s": 100.0})
    dialog.event_arrived.emit(again)  # the same step with a new time left: the bar moves, the log says it once
    assert page.bar.value() == 550 and page.log.toPlainText().count("Round 3 of") == 1
    page.details.button.click()
    dialog.cancel_button.click()  # the undo is said step by step in the log, open again
    assert not dialog.cancel_button.isEnabled()
    assert page.step.text().startswith("Cancelling") and page.log.isVisible()


def test_history_leads_a_check_session_with_its_picture_and_keeps_the_sentences_behind_details(
    qtbot: QtBot,
    tmp_path: Path,
    jobs: Jobs,  # noqa: F811
) -> None:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    n = store_n(results)
    check = store_check(results, n, BACK, 66.0)
    outcome = judge_check(results, plan_of(results, n), check, InForce(("lab client: vers=3 in force",)))
    results.keep_check_outcome(check, outcome.to_json(n))
    kept = json.loads(outcome.to_json(n))  # what the check stored
    page = HistoryPage(
        results, store_path=tmp_path / "s.sqlite3", recipes=shipped_recipes(), background=jobs.background
    )
    qtbot.addWidget(page, before_close_func=lambda _: qtbot.waitUntil(lambda: not jobs.queue.busy()))
    page.resize(1024, 700)
    with qtbot.waitSignal(page.sessions_shown, timeout=10_000):
        page.show()
    rows = {page.model.session_at(r).id: r for r in range(page.model.rowCount())}
    with qtbot.waitSignal(page.details_shown, timeout=10_000):
        page.table.selectRow(rows[check])
    view = page.session_view
    answer = view.answer_label.text()
    assert view.answer_label.isVisible()
    assert f"<b>Check of session {n}&#x27;s Apply: DID NOT HOLD" in answer  # the word first, in large type
    assert "#b3261e" in view.answer_label.styleSheet()  # a check that did not hold is not drawn as good
    # the check's picture, one row per workload it stored, and no verdict plot of a first look
    assert view.check_plot is not None and view.check_plot.isVisible()
    assert [h.workload for h in view.check_plot.rows] == [w["workload"] for w in kept["workloads"]]
    assert view.verdict_plot is None or not view.verdict_plot.isVisible()
    assert view.check_words.isVisible() and view.check_words.text().startswith("Likely cause: the network")
    # the long sentences are behind Details, not in the words shown above the picture
    shown = answer + view.check_words.text()
    for held in kept["workloads"]:
        assert held["text"] not in html.unescape(shown)
        assert held["text"] in page.details.toPlainText()
    assert "Verified in force first" not in html.unescape(shown)
    assert "run next" not in answer.lower() and "quick-check" not in answer
    with qtbot.waitSignal(page.details_shown, timeout=10_000):  # a session of its own keeps its three lines
        page.table.selectRow(rows[n])
    assert "Change:" in view.answer_label.text()
    assert view.check_plot is not None and not view.check_plot.isVisible() and not view.check_words.isVisible()
