"""The Run page: its log folded until asked for or a cancel, then tall enough for the undo step by step, following
its last line through a resize until the admin scrolls up to read, and the outcome said once; the visit grid and the
verdicts as a scripted run's events (tests/ui/scripted_run.py) come in."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from nfstune.session.admin import Event
from nfstune.session.script import RunOutcome
from nfstune.ui.controller import Controller
from nfstune.ui.jobs import Prompter
from nfstune.ui.pages.run import LOG_MIN_LINES, RunPage
from nfstune.ui.theme import text_colour
from nfstune.ui.widgets.visit_grid import RUNNING, SETTLED
from tests.ui.scripted_run import NFS_VERSIONS, scripted_events


def page(qtbot: QtBot, tmp_path: Path) -> RunPage:
    widget = RunPage(Controller(Prompter(), store_path=tmp_path / "s.sqlite3"))
    qtbot.addWidget(widget)
    widget.resize(1024, 700)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_the_log_follows_its_last_line_through_a_resize_until_scrolled_up(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    assert not run.log.isVisible()  # folded: the dashboard has the room
    run.log_button.click()
    assert run.log.isVisible()
    assert run.log.height() >= run.log.fontMetrics().lineSpacing() * LOG_MIN_LINES
    bar = run.log.verticalScrollBar()
    for n in range(200):
        run._append(f"line {n}")
    assert bar.value() == bar.maximum() > 0
    run.resize(1024, 500)  # a smaller window: more to scroll, still the last line in view
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    bar.setValue(0)  # the admin scrolls up to read: the log stays where they are
    run._append("one more")
    assert bar.value() == 0
    bar.setValue(bar.maximum())
    run._append("and another")
    assert bar.value() == bar.maximum()


def test_a_cancelled_run_says_cancelled_once(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    run._on_run_done(RunOutcome(7, "cancelled", "cancelled: every change was undone"))
    last = run.log.toPlainText().splitlines()[-1]
    assert last.endswith("session 7: Cancelled: every change was undone") and last.lower().count("cancelled") == 1


def test_several_clients_get_a_line_each_and_one_for_all_of_them(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    run.start()
    try:
        mb = 1e6
        # one client alone: only the usual read and write lines
        run._on_sample("client", 100.0, {"nfs_read_bps": 0.0, "nfs_write_bps": 4 * mb})
        run.plot.refresh()
        assert "client2_total" not in run.plot.curves and "clients_all" not in run.plot.curves
        # three clients, sampled a fraction of a second apart, for two seconds
        for second in (101.0, 102.0):
            run._on_sample("client", second, {"nfs_read_bps": 1 * mb, "nfs_write_bps": 2 * mb})
            run._on_sample("client2", second + 0.3, {"nfs_read_bps": 0.0, "nfs_write_bps": 2 * mb})
            run._on_sample("client3", second + 0.6, {"nfs_read_bps": 0.0, "nfs_write_bps": 1 * mb})
        run.plot.refresh()
        for name in ("client_total", "client2_total", "client3_total", "clients_all"):
            assert name in run.plot.curves
        _, together = run.plot.curves["clients_all"].getOriginalDataset()
        assert together is not None and together[-1] == 6.0  # MB/s: 3 + 2 + 1 of the same second
        _, second_client = run.plot.curves["client2_total"].getOriginalDataset()
        assert list(second_client) == [2.0, 2.0]
        legend = [label.text for _, label in run.plot.legends["client"].items]
        assert {"client2", "client3", "all clients"} <= set(legend)
        run.plot.save_png(tmp_path / "several-clients.png")
        # the next run from one client starts without them
        run.plot.clear()
        assert "client2_total" not in run.plot.curves
        assert "client2" not in [label.text for _, label in run.plot.legends["client"].items]
    finally:
        run.plot.stop()
        run.timer.stop()


def fed(qtbot: QtBot, tmp_path: Path, rounds: int) -> tuple[RunPage, list[Event]]:
    """The page as a run's events up to round `rounds` came in, the next round's first visit running."""
    run = page(qtbot, tmp_path)
    events = list(scripted_events(tmp_path / "scripted.sqlite3", rounds))
    for event in events:
        run.controller.events.append(event)
    run._on_drain()
    return run, events


def test_the_grid_shows_each_visits_figure_and_marks_the_running_one(qtbot: QtBot, tmp_path: Path) -> None:
    run, events = fed(qtbot, tmp_path, 1)
    grid = run.recipe_panel.grid
    recipe = events[0].data
    assert grid.recipe == recipe["recipe"] == "quick-check"
    assert grid.rows[0] == ("baseline", "small-files") and ("vers=3", "seq-read") in grid.rows
    assert grid.table.columnCount() == 1 + 3  # the warm-up, then rounds 1 to min
    assert grid.table.horizontalHeaderItem(0).text() == "warm-up"
    # the stored figures (tests/unit/verdict_session.py): the baseline read 100 MB/s in round 1, async took 0.12
    # of the baseline's 4 ms on sync-4k
    assert grid.cell_text("baseline", "seq-read", 1) == "100 MB/s"
    assert grid.cell_text("async", "sync-4k", 1) == "0.481 ms"
    assert grid.cell_text("baseline", "seq-read", 0) == "300 MB/s"  # the warm-up, far off
    assert grid.cell_text("async", "sync-4k", 0) == ""  # the warm-up visits the baseline alone
    # the first visit of round 2 runs: its cells marked, nothing measured in them yet
    last = events[-1]
    assert last.kind == "visit" and last.data["round"] == 2
    running = grid.running_cells()
    assert running == [(last.data["config"], w, 2) for w in last.data["workloads"]]  # type: ignore[attr-defined]
    assert all(grid.cell_text(c, w, 2) == RUNNING for c, w, _ in running)
    # its figure comes in: the cell shows it, still marked until the next visit starts
    config, workload, _ = running[0]
    run._show(
        Event(
            "repeat",
            "",
            {
                "recipe": "quick-check",
                "config": config,
                "workload": workload,
                "round": 2,
                "value": 1800.0,
                "unit": "files/s",
            },
        )
    )
    assert grid.cell_text(config, workload, 2) == "1.8k files/s"
    assert grid.running_cells() == running
    run._on_run_done(RunOutcome(7, "completed", ""))
    assert grid.running_cells() == []


def test_the_grid_grows_a_column_for_each_round_past_the_minimum(qtbot: QtBot, tmp_path: Path) -> None:
    run, events = fed(qtbot, tmp_path, 4)
    grid = run.recipe_panel.grid
    low, high = events[0].data["rounds_min"], events[0].data["rounds_max"]
    assert low == 3 and grid.rounds_shown() == 5  # round 5 started
    assert grid.table.columnCount() == 1 + 5
    assert f"up to {high}" in grid.title.text()
    assert grid.cell_text("baseline", "seq-read", 4) == "100 MB/s"


def test_a_run_whose_comparisons_are_settled_shows_settled_in_the_rounds_it_leaves(
    qtbot: QtBot, tmp_path: Path
) -> None:
    run, events = fed(qtbot, tmp_path, 4)  # round 5's first visit running
    grid = run.recipe_panel.grid
    # settled at round 3, the first look, but measured to round 4, the first the carry-over check can judge
    (fourth,) = [e for e in events if e.kind == "verdicts" and e.data["round"] == 4]
    skipped = fourth.data["skipped"]
    assert isinstance(skipped, list) and ["async", "sync-4k"] in skipped and ["baseline", "seq-read"] not in skipped
    visited = {(e.data["config"], e.data["round"]) for e in events if e.kind == "visit"}
    assert ("async", 4) in visited and ("async", 5) not in visited
    for label, workload in (("async", "sync-4k"), ("async", "small-files"), ("baseline", "sync-4k")):
        assert grid.cell_text(label, workload, 5) == SETTLED
        assert grid.cell_text(label, workload, 4) != SETTLED
    assert grid.cell_text("async", "sync-4k", 3) == "0.468 ms"  # what it measured before it settled stays
    assert grid.cell_text("baseline", "seq-read", 4) == "100 MB/s"  # rsize=128K is still compared with it
    item = grid.table.item(grid.rows.index(("async", "sync-4k")), grid._column(5))
    assert item is not None and item.foreground().color() == text_colour("muted")  # a quiet mark
    assert "settled after round 4" in item.toolTip()
    # a later judgement un-settles async · sync-4k: from the next round it is measured again, the rest stays settled
    latest = [e for e in events if e.kind == "verdicts"][-1]
    again = [pair for pair in skipped if pair != ["async", "sync-4k"]]
    run._show(Event("verdicts", "", {**latest.data, "round": 5, "skipped": again}))
    run._show(Event("visit", "", {"recipe": "quick-check", "config": "async", "round": 6, "workloads": ["sync-4k"]}))
    assert grid.cell_text("async", "sync-4k", 6) == RUNNING
    assert grid.cell_text("async", "small-files", 6) == SETTLED


def test_the_verdicts_are_the_latest_rounds(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    panel = run.recipe_panel
    assert "after round 2" in panel.verdicts_title.text() and not panel._scroll.isVisible()
    run, events = fed(qtbot, tmp_path, 3)
    panel = run.recipe_panel
    verdicts = [e for e in events if e.kind == "verdicts"]
    assert [e.data["round"] for e in verdicts] == [1, 2, 3]
    latest = verdicts[-1].data["rows"]
    assert panel.rows == latest and panel.plot.rows == latest
    assert panel.rows != verdicts[0].data["rows"]  # the intervals narrowed since round 1
    assert panel._scroll.isVisible() and "round 3" in panel.verdicts_title.text()
    # each row named as the grid names it (the recipe said once, above)
    assert panel.plot.names[0].split("  [A/A]")[0] == f"{latest[0].label} · {latest[0].workload}"  # type: ignore[index]
    # a new run starts empty
    run.start()
    try:
        assert panel.rows == [] and not panel._scroll.isVisible()
    finally:
        run.plot.stop()
        run.timer.stop()


def test_after_round_one_no_plot_of_rows_without_an_estimate(qtbot: QtBot, tmp_path: Path) -> None:
    # round 1's verdicts have no ratio yet (a paired ratio needs two rounds): the panel says when they come
    run, events = fed(qtbot, tmp_path, 1)
    (first,) = [e for e in events if e.kind == "verdicts"]
    assert first.data["rows"] and all(row.ratio is None for row in first.data["rows"])  # type: ignore[attr-defined]
    panel = run.recipe_panel
    assert panel.rows == [] and not panel._scroll.isVisible()
    assert "after round 2" in panel.verdicts_title.text()


def test_cancel_opens_the_log_for_the_undo(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    run.start()
    try:
        assert not run.log.isVisible()
        qtbot.mouseClick(run.cancel_button, Qt.MouseButton.LeftButton)
        assert run.log.isVisible() and run.log_button.isChecked()
        assert "undoing every change, step by step" in run.log.toPlainText()
    finally:
        run._on_run_done(RunOutcome(7, "cancelled", "cancelled: every change was undone"))
    assert run.log.isVisible()


def test_a_failed_run_opens_the_log(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    run.start()
    run._on_job_failed("run", "the server went away")
    assert run.log.isVisible() and "the server went away" in run.log.toPlainText()


def test_a_new_recipe_starts_a_new_grid(qtbot: QtBot, tmp_path: Path) -> None:
    run, _ = fed(qtbot, tmp_path, 3)
    data = NFS_VERSIONS
    run._show(Event("recipe", "nfs-versions: NFS versions", data))
    grid, panel = run.recipe_panel.grid, run.recipe_panel
    assert "nfs-versions" in grid.title.text() and grid.rows == [("vers=4.2", "seq-read"), ("vers=3", "seq-read")]
    assert grid.table.columnCount() == 2  # no warm-up: rounds 1 and 2
    assert grid.cell_text("vers=3", "seq-read", 1) == "" and grid.running_cells() == []
    assert panel.rows == [] and "after round 2" in panel.verdicts_title.text()


def test_a_steps_marker_is_named_by_its_configuration_or_what_it_measures() -> None:
    from nfstune.ui.pages.run import MARKER_CHARS, marker_words

    assert marker_words("quick-check round 2: async") == "async"
    assert marker_words("ceilings: the network (iperf3 and ping) and the server's own disk") == "ceilings"
    assert marker_words("starting fio's server on 3 clients") == "starting fio's server o…"
    long = marker_words("many-clients round 1: " + "x" * 40)
    assert len(long) == MARKER_CHARS and long.endswith("…")


def test_the_wait_for_writeback_is_the_current_line_until_it_is_over(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
    run._show(Event("progress", "quick-check round 2: async", {"fraction": 0.4, "eta_s": 300}))
    run._show(Event("wait", "waiting for the server to finish writing back (120 MiB)"))
    assert run.current.text() == "quick-check round 2: async · waiting for the server to finish writing back (120 MiB)"
    run._show(Event("wait", "waiting for the server to finish writing back (64 MiB)"))
    assert run.current.text().endswith(" · waiting for the server to finish writing back (64 MiB)")
    run._show(Event("wait", ""))  # over: the run of that configuration goes on
    assert run.current.text() == "quick-check round 2: async"
