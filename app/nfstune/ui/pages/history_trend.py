"""History's Trend tab: pick a server, client and share (those the store has completed sessions of; by default the
selected session's), and see each workload's headline figure per session over time, with the settings in force
marked where they changed (results/trend.py, ui/widgets/trend_chart.py), and what changed listed in words below.

The store is read on a worker thread (the page's `background`, a connection of its own), and only while the tab is
shown: a pair can have thousands of sessions, and History's list must not wait for them."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QTextBrowser, QVBoxLayout, QWidget

from nfstune.recipes.model import Recipe
from nfstune.results.trend import WorkloadTrend, changes_by_session, day_text, mark_numbers
from nfstune.results.watch import SessionChange, change_letter, change_lines
from nfstune.results.watch_read import read_pair
from nfstune.store import HostPair, Results, open_store
from nfstune.ui.jobs import CRASHED
from nfstune.ui.widgets.tab_order import insert_in_tab_order
from nfstune.words import count

if TYPE_CHECKING:
    from nfstune.ui.widgets.trend_chart import TrendChart

JOB = "history-trend"  # each read's job is named JOB-<n>: one is delivered before the queue lets its name go
NO_SESSIONS = "No completed session yet: a trend needs sessions of one server, client and share."

Background = Callable[[str, Callable[[Any], Any], Callable[[Any], None], Callable[[str], None]], object]
PairKey = tuple[str, str, str]


@dataclass(frozen=True)
class TrendRead:
    """What a worker read: every pair, the one shown (None: no completed session anywhere) and its trends."""

    pairs: list[HostPair]
    pair: HostPair | None
    trends: list[WorkloadTrend]
    change_points: list[SessionChange] = field(default_factory=list)


def read_trend(
    results: Results, chosen: PairKey | None, session_id: int | None, recipes: Mapping[str, Recipe] | None
) -> TrendRead:
    """The pair `chosen`, else the pair of `session_id` when it has a completed session, else the pair used last."""
    pairs = results.host_pairs()
    by_key = {p.key: p for p in pairs}
    of_session = results.pair_of(session_id) if session_id is not None else None
    pair = by_key.get(chosen) if chosen else None
    if pair is None and of_session is not None:
        pair = by_key.get(of_session.key)
    if pair is None and pairs:
        pair = pairs[0]
    if pair is None:
        return TrendRead(pairs, None, [])
    read = read_pair(results, pair, recipes)
    return TrendRead(pairs, pair, read.trends, read.changes)


LEGEND = (
    "Line: each session's baseline median (the selected session larger); faint dots: its rounds; bar: the "
    "median's 95 % interval, from 6 rounds up."
)


def change_points_html(change_points: Sequence[SessionChange]) -> str:
    """Each change point, lettered as its marker on the charts: what moved, since when, the likely cause."""
    if not change_points:
        return html.escape(change_lines([])[0])
    items = "".join(
        f"<br><b>{change_letter(i)}.</b> {html.escape(c.headline)} <i>{html.escape('; '.join(c.lines))}</i>"
        for i, c in enumerate(change_points)
    )
    return f"Solid lines, lettered: change points, where a figure moved to another level and stayed there.{items}"


def changes_html(trends: Sequence[WorkloadTrend], change_points: Sequence[SessionChange] = ()) -> str:
    """The change points, then the legend, then each session where the settings in force changed, numbered as its
    dashed lines, every change once."""
    found = change_points_html(change_points) + "<br>"
    changed = changes_by_session(trends)
    if not changed:
        return f"{found}{LEGEND} No change of the settings in force between these sessions."
    numbers = mark_numbers(trends)
    # the numbers written out, not a list's own: they are what a dashed line's label says, and what is copied
    items = "".join(
        f"<br><b>{numbers[sid]}.</b> session {sid}, {html.escape(day_text(started))}: {html.escape('; '.join(texts))}"
        for sid, started, texts in changed
    )
    return f"{found}{html.escape(LEGEND)} Dashed lines, numbered: where the settings in force changed.{items}"


class TrendPanel(QWidget):
    def __init__(
        self,
        background: Background,
        store_path: Path,
        recipes: Mapping[str, Recipe] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._background, self._store_path, self._recipes = background, store_path, recipes
        self._session: int | None = None  # the session History selected
        self._chosen: PairKey | None = None  # a pair picked in the box, until another session is selected
        self._shown: TrendRead | None = None
        self._loading = False
        self._again = False  # asked for while a read ran: read once more when it ends
        self._reads = 0
        self.pairs = QComboBox()
        self.pairs.setAccessibleName("Server, client and share")
        self.pairs.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.pairs.activated.connect(self._on_pairs_activated)
        pairs_label = QLabel("Hosts and sh&are:")
        pairs_label.setBuddy(self.pairs)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self._chart: TrendChart | None = None  # made when first needed (`chart`), into this place:
        self._chart_place = QVBoxLayout()
        self._chart_place.setContentsMargins(0, 0, 0, 0)
        self.changes = QTextBrowser()
        self.changes.setMaximumHeight(110)
        self.changes.setTabChangesFocus(True)
        row = QHBoxLayout()
        row.addWidget(pairs_label)
        row.addWidget(self.pairs)
        row.addWidget(self.status, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addLayout(self._chart_place, 1)
        layout.addWidget(self.changes)

    @property
    def chart(self) -> TrendChart:
        """The charts, made the first time they are needed (the tab shown) rather than with the window, which then
        need not import pyqtgraph (0.2-0.3 s of its start; issue 31)."""
        if self._chart is None:
            from nfstune.ui.widgets.trend_chart import TrendChart

            self._chart = TrendChart()
            self._chart.setAccessibleName("Trend charts")
            self._chart_place.addWidget(self._chart)
            self._chart.show()  # at once in a panel shown (a widget added to a shown one waits for the event loop)
            # where they were in the keyboard's order when the panel made them first: between the box and the list
            insert_in_tab_order(self.pairs, self._chart, self.changes)
        return self._chart

    # --- what History tells it ------------------------------------------------------------------------------

    def follow_session(self, session_id: int | None) -> None:
        """The selected session: its pair is shown (unless it is the one shown already), its points drawn larger."""
        if session_id == self._session:
            return
        self._session = session_id
        self._chosen = None
        if self._chart is not None:  # else the charts are made with this session selected
            self._chart.set_selected(session_id)
        if self._shown is not None and session_id in self._sessions_shown():
            return  # the same pair: nothing to read
        self.reload()

    def show_pair(self, key: tuple[str, ...]) -> None:
        """That pair's trend (the banner's button), until another session is selected."""
        self._chosen = (key[0], key[1], key[2])
        self.reload()

    def reload(self) -> None:
        """Read the store again (new sessions, another pair); now if the tab shows, else when it is shown."""
        self._shown = None if not self.isVisible() else self._shown
        if not self.isVisible():
            return
        if self._loading:
            self._again = True
            return
        self._loading = True
        self.status.setText("Reading the sessions…")
        chosen, session, recipes, path = self._chosen, self._session, self._recipes, self._store_path

        def work(_job: object) -> TrendRead:  # on a worker thread, with its own connection to the store
            conn = open_store(path)
            try:
                return read_trend(Results(conn), chosen, session, recipes)
            finally:
                conn.close()

        self._reads += 1
        self._background(f"{JOB}-{self._reads}", work, self._on_read, self._on_read_failed)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        _ = self.chart  # made as the tab shows, empty until the read below
        # read each time it is shown, as History's list is: a run may have ended meanwhile (500 sessions: ~0.1 s)
        self.reload()

    # --- slots ----------------------------------------------------------------------------------------------

    @Slot(int)
    def _on_pairs_activated(self, index: int) -> None:
        key = self.pairs.itemData(index)
        if self._shown is not None and self._shown.pair is not None and key == self._shown.pair.key:
            return
        self._chosen = tuple(key)
        self.reload()

    def _on_read(self, read: TrendRead) -> None:
        self._loading = False
        self._show(read)
        if self._again:  # the selection or the box changed meanwhile
            self._again = False
            self.reload()

    def _on_read_failed(self, reason: str) -> None:
        self._loading = self._again = False
        # a bug shows in the crash dialog; a known error (the store unreadable) is said here
        self.status.setText("Could not read the trend" + ("" if reason == CRASHED else f": {reason}"))

    def _show(self, read: TrendRead) -> None:
        self._shown = read
        self.pairs.blockSignals(True)
        self.pairs.clear()
        for pair in read.pairs:
            self.pairs.addItem(f"{pair.text} ({count(pair.sessions, 'session')})", list(pair.key))
        if read.pair is not None:
            self.pairs.setCurrentIndex([p.key for p in read.pairs].index(read.pair.key))
        self.pairs.blockSignals(False)
        self.chart.set_trends(read.trends, self._session, read.change_points)
        if read.pair is None:
            self.status.setText(NO_SESSIONS)
            self.changes.setPlainText("")
            return
        shown = len(self._sessions_shown())
        newest = f"the newest {shown} of its {read.pair.sessions}" if shown < read.pair.sessions else f"{shown}"
        self.status.setText(f"{newest} completed session{'s' if shown != 1 else ''}, the oldest left")
        self.changes.setHtml(changes_html(read.trends, read.change_points))

    def _sessions_shown(self) -> set[int]:
        if self._shown is None:
            return set()
        return {p.session_id for t in self._shown.trends for p in t.points}
