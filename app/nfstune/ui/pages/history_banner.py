"""The banner that heads History while a pair has a regression still open (results/watch.py): what got slower, since
which session, and the likely cause, with a button to the pair's trend. Hidden while there is none. It only draws
what a worker read (history_jobs.read_regressions), as the page's job after each read of the list."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QVBoxLayout

from nfstune.recipes.model import Recipe
from nfstune.results.trend import day_text
from nfstune.results.watch_read import PairWatch
from nfstune.ui.pages.history_jobs import read_regressions
from nfstune.ui.tint import tint
from nfstune.ui.widgets.labels import wrapped_label
from nfstune.words import plural

Background = Callable[[str, Callable[[Any], Any], Callable[[Any], None], Callable[[str], None]], object]


def banner_texts(found: Sequence[PairWatch]) -> tuple[str, str]:
    """(heading, details) for the newest pair's regression, and how many more pairs have one."""
    first = found[0]
    regression = first.regression
    assert regression is not None  # read_regressions keeps only pairs with one
    heading = f"Slower since session {regression.session_id} ({day_text(regression.started_at)}): {first.pair.text}"
    details = regression.summary
    if len(found) > 1:
        others = len(found) - 1
        details += f" ({others} more {plural(others, 'pair')} slower too: see each one's Trend.)"
    return heading, details


class RegressionBanner(QFrame):
    show_trend = Signal(list)  # the pair's key (server key, client key, share), as the Trend's box holds it

    def __init__(self, background: Background, store_path: Path, recipes: Mapping[str, Recipe] | None) -> None:
        super().__init__()
        self._background, self._store_path, self._recipes = background, store_path, recipes
        # the palette's alternate base, not a style sheet: it follows a switch to dark (as the Recipes page's box)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.setAccessibleName("Open regression")
        self.heading = wrapped_label()
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        tint(self.heading, "bad")
        self.details = wrapped_label()
        self.trend_button = QPushButton("Show the &trend")
        self.trend_button.clicked.connect(self._on_trend_clicked)
        words = QVBoxLayout()
        words.setSpacing(2)  # a heading and its line, close: the banner takes as little of the list's room as it can
        words.addWidget(self.heading)
        words.addWidget(self.details)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addLayout(words, 1)
        layout.addWidget(self.trend_button)
        self._key: list[str] = []
        self.hide()

    def read(self, job_name: str) -> None:
        """Every pair's open regression read again on a worker thread, then shown."""
        store_path, recipes = self._store_path, self._recipes
        self._background(
            job_name,
            lambda _job: read_regressions(store_path, recipes),
            self.show_regressions,
            lambda _reason: None,  # a bug shows in the crash dialog; the list's own read says a store error
        )

    def show_regressions(self, found: Sequence[PairWatch]) -> None:
        """The newest pair's open regression, or hidden when no pair has one."""
        if not found:
            self.hide()
            return
        heading, details = banner_texts(found)
        self.heading.setText(heading)
        self.details.setText(details)
        self._key = list(found[0].pair.key)
        self.show()

    @Slot()
    def _on_trend_clicked(self) -> None:
        self.show_trend.emit(self._key)
