"""The results page on a real store: a tab per recipe, its verdict in words, per workload a chart and a table."""

from __future__ import annotations

import html
import math
import re
import statistics
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel, QScrollArea, QTableWidgetItem
from pytestqt.qtbot import QtBot

from nfstune import paths
from nfstune.advice.outcome import session_outcome
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.results.summary_text import results_text
from nfstune.store import Results, open_store
from nfstune.ui.main_window import STEPS, MainWindow
from nfstune.ui.pages.results import ResultsPage
from nfstune.ui.pages.results_details import (
    OPTIONS_COLUMN,
    TABLE_HEADER,
    VERDICT_COLUMN,
    WRAPPED_MIN_WIDTH,
    WorkloadBlock,
)
from tests.unit.test_load_summary import recipes as many_clients_recipes
from tests.unit.test_load_summary import store_many_clients
from tests.unit.test_summary import FIRST_SESSION, StoredRun, store_session

# the practice lab's server has 256 MiB of RAM: max_block_size 64 KiB, so every mount negotiates 65536
NEGOTIATED = "rw,relatime,vers={},rsize=65536,wsize=65536,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys"
V42, V3 = NEGOTIATED.format("4.2"), NEGOTIATED.format("3")
R128K = "vers=4.2,rsize=131072,wsize=131072"
# quick-check on the lab (hdd profile, 50 Mbit/s link), stopped by a failed vers=3 run
QUICK_CHECK: list[StoredRun] = [
    ("quick-check", "baseline", "small-files", "sync,wdelay", "vers=4.2", V42, [7.4, 7.9, 7.1, 7.6]),
    ("quick-check", "baseline", "sync-4k", "sync,wdelay", "vers=4.2", V42, [62.0, 58.0, 66.0, 60.0]),
    ("quick-check", "baseline", "seq-write", "sync,wdelay", "vers=4.2", V42, [5.61, 5.58, 5.66]),
    ("quick-check", "baseline", "seq-read", "sync,wdelay", "vers=4.2", V42, [5.84, 5.86, 5.83]),
    ("quick-check", "async", "small-files", "async", "vers=4.2", V42, [1.9, 2.0, 1.8, 1.9]),
    ("quick-check", "async", "sync-4k", "async", "vers=4.2", V42, [0.9, 1.1, 0.8, 1.0]),
    ("quick-check", "async", "seq-write", "async", "vers=4.2", V42, [5.7, 5.65, 5.72]),
    ("quick-check", "no_wdelay", "sync-4k", "sync,no_wdelay", "vers=4.2", V42, [61.0, 64.0, 59.0, 63.0]),
    ("quick-check", "no_wdelay", "seq-write", "sync,no_wdelay", "vers=4.2", V42, [5.6, 5.63, 5.59]),
    ("quick-check", "rsize=128K", "seq-write", "sync,wdelay", R128K, V42, [5.6, 5.55, 5.62]),
    ("quick-check", "rsize=128K", "seq-read", "sync,wdelay", R128K, V42, [5.85, 5.8, 5.82]),
    ("quick-check", "vers=3", "small-files", "sync,wdelay", "vers=3", V3, [9.8, 10.4, 9.9]),
    ("quick-check", "vers=3", "seq-write", "sync,wdelay", "vers=3", V3, []),  # failed
]
NO_WDELAY: list[StoredRun] = [
    ("no-wdelay", "sync,wdelay", "sync-4k", "sync,wdelay", "", "", [61.0, 64.0, 59.0, 63.0, 60.5]),
    ("no-wdelay", "sync,no_wdelay", "sync-4k", "sync,no_wdelay", "", "", [62.0, 60.0, 63.5, 61.0, 62.5]),
]

