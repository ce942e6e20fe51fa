"""A session as pictures first, as Results and History show it: the answer in three lines in large type (a check
session's: the check's word, its picture, widgets/check_plot.py, as the check's dialog draws it, and the likely
cause in one line, in place of the verdicts), then the
verdict plot (every comparison's ratio and interval against the band where no difference matters) and what limits
each workload (its figure against each ceiling), and below them the page's own details (sentences, tables) behind a
Details disclosure. Everything drawn comes from the session's outcome, judged off the GUI thread: the rows and bars
are read from it here (results.verdict_rows, results.limit_bars), nothing is judged."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from nfstune.advice.outcome import SessionOutcome
from nfstune.recipes.model import Recipe
from nfstune.results.check_text import MEANING, CheckShown
from nfstune.results.limit_bars import LimitBars, file_count, limit_bars, stored_ceilings
from nfstune.results.verdict_rows import VerdictRow, margins_of, verdict_rows
from nfstune.ui.widgets.disclosure import Disclosure
from nfstune.ui.widgets.scrolled import scrolled

if TYPE_CHECKING:
    from nfstune.ui.widgets.check_plot import CheckPlot
    from nfstune.ui.widgets.limit_bars import LimitBarsView
    from nfstune.ui.widgets.verdict_plot import VerdictPlot

# a light box with its own dark text: it reads the same in a dark window; a check that did not hold in red
ANSWER_STYLE = "border-left: 4px solid #1b7f2a; background: #f3f8f3; color: #202020; padding: 8px 12px;"
BAD_ANSWER_STYLE = "border-left: 4px solid #b3261e; background: #fbf1f0; color: #202020; padding: 8px 12px;"
# a check's word in the colour of its meaning, on the box's own light ground
WORD_COLOURS = {"good": "#1b7f2a", "bad": "#b3261e"}
VERDICT_HEADING = "The verdicts: each configuration against the one it is compared with"
LIMITS_HEADING = (
    "What limits each workload: the baseline's figure against each ceiling it cannot pass (MB/s), or each wait it "
    "cannot avoid (ms each)"
)
PICTURES_SHARE = 0.3  # of the splitter's height, once the details are open
QWIDGETSIZE_MAX = 16777215


def _heading(text: str) -> QLabel:
    # bold by its font, not a style sheet: a label's style sheet keeps the palette of its first polish, and its
    # text stayed the light scheme's black after a switch to dark
    label = QLabel(text, wordWrap=True)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    label.setContentsMargins(0, 6, 0, 0)
    label.hide()
    return label


class SessionPictures(QWidget):
    """`details`: the page's words, shown when the admin opens the disclosure titled `details_words`."""

    def __init__(self, details: QWidget, details_words: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.details = details
        self.answer_label = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.answer_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answer_label.setStyleSheet(ANSWER_STYLE)
        self.answer_label.hide()
        # the pictures are made with the first session shown: pyqtgraph was 0.2-0.3 s of the desktop's start
        self.verdict_plot: VerdictPlot | None = None
        self.limit_view: LimitBarsView | None = None
        self.check_plot: CheckPlot | None = None  # made with the first check session shown
        self.check_words = QLabel(wordWrap=True)  # the likely cause, in one line; what stands for a missing picture
        self.check_words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.check_words.setContentsMargins(10, 4, 0, 4)  # in line with the words under the picture
        self.check_words.hide()
        self.rows: list[VerdictRow] = []  # what the verdict plot draws
        self.bars: list[LimitBars] = []  # what the limit bars draw
        self.verdict_heading = _heading(VERDICT_HEADING)
        self.limits_heading = _heading(LIMITS_HEADING)
        self.pictures = QWidget()
        self.pictures_box = QVBoxLayout(self.pictures)
        self.pictures_box.setContentsMargins(0, 0, 0, 0)
        # the answer scrolls with the pictures: held above them it took 140 px of a 700 px window for good
        for part in (self.answer_label, self.check_words, self.verdict_heading, self.limits_heading):
            self.pictures_box.addWidget(part)
        self.pictures_box.addStretch(1)
        self.pictures_area = scrolled(self.pictures)
        self.details_toggle = Disclosure(details_words, shows=details)
        self.details_toggle.toggled.connect(self._fit_details)
        self.details_toggle.hide()
        self.details_button = self.details_toggle.button
        self.details_box = QWidget()
        box = QVBoxLayout(self.details_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.details_toggle)
        box.addWidget(details, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.pictures_area)
        self.splitter.addWidget(self.details_box)
        self._fit_details()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter, 1)
        QWidget.setTabOrder(self.details_button, details)

    @property
    def showing_pictures(self) -> bool:
        return not self.pictures_area.isHidden()

    def show_outcome(
        self, outcome: SessionOutcome, recipes: Mapping[str, Recipe], check: CheckShown | None = None
    ) -> None:
        """The session's answer and pictures; its details stay as the admin left the disclosure. `check`: a check
        session's check (read with the outcome): its word and picture lead, its long sentences are the details'."""
        e = html.escape
        head, *rest = outcome.answer_lines if check is None else [check.headline]
        meaning = MEANING.get(check.word) if check is not None else None
        self.answer_label.setStyleSheet(BAD_ANSWER_STYLE if meaning == "bad" else ANSWER_STYLE)
        colour = f"; color: {WORD_COLOURS[meaning]}" if meaning in WORD_COLOURS else ""
        # the decision in large type, its gain and risk (with their intervals' long words) at reading size under it
        self.answer_label.setText(
            f"<div style='font-size: 13pt{colour}'><b>{e(head)}</b></div>"
            + "".join(f"<div style='font-size: 10pt; margin-top: 3px'>{e(line)}</div>" for line in rest)
        )
        self.answer_label.show()
        self._show_check(check)
        if self.verdict_plot is None or self.limit_view is None:
            from nfstune.ui.widgets.limit_bars import LimitBarsView
            from nfstune.ui.widgets.verdict_plot import VerdictPlot

            self.verdict_plot, self.limit_view = VerdictPlot(), LimitBarsView()
            self.pictures_box.insertWidget(self.pictures_box.indexOf(self.verdict_heading) + 1, self.verdict_plot)
            self.pictures_box.insertWidget(self.pictures_box.indexOf(self.limits_heading) + 1, self.limit_view)
        session = outcome.session
        # a check session's comparisons are the check's, drawn by its own picture
        self.rows = [] if check is not None else verdict_rows(outcome.groups, margins_of(session, recipes))
        self.bars = limit_bars(outcome.findings.diagnoses, stored_ceilings(session), file_count(session))
        self.verdict_plot.set_rows(self.rows)
        self.limit_view.set_bars(self.bars)
        for heading, widget, shown in (
            (self.verdict_heading, self.verdict_plot, self.rows),
            (self.limits_heading, self.limit_view, self.bars),
        ):
            heading.setVisible(bool(shown))
            widget.setVisible(bool(shown))
        self.pictures_area.show()
        self.details_toggle.show()
        self.details.setVisible(self.details_toggle.is_open())  # as the admin left it (words only opened them)
        self._fit_details()

    def _show_check(self, check: CheckShown | None) -> None:
        """The check's picture under its word, and its likely cause in one line (none: both hidden)."""
        drawn = check is not None and any(h.ci is not None for h in check.rows)
        if drawn and self.check_plot is None:
            from nfstune.ui.widgets.check_plot import CheckPlot

            self.check_plot = CheckPlot()
            self.pictures_box.insertWidget(self.pictures_box.indexOf(self.answer_label) + 1, self.check_plot)
        if self.check_plot is not None:
            if check is not None and drawn:
                self.check_plot.set_rows(check.rows, check.session)
            self.check_plot.setVisible(drawn)
        words = [] if check is None else [*check.said, *([check.cause] if check.cause else [])]
        self.check_words.setText("\n".join(words))
        self.check_words.setVisible(bool(words))

    def show_words_only(self) -> None:
        """No session's pictures: the details widget alone, open (a hint, a wait, an error, a comparison)."""
        self.answer_label.hide()
        self.pictures_area.hide()
        self.details_toggle.hide()
        self.details.show()
        self.details_box.setMaximumHeight(QWIDGETSIZE_MAX)

    @Slot()
    def _fit_details(self) -> None:
        """Closed, the details take only their button's line; open, most of the room, the pictures above them."""
        if self.details.isHidden():
            self.details_box.setMaximumHeight(self.details_toggle.sizeHint().height())
            return
        self.details_box.setMaximumHeight(QWIDGETSIZE_MAX)
        total = max(1, self.splitter.height())
        self.splitter.setSizes([int(total * PICTURES_SHARE), total - int(total * PICTURES_SHARE)])
