"""The desktop switches between light and dark while nfstune runs: every text coloured by what it means (a run's
warning, a connection error, a failure, a muted note, a verdict's colour in a table) takes the new scheme's colour,
one that reads on the new window, after each switch; none keeps the other scheme's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QTableWidget, QWidget
from pytestqt.qtbot import QtBot

from nfstune import paths
from nfstune.advice.outcome import session_outcome
from nfstune.advice.recommend import Measured, recommend
from nfstune.facts.probe_output import parse_probe_output
from nfstune.recipes.loader import load_recipes
from nfstune.session.admin import Event
from nfstune.store import Results, open_store
from nfstune.ui import theme
from nfstune.ui.controller import ConnState
from nfstune.ui.main_window import MainWindow
from nfstune.ui.pages.preflight import verdict
from tests.ui.scripted_run import NFS_VERSIONS
from tests.ui.theme_checks import nfstune_app, wcag
from tests.unit.verdict_session import store_verdict_session


@pytest.fixture
def app(qapp: QApplication) -> Iterator[QApplication]:
    yield from nfstune_app(qapp)


Scheme = Qt.ColorScheme
AA_TEXT = 4.5  # WCAG 2 AA for body text
MEANINGS = ("good", "bad", "warning", "muted")
PROBES = Path(__file__).parent.parent / "captures" / "probe"


def switch(app: QApplication, scheme: Scheme) -> None:
    """The desktop switching its scheme (the offscreen platform keeps none: its signal is sent instead); the
    palette's change reaches the widgets by posted events."""
    app.styleHints().setColorScheme(scheme)
    if app.styleHints().colorScheme() != scheme:
        app.styleHints().colorSchemeChanged.emit(scheme)
    app.processEvents()
    assert theme.is_dark() == (scheme == Scheme.Dark)


def ground(widget: QWidget) -> QColor:
    """What the widget's text is drawn on: the nearest panel that fills its background, else the window."""
    w: QWidget | None = widget
    while w is not None:
        if w.autoFillBackground() or w.isWindow():
            return w.palette().color(w.backgroundRole())
        w = w.parentWidget()
    raise AssertionError("no window")


def text_of(widget: QWidget) -> QColor:
    return widget.palette().color(widget.foregroundRole())


@pytest.fixture
def window(app: QApplication, qtbot: QtBot, tmp_path: Path) -> MainWindow:
    """The main window, light, each page showing what it colours by meaning."""
    switch(app, Scheme.Light)
    settings = QSettings(str(tmp_path / "n.ini"), QSettings.Format.IniFormat)
    results = Results(open_store(tmp_path / "s.sqlite3"))
    window = MainWindow(store_path=tmp_path / "s.sqlite3", scale="small", settings=settings)
    qtbot.addWidget(window)
    window.resize(1024, 700)
    window.show()
    # Run: a warning, the grid's rounds, why the recipe stopped
    run = window.run_page
    run._show(Event("warning", "the client's clock jumped: rates near it are unreliable"))
    run._show(Event("recipe", "nfs-versions: NFS versions", NFS_VERSIONS))
    run._show(Event("verdicts", "verdicts", {"rows": [], "why": "every comparison settled", "round": 2}))
    # Connect: both hosts missing, the server's connection failed
    window.connect_page.connect_button.click()
    window.connect_page.panels["server"].show_state(ConnState.FAILED, "connection refused")
    # Preflight: the lab's hosts
    window.preflight_page.show_facts(
        parse_probe_output((PROBES / "lab-nas-root.txt").read_text()),
        parse_probe_output((PROBES / "lab-client-root.txt").read_text()),
        server_label="nas",
        client_label="client",
        exports=["/export"],
        share="/export",
        client_mounts_of_server=[],
    )
    # Results: a session with verdicts of every kind, ended in a failure
    loaded, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    recipes = {r.id: r for r in loaded}
    sid = store_verdict_session(results)
    results.end_session(sid, "failed", "the client stopped answering")
    window.results_page.show_session(results.stored_session(sid), session_outcome(results, sid, recipes), recipes)
    # Recommendation: an option that changes, and Apply that worked
    page = window.recommendation_page
    rec = recommend(share="/srv", server="nas", exports="/srv h(rw,async)\n", measured=Measured())
    page.show_recommendation(rec, server_label="nas", client_label="laptop")
    page.set_apply_state("Applied and verified", True)
    return window