# a quick-check of interleaved rounds (round n of every configuration ran side by side), built so that each kind of
# verdict shows: async is far faster in every round; no_wdelay within 0.3 % of the baseline in every round; vers=3
# swings both ways; rsize=128K ran with the baseline's negotiated options (so it is the same configuration) yet
# came out ~20 % faster in every round
PAIRED: list[StoredRun] = [
    ("quick-check", "baseline", "small-files", "sync,wdelay", "vers=4.2", V42, [7.4, 7.9, 7.1, 7.6, 7.5, 7.3]),
    ("quick-check", "baseline", "sync-4k", "sync,wdelay", "vers=4.2", V42, [62.0, 58.0, 66.0, 60.0, 61.0, 63.0]),
    ("quick-check", "baseline", "seq-read", "sync,wdelay", "vers=4.2", V42, [5.84, 5.86, 5.83, 5.85, 5.80, 5.82]),
    ("quick-check", "async", "small-files", "async", "vers=4.2", V42, [1.9, 2.0, 1.8, 1.9, 1.95, 1.85]),
    ("quick-check", "no_wdelay", "sync-4k", "sync,no_wdelay", "vers=4.2", V42, [62.1, 57.9, 66.1, 60.1, 61.0, 62.9]),
    ("quick-check", "rsize=128K", "seq-read", "sync,wdelay", R128K, V42, [7.0, 7.05, 7.02, 6.98, 7.01, 6.99]),
    ("quick-check", "vers=3", "small-files", "sync,wdelay", "vers=3", V3, [5.0, 11.0, 6.5, 9.9, 7.0, 10.5]),
]


@pytest.fixture(scope="module")
def recipes() -> dict[str, Recipe]:
    loaded, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in loaded}


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


@pytest.fixture
def page(qtbot: QtBot) -> ResultsPage:
    widget = ResultsPage()
    qtbot.addWidget(widget)
    widget.resize(1366, 768)
    widget.show()
    return widget


def show(
    page: ResultsPage,
    results: Results,
    sid: int,
    recipes: Mapping[str, Recipe] | None = None,
    chosen: tuple[str, ...] | None = None,
) -> None:
    """The session as the run's end shows it: as stored, with its outcome worked out (here on the test's thread);
    `chosen`: the recipes the session was to run, when not the ones it stored."""
    stored = results.stored_session(sid)
    if chosen is not None:
        stored = replace(stored, recipes=chosen)
    page.show_session(stored, session_outcome(results, sid, recipes or {}), recipes)
    page.details_button.setChecked(True)  # the tests read the details: every sentence and table


def failed_session(results: Results) -> int:
    sid = store_session(results, QUICK_CHECK)
    results.end_session(sid, "failed", "vers=3 seq-write: mount.nfs: requested NFS version is not supported")
    return sid


def show_failed(page: ResultsPage, results: Results, recipes: Mapping[str, Recipe]) -> None:
    # block-size was chosen but never reached
    show(page, results, failed_session(results), recipes, chosen=("quick-check", "block-size"))


def cells(page: ResultsPage, recipe: str, workload: str, column: str) -> list[str]:
    table = page.tables[(recipe, workload)]
    return [table.item(row, TABLE_HEADER.index(column)).text() for row in range(table.rowCount())]


def test_a_tab_per_recipe_with_charts_and_tables(
    page: ResultsPage, results: Results, recipes: dict[str, Recipe]
) -> None:
    show_failed(page, results, recipes)
    assert [page.tabs.tabText(i) for i in range(page.tabs.count())] == ["Quick check", "Block size (rsize/wsize)"]
    assert page.header_label.text().startswith("Session 1: failed")
    assert "not supported" in page.header_label.text()
    charts = page.chart_widgets()
    assert len(charts) == 4  # one per workload of quick-check; block-size did not run
    small_files = charts[0]
    assert small_files.medians == [7.5, 1.9, 9.9]  # baseline first
    assert [len(dots.points()) for dots in small_files.dots] == [4, 4, 3]  # a dot per measured round
    assert small_files.plot.getAxis("bottom")._tickLevels[0] == [(0.0, "baseline"), (1.0, "async"), (2.0, "vers=3")]
    assert cells(page, "quick-check", "small-files", "Median") == ["7.50 s", "1.90 s", "9.90 s"]
    assert cells(page, "quick-check", "small-files", "Min\u2013max") == [
        "7.10\u20137.90",
        "1.80\u20132.00",
        "9.80\u201310.4",
    ]
    assert cells(page, "quick-check", "small-files", "Rounds") == ["4", "4", "3"]
    verdicts = cells(page, "quick-check", "small-files", VERDICT_COLUMN)
    assert verdicts[0] == "baseline"
    assert verdicts[1].startswith("faster\n3.9x faster (95 % CI ")
    options = cells(page, "quick-check", "seq-read", "Requested vs negotiated")[1]
    # ", " so that the narrow column can wrap; the export's own list cut to the options recipes change
    assert options.splitlines() == [
        f"requested {R128K}".replace(",", ", "),
        "negotiated vers=4.2, rsize=65536, wsize=65536",
        "export sync, wdelay",
    ]


