"""A guided hand change's step on the Run page (issue 41, item 2): the engine's worker asks through the Prompter,
the page shows what to change and where, first, and the worker waits until Continue or Stop is clicked (or the run
is cancelled); the verdict rows say they came from blocks changed by hand."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

from PySide6.QtCore import QPointF
from pytestqt.qtbot import QtBot

from nfstune.session.admin import AS_IT_WAS, CONTINUE, STOP, WITH_CHANGE, HandPrompt
from nfstune.ui.controller import Controller
from nfstune.ui.jobs import Prompter
from nfstune.ui.pages.run import RunPage
from nfstune.ui.widgets.verdict_plot import VerdictPlot
from tests.unit.test_hand_change import Nas, run_by_hand

WHERE = "in the NAS's own interface (Synology DSM: Control Panel > Shared Folder > Edit > NFS Permissions)"
SWITCH = HandPrompt(
    "switch", "sync-vs-async", "Make this change: on the share's NFS export, set async.", 1, 5, False, WHERE
)


def page(qtbot: QtBot, tmp_path: Path) -> RunPage:
    widget = RunPage(Controller(Prompter(), store_path=tmp_path / "s.sqlite3"))
    qtbot.addWidget(widget)
    widget.resize(1024, 700)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def ask_on_a_worker(run: RunPage, prompt: HandPrompt, cancel: threading.Event) -> tuple[threading.Thread, list[str]]:
    answers: list[str] = []
    worker = threading.Thread(target=lambda: answers.append(run.controller.prompter.hand(prompt, cancel)))
    worker.start()
    return worker, answers


def test_the_step_shows_the_change_and_where_and_the_worker_waits_for_continue(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    assert not run.hand_step.isVisible()
    worker, answers = ask_on_a_worker(run, SWITCH, threading.Event())
    qtbot.waitUntil(run.hand_step.isVisible)
    step = run.hand_step
    assert step.title.text() == SWITCH.text and step.where.text() == f"Where: {WHERE}"
    assert step.geometry().top() < run.recipe_panel.mapTo(run, run.recipe_panel.rect().topLeft()).y()  # first
    assert "Your turn" in run.current.text() and "block 2 of 5" in run.current.text()
    assert answers == [] and worker.is_alive()  # waiting for the admin
    step.go.click()
    worker.join(5)
    assert answers == [CONTINUE] and not step.isVisible()
    assert "answered: continue" in run.log.toPlainText()


def test_stop_and_cancel_end_the_wait(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    worker, answers = ask_on_a_worker(run, SWITCH, threading.Event())
    qtbot.waitUntil(run.hand_step.isVisible)
    run.hand_step.stop.click()
    worker.join(5)
    assert answers == [STOP]
    cancel = threading.Event()
    worker, answers = ask_on_a_worker(run, SWITCH, cancel)
    qtbot.waitUntil(run.hand_step.isVisible)
    cancel.set()  # the run is cancelled while the admin is away: the engine is not left waiting
    worker.join(5)
    assert answers == [STOP]


def test_at_the_end_the_admin_chooses_how_the_nas_is_left(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    leave = HandPrompt(
        "leave", "r", "The NAS now runs with your change (async). Choose how to leave it: ...", 5, 5, True, WHERE
    )
    for button, expected in ((run.hand_step.go, AS_IT_WAS), (run.hand_step.stop, WITH_CHANGE)):
        worker, answers = ask_on_a_worker(run, leave, threading.Event())
        qtbot.waitUntil(run.hand_step.isVisible)
        assert run.hand_step.title.text() == "How should the NAS be left?"
        step = run.hand_step
        assert step.lead.text() == leave.text and not step.note.isVisible()
        assert step.lead.geometry().top() < step.where.geometry().top()  # the choice first, where after
        button.click()
        worker.join(5)
        assert answers == [expected]


def test_the_verdict_row_is_named_short_and_says_by_hand_in_its_tooltip(qtbot: QtBot, tmp_path: Path) -> None:
    _, hosts, _ = run_by_hand(tmp_path, Nas())
    run = page(qtbot, tmp_path)  # 1024 px wide: the verdicts' narrow column
    for event in hosts.events:
        run._show(event)
    panel = run.recipe_panel
    assert len(panel.rows) == 1
    assert "Verdicts after block 5 of 5" in panel.verdicts_title.text()
    assert "changed by hand" in panel.verdicts_title.text()
    plot = panel.plot
    qtbot.waitUntil(lambda: plot.width() > 0)
    assert plot.shown_names == ["async · sync-4k"]  # whole, not cut in the middle
    assert plot.tips == ["async · sync-4k (by hand, 5 blocks)"]
    assert "async · sync-4k (by hand, 5 blocks): " in plot.accessibleDescription()
    # the tooltip over the row's name on the axis; over the plot the estimate's own
    axis, view = plot.plot.getAxis("left"), plot.plot.getViewBox()
    y = view.mapViewToScene(QPointF(0, 0)).y()
    over_name = plot.graphics.mapFromScene(QPointF(axis.sceneBoundingRect().center().x(), y))
    over_plot = plot.graphics.mapFromScene(view.mapViewToScene(QPointF(0, 0)))
    assert plot.tip_at(QPointF(over_name)) == "async · sync-4k (by hand, 5 blocks)"
    assert plot.tip_at(QPointF(over_plot)) is None


def test_a_block_verdict_has_no_looks_to_correct_for(qtbot: QtBot, tmp_path: Path) -> None:
    _, hosts, _ = run_by_hand(tmp_path, Nas())
    (row,) = [e for e in hosts.events if e.kind == "verdicts"][-1].data["rows"]  # type: ignore[misc]
    plot = VerdictPlot()
    qtbot.addWidget(plot)
    plot.set_rows([row])
    assert "(corrected for the comparisons)" in plot.note.text()
    plot.set_rows([row, dataclasses.replace(row, label="other", blocks=0)])  # one judged by rounds, with looks
    assert "(corrected for the comparisons and the looks)" in plot.note.text()


def test_the_bar_moves_with_the_blocks_and_says_when_it_waits_for_the_admin(qtbot: QtBot, tmp_path: Path) -> None:
    _, hosts, _ = run_by_hand(tmp_path, Nas())
    run = page(qtbot, tmp_path)
    events = hosts.events
    last_switch = max(i for i, e in enumerate(events) if e.kind == "hand")  # before block 5 of 5
    for event in events[: last_switch + 2]:  # the question, and the bar as the admin's turn starts
        run._show(event)
    assert run.progress.value() > 600  # four blocks of five measured
    assert run.eta.text() == "waiting for your change"
    following = next(e for e in events[last_switch + 2 :] if e.kind == "progress")
    run._show(following)  # block 5 measures: a time left again
    assert run.eta.text().startswith("about ") and run.eta.text().endswith(" left")
