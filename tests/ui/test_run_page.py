"""The Run page's log: tall enough for a cancel's undo step by step, following its last line through a resize
until the admin scrolls up to read, and the outcome said once."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from nfstune.session.script import RunOutcome
from nfstune.ui.controller import Controller
from nfstune.ui.jobs import Prompter
from nfstune.ui.pages.run import LOG_MIN_LINES, RunPage


def page(qtbot: QtBot, tmp_path: Path) -> RunPage:
    widget = RunPage(Controller(Prompter(), store_path=tmp_path / "s.sqlite3"))
    qtbot.addWidget(widget)
    widget.resize(1024, 700)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_the_log_follows_its_last_line_through_a_resize_until_scrolled_up(qtbot: QtBot, tmp_path: Path) -> None:
    run = page(qtbot, tmp_path)
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