def test_verdict_in_words_with_expectation_cap_and_failure(
    page: ResultsPage, results: Results, recipes: dict[str, Recipe]
) -> None:
    show_failed(page, results, recipes)
    verdict = page.verdict_labels["quick-check"].text()
    assert "small-files: async is 3.9x faster than baseline (95 % CI " in verdict
    no_wdelay = [line for line in verdict.split("<br>") if ": no_wdelay" in line]
    assert len(no_wdelay) == 2  # sync-4k and seq-write, each with the reason the recipe expects no difference
    assert all("\u2013 expected: current kernels apply write gathering to NFSv2 only" in line for line in no_wdelay)
    assert "rsize=128K: the server capped rsize and wsize at 65536 (64 KiB) where 131072 was requested" in verdict
    assert "vers=3, seq-write: failed with no completed round" in verdict
    assert cells(page, "quick-check", "seq-write", "Configuration")[-1] == "vers=3 (failed)"
    assert cells(page, "quick-check", "seq-write", "Median")[-1] == "no completed rounds"
    assert "Not run: the session ended (failed)" in page.verdict_labels["block-size"].text()


def test_no_wdelay_recipe_expected_no_difference(
    page: ResultsPage, results: Results, recipes: dict[str, Recipe]
) -> None:
    show(page, results, store_session(results, NO_WDELAY), recipes)
    verdict = page.verdict_labels["no-wdelay"].text()
    assert (
        "sync-4k: sync,no_wdelay: no difference that matters against sync,wdelay (within \u00b15 %; 95 % CI "
    ) in verdict
    # the recipe's expectation is said once, above the verdicts, not again after each of them
    assert "expected: current kernels" not in verdict
    shown = [label.text() for label in page.findChildren(QLabel) if label.isVisibleTo(page)]
    assert sum("current kernels apply write gathering to NFSv2 only" in text for text in shown) == 1
    assert cells(page, "no-wdelay", "sync-4k", VERDICT_COLUMN)[1].startswith("no difference that matters\n")


def test_without_recipes_the_ids_name_the_tabs_and_charts_save(
    page: ResultsPage, results: Results, tmp_path: Path
) -> None:
    show(page, results, store_session(results, FIRST_SESSION))
    assert [page.tabs.tabText(i) for i in range(page.tabs.count())] == ["sync-vs-async", "block-size"]
    assert "async is 4.3x faster than sync" in page.verdict_labels["sync-vs-async"].text()
    seq_read = page.chart_widgets()[-1]
    assert seq_read.medians == [30.9, 89.0]
    target = tmp_path / "chart.png"
    seq_read.save_png(target)
    assert QImage(str(target)).width() > 0
    show(page, results, store_session(results, NO_WDELAY))  # a second session replaces the first
    assert page.tabs.count() == 1 and len(page.chart_widgets()) == 1


def test_save_charts_as_png_writes_one_file_per_chart(
    page: ResultsPage, results: Results, tmp_path: Path, qtbot: QtBot
) -> None:
    show(page, results, store_session(results, FIRST_SESSION))
    assert page.save_png_button.isEnabled()
    out = tmp_path / "pngs"
    out.mkdir()
    page.ask_directory = lambda *_: str(out)
    qtbot.mouseClick(page.save_png_button, Qt.MouseButton.LeftButton)
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == len(page.chart_widgets()) == 3
    assert written[-1] == "03-block-size-seq-read.png"
    assert all(QImage(str(out / name)).width() > 100 for name in written)
    assert "3 PNG files saved" in page.header_label.text()


def paired_session(results: Results) -> int:
    # what makes the rounds paired: the session ran a plan of interleaved rounds
    return store_session(results, PAIRED, plan='{"seed": 7}')