def tinted(window: MainWindow) -> list[tuple[str, QWidget, str]]:
    """(what, the widget, what its text means) for each text the pages colour by meaning."""
    run, connect, preflight = window.run_page, window.connect_page, window.preflight_page
    line = next(w for w in preflight.findChildren(QLabel) if w.accessibleName() == "Preflight verdict")
    card = window.recommendation_page.exports_box
    results = window.results_page
    assert card.was.isVisibleTo(card)
    return [
        ("run warning", run.warnings, "warning"),
        ("why the recipe stopped", run.recipe_panel.verdicts_note, "muted"),
        ("connect error", connect.error, "bad"),
        ("server state", connect.panels["server"].state, "bad"),
        ("preflight verdict", line, verdict(preflight._problems)[1]),
        ("host card summary", preflight.server_card.summary, "muted"),
        ("results header", results.header_label, "bad"),
        ("line as it was", card.was, "muted"),
        ("apply state", window.recommendation_page.apply_state, "good"),
    ]


def coloured_cells(window: MainWindow) -> list[QColor]:
    """The colours of the Results tables' cells that have one of their own (verdicts, failures)."""
    found = []
    for table in window.results_page.findChildren(QTableWidget):
        for row in range(table.rowCount()):
            for column in range(table.columnCount()):
                item = table.item(row, column)
                if item is not None and item.foreground() != QBrush():
                    found.append(item.foreground().color())
    return found


def test_every_meaning_coloured_text_follows_a_live_switch(app: QApplication, window: MainWindow) -> None:
    cells_before = coloured_cells(window)
    assert cells_before, "the session's tables colour no cell: nothing to check"
    wrong = []  # every text that kept a colour, not only the first
    for scheme in (Scheme.Light, Scheme.Dark, Scheme.Light):
        switch(app, scheme)
        wanted = {m: theme.text_colour(m, scheme).name() for m in MEANINGS}
        for what, widget, meaning in tinted(window):
            shown = text_of(widget)
            if shown.name() != wanted[meaning] or wcag(shown, ground(widget)) < AA_TEXT:
                wrong.append((scheme.name, what, shown.name(), ground(widget).name()))
        cells = coloured_cells(window)
        assert len(cells) == len(cells_before)
        base = app.palette().color(QPalette.ColorRole.Base)
        for cell in cells:
            if cell.name() not in wanted.values() or wcag(cell, base) < AA_TEXT:
                wrong.append((scheme.name, "a Results table cell", cell.name(), base.name()))
    assert wrong == []


def test_rich_texts_are_drawn_again_in_the_new_schemes_colours(app: QApplication, window: MainWindow) -> None:
    grid_title = window.run_page.recipe_panel.grid.title
    status = window.recommendation_page.exports_box.status
    for scheme in (Scheme.Dark, Scheme.Light):
        switch(app, scheme)
        other = Scheme.Light if scheme == Scheme.Dark else Scheme.Dark
        for what, label in (("grid's rounds", grid_title), ("card's status", status)):
            assert theme.text_colour("muted", scheme).name() in label.text(), (scheme, what)
            assert theme.text_colour("muted", other).name() not in label.text(), (scheme, what)


def test_the_results_headings_and_the_hosts_box_read_after_a_switch(app: QApplication, window: MainWindow) -> None:
    pictures = window.results_page.session_pictures
    hosts = window.recipes_page.hosts_label
    for scheme in (Scheme.Dark, Scheme.Light):
        switch(app, scheme)
        heading = pictures.verdict_heading
        assert wcag(text_of(heading), ground(heading)) >= AA_TEXT, scheme
        box = hosts.grab().toImage().pixelColor(hosts.width() // 2, 2)  # inside its border, above the words
        window_colour = app.palette().color(QPalette.ColorRole.Window)
        assert (box.lightnessF() < 0.5) == (window_colour.lightnessF() < 0.5), (scheme, box.name())


def test_the_history_list_repaints_its_statuses_on_a_switch(
    app: QApplication, qtbot: QtBot, window: MainWindow
) -> None:
    model = window.history_page.model
    window.tabs.setCurrentWidget(window.history_page)  # shown, it reads the stored sessions
    qtbot.waitUntil(lambda: model.rowCount() > 0)  # the stored session, read on a worker thread
    status = 2
    assert model.index(0, status).data() == "failed"
    with qtbot.waitSignal(model.dataChanged, timeout=2000) as changed:
        switch(app, Scheme.Dark)
    top, bottom, roles = changed.args
    assert top.column() <= status <= bottom.column() and Qt.ItemDataRole.ForegroundRole in roles
    shown = QColor(model.index(0, status).data(Qt.ItemDataRole.ForegroundRole))
    assert shown.name() == theme.text_colour("bad", Scheme.Dark).name()