def verdict_cells(page: ResultsPage, workload: str) -> dict[str, QTableWidgetItem]:
    table = page.tables[("quick-check", workload)]
    column = TABLE_HEADER.index(VERDICT_COLUMN)
    return {table.item(row, 0).text(): table.item(row, column) for row in range(table.rowCount())}


def test_verdict_column_shows_the_kind_and_the_ci_with_the_sentence_as_tooltip(
    page: ResultsPage, results: Results, recipes: dict[str, Recipe]
) -> None:
    show(page, results, paired_session(results), recipes)
    small_files = verdict_cells(page, "small-files")
    assert small_files["baseline"].text() == "baseline"
    kind, ci = small_files["async"].text().split("\n")
    assert kind == "faster" and small_files["async"].font().bold()
    # the estimate is the geometric mean of the per-round speed ratios (time: baseline / async): about 3.9x
    base, fast = [r[-1] for r in PAIRED if r[2] == "small-files"][:2]
    mean = math.exp(statistics.fmean(math.log(b / a) for b, a in zip(base, fast, strict=True)))
    found = re.fullmatch(r"([\d.]+)x faster \(95 % CI ([\d.]+)x to ([\d.]+)x faster\)", ci)
    assert found is not None, ci
    estimate, low, high = map(float, found.groups())
    assert estimate == pytest.approx(mean, abs=0.06) and low < mean < high
    assert small_files["async"].toolTip().startswith("async is ") and "95 % CI" in small_files["async"].toolTip()

    kind, ci = small_files["vers=3"].text().split("\n")
    assert kind == "not settled" and "so far (95 % CI " in ci and " slower to " in ci and ci.endswith(" faster)")
    tip = small_files["vers=3"].toolTip()
    assert "not settled" in tip and ("more rounds" in tip or "larger files" in tip)  # what would settle it

    kind, ci = verdict_cells(page, "sync-4k")["no_wdelay"].text().split("\n")
    assert kind == "no difference that matters" and "(95 % CI " in ci
    kind, ci = verdict_cells(page, "seq-read")["rsize=128K"].text().split("\n")
    assert kind == "unreliable" and ci.startswith("should be the same, came out 20 % faster (95 % CI")
    assert "not reliable" in verdict_cells(page, "seq-read")["rsize=128K"].toolTip()


def test_the_detail_quotes_every_sentence_effects_first(
    page: ResultsPage, results: Results, recipes: dict[str, Recipe]
) -> None:
    show(page, results, paired_session(results), recipes)
    detail = page.verdict_labels["quick-check"].text()
    tips = {
        label: cell.toolTip()
        for workload in ("small-files", "sync-4k", "seq-read")
        for label, cell in verdict_cells(page, workload).items()
        if label != "baseline"
    }
    for tip in tips.values():
        assert html.escape(tip) in detail  # the full sentence, and what would settle it
    positions = [detail.index(html.escape(tips[label])) for label in ("async", "rsize=128K", "vers=3", "no_wdelay")]
    assert positions == sorted(positions)  # faster, then unreliable, then not settled, then no difference
    assert "significant" not in detail


@pytest.mark.parametrize(("size", "side_by_side"), [((1024, 700), False), ((1280, 720), False), ((1920, 1080), True)])
def test_every_table_fits_the_window_or_scrolls_sideways_without_cutting_text(
    qtbot: QtBot,
    tmp_path: Path,
    results: Results,
    recipes: dict[str, Recipe],
    size: tuple[int, int],
    side_by_side: bool,
) -> None:
    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_path=tmp_path / "window.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(window)
    show(window.results_page, results, paired_session(results), recipes)
    window.stack.setCurrentIndex(STEPS.index("Results"))
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    scroll = window.results_page.tabs.currentWidget()
    assert isinstance(scroll, QScrollArea)
    tables = list(window.results_page.tables.values())
    qtbot.waitUntil(lambda: all(t.width() < scroll.viewport().width() for t in tables))  # laid out in the page
    for table in tables:
        header = table.horizontalHeader()
        for column, name in enumerate(TABLE_HEADER):
            if name in (VERDICT_COLUMN, OPTIONS_COLUMN):
                assert header.sectionSize(column) >= WRAPPED_MIN_WIDTH, name  # wrapped, not squeezed
            else:
                assert header.sectionSize(column) >= table.sizeHintForColumn(column), name  # whole figures
        for row in range(table.rowCount()):
            assert table.rowHeight(row) >= table.sizeHintForRow(row)  # every wrapped line shows
        rows_height = header.height() + table.verticalHeader().length()
        assert table.viewport().height() >= rows_height - header.height()  # every row shows: the page scrolls
        if header.length() > table.viewport().width():  # wider than the window: the table scrolls sideways
            assert table.horizontalScrollBar().isVisible()
        left = table.mapTo(scroll.widget(), QPoint(0, 0)).x()
        assert left + table.width() <= scroll.viewport().width()  # nothing runs off the page's right edge
    # the chart beside its table only where both fit; above it otherwise, so the table gets the page's width
    blocks = scroll.widget().findChildren(WorkloadBlock)
    assert len(blocks) == len(tables) and all(block.side_by_side is side_by_side for block in blocks)


def test_a_recipes_notes_are_shown_under_its_verdicts(
    page: ResultsPage, results: Results, recipes: dict[str, Recipe]
) -> None:
    """block-size ran in this session, stored without host facts: its one unconditional note is shown, the figure
    it quotes unknown; the recipes without notes show none."""
    show(page, results, store_session(results, FIRST_SESSION), recipes)
    assert set(page.note_labels) == {"block-size"}
    text = page.note_labels["block-size"].text()
    assert text.startswith("Note: The Linux client never uses more than 1 MiB") and "(unknown here)" in text
    session = results.session(store_session(results, FIRST_SESSION))
    assert "\nblock-size: notes\n  - The Linux client never uses more than 1 MiB" in results_text(session, recipes)


def test_a_new_session_frees_the_last_ones_tabs(page: ResultsPage, results: Results, qtbot: QtBot) -> None:
    """The leak tools/bench/desktop_memory.py found: the last session's charts and tables stayed alive, hidden."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from nfstune.ui.widgets.result_chart import ResultChart

    sid = store_session(results, FIRST_SESSION)
    for _ in range(3):
        show(page, results, sid)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert len(page.findChildren(ResultChart)) == len(page.chart_widgets()) == 3  # one session's charts, not 9


def test_the_results_page_exports_the_report_history_and_nfstune_report_write(
    qtbot: QtBot, tmp_path: Path, recipes: dict[str, Recipe]
) -> None:
    from nfstune.report.html import session_html

    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_path=tmp_path / "window.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(window)
    page = window.results_page
    assert not page.export_report_button.isEnabled()  # no session yet
    sid = store_session(window.results_store, FIRST_SESSION)
    show(page, window.results_store, sid, recipes)
    out = tmp_path / "sent.html"
    asked: list[str] = []

    def dialog(_parent: object, title: str, suggested: str, _filter: str) -> tuple[str, str]:
        asked.append(f"{title} | {suggested}")
        return str(out), ""

    window.history_page.ask_save_path = dialog
    page.export_report_button.click()
    qtbot.waitUntil(lambda: "report written to" in page.header_label.text(), timeout=30_000)
    assert asked == [f"Export session {sid} as HTML report | {Path.home()}/nfstune-session-{sid}.html"]
    assert str(out) in page.header_label.text()
    by_id = {r.id: r for r in window.recipes}
    assert out.read_text() == session_html(window.results_store, sid, by_id)  # what `nfstune report N --html` writes


def test_the_results_page_shows_the_scaling_on_the_recipes_tab(qtbot: QtBot, tmp_path: Path) -> None:
    results = Results(open_store(tmp_path / "results.db"))
    sid = store_many_clients(results)
    page = ResultsPage()
    qtbot.addWidget(page)
    page.resize(1024, 700)
    show(page, results, sid, many_clients_recipes())  # type: ignore[arg-type]
    text = page.scaling_labels["many-clients"].text()
    assert text.startswith("<b>Several clients at once</b>")
    assert "seq-write, sync: the NAS served" in text and "client3" in text


def test_the_ceilings_are_shown_above_the_tabs_with_what_the_latencies_bound(
    page: ResultsPage, results: Results
) -> None:
    from nfstune.results.latencies import LATENCY_NOTE

    sid = store_session(results, NO_WDELAY)
    results.add_baseline(sid, kind="network", direction="to-server", mb_per_s=41.5, seconds=5, size=10**8, raw="")
    results.add_latency(
        sid,
        kind="round-trip",
        tool="ping",
        mean_ms=1.9,
        median_ms=1.34,
        min_ms=0.536,
        max_ms=5.16,
        count=20,
        raw_output="",
    )
    results.add_latency(
        sid,
        kind="sync-write",
        tool="dd",
        mean_ms=61.1,
        median_ms=None,
        min_ms=None,
        max_ms=None,
        count=32,
        raw_output="",
    )
    show(page, results, sid)
    assert page.ceilings_label.isVisible()
    shown = html.unescape(re.sub(r"<[^>]+>", " ", page.ceilings_label.text()))
    assert "network (iperf3, client → server): 41.5 MB/s" in shown
    assert "network round trip (ping, client → server → client): 1.34 ms (median of 20 replies" in shown
    assert "server disk, one 4 KiB synchronous write (dd, O_DSYNC): 61.1 ms (mean of 32 writes)" in shown
    assert LATENCY_NOTE in shown
    show(page, results, store_session(results, NO_WDELAY))  # a session that measured none
    assert not page.ceilings_label.isVisible() and page.ceilings_label.text() == ""


def test_the_answer_and_what_limits_each_workload_stand_above_the_tabs(
    page: ResultsPage, results: Results, recipes: dict[str, Recipe]
) -> None:
    sid = store_session(results, FIRST_SESSION)
    results.add_baseline(sid, kind="network", direction="from-server", mb_per_s=95.0, seconds=5, size=10**8, raw="")
    show(page, results, sid, recipes)
    assert page.answer_label.isVisible() and page.diagnosis_label.isVisible()
    answer = page.answer_label.text()
    assert "<b>Change: keep sync (the recommended export); the one faster setting found is async" in answer
    assert "Gain: small-files: async is 4." in answer and "Risk: With async, a crash" in answer
    assert "<b>seq-read</b>: Reads ran at 94 % of the network&#x27;s 95 MB/s" in page.diagnosis_label.text()
    pictures = page.session_pictures.pictures_box
    above = pictures.indexOf(page.answer_label) == 0 and page.session_pictures.pictures.isAncestorOf(page.answer_label)
    assert above and page.details.isAncestorOf(page.tabs)
    show(page, results, store_session(results, NO_WDELAY), recipes)  # another session: its own answer
    assert page.answer_label.isVisible() and page.answer_label.text() != answer


def test_the_run_s_end_shows_what_its_job_read_and_judged(
    qtbot: QtBot, tmp_path: Path, recipes: dict[str, Recipe], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's job hands over the stored session and its outcome: the window shows them, reading nothing."""
    from nfstune.session.script import RunOutcome

    settings = QSettings(str(tmp_path / "nfstune.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store_path=tmp_path / "window.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(window)
    store = window.results_store
    sid = store_session(store, FIRST_SESSION)
    by_id = {r.id: r for r in window.recipes}
    ended = RunOutcome(sid, "completed", outcome=session_outcome(store, sid, by_id))  # as the run's job made them
    window.controller.stored = store.stored_session(sid)

    def no_read(*_args: object) -> None:
        raise AssertionError("the GUI thread read the store at the run's end")

    monkeypatch.setattr(store, "session", no_read)
    monkeypatch.setattr(store, "stored_session", no_read)
    window._on_run_finished(ended)
    page = window.results_page
    assert page.header_label.text() == f"Session {sid}: completed"
    assert [page.tabs.tabText(i) for i in range(page.tabs.count())] == [
        "sync vs async export",
        "Block size (rsize/wsize)",
    ]
    assert "async is 4.3x faster than sync" in page.verdict_labels["sync-vs-async"].text()
    assert page.answer_label.isVisibleTo(page) and "Change: " in page.answer_label.text()
