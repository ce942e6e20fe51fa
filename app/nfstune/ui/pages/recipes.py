"""The recipes page: a checkable list of recipes and, for the current one, what it measures, what it changes on
which host and how that is undone, its risks, its configurations, and how long it takes; a total for all checked.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable, Sequence

from PySide6.QtCore import QItemSelectionModel, Qt, Signal, Slot
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from nfstune.errors import NfstuneError
from nfstune.recipes.clients_needed import clients_needed
from nfstune.recipes.estimate import Estimate, PastRun, estimate, noise_text
from nfstune.recipes.info import describe, format_duration
from nfstune.recipes.model import Recipe
from nfstune.recipes.plan_text import plan_text
from nfstune.session.hosts_block import pair_hosts_text
from nfstune.session.workflow import Facts, Pair, plan_for
from nfstune.ui.pages.recipe_needs import clients_short, estimate_pace, run_blocker
from nfstune.ui.pages.recipe_texts import list_text, mount_text, server_text
from nfstune.ui.plan_dialog import PlanDialog
from nfstune.ui.widgets.labels import wrapped_label
from nfstune.ui.widgets.rows_table import RowsTable as RowsTable  # the Results page's tables import it from here
from nfstune.ui.widgets.scrolled import scrolled
from nfstune.words import count

PRESELECTED = ("first-look",)  # a first visit: what limits the hosts, changing nothing (quick-check is one click away)
CONFIG_HEADER = ("Configuration", "Mount options\n(client)", "Server\n(export, nfsd)", "Workloads")
CONFIG_WORKLOADS_MIN_WIDTH = 100  # px, for each of the wrapped columns (the options and the workloads)
ID_ROLE = Qt.ItemDataRole.UserRole
# the async warning keeps one look in both schemes: its own pale ground, dark text on it
WARNING_STYLE = "background: #fff4e5; border: 2px solid #d9480f; border-radius: 4px; padding: 8px; color: #202020;"
NOT_CONNECTED = (
    "<b>Hosts not connected yet.</b> Every recipe can be read and planned now: the durations are the plan's own "
    "(the practice lab's pace at scale small, a gigabit NAS on a spinning disk at scale normal), and the plan names "
    "placeholders (<i>server</i> and <i>/share</i> for your NFS server and its share). Connect both hosts (step 1) "
    "for their own facts and past times; a run starts once they are connected and checked in Preflight (step 2)."
)
PLACEHOLDER_NOTE = (
    "The hosts are not connected yet: \u201cserver\u201d and \u201c/share\u201d stand for your NFS server and its "
    "share, the file sizes are the scale's defaults, and every condition on the hosts counts as unknown (such "
    "configurations are listed). Connect both hosts (step 1) and check them in Preflight (step 2) for the plan with "
    "their own facts."
)
SCALE_NOTE = {
    "small": "scale small: the practice lab's sizes, rounds within a short time budget",
    "normal": "scale normal: files sized from the link's speed, rounds until settled or the budget is spent",
}


class RecipesPage(QWidget):
    selection_changed = Signal()  # the set of checked recipes changed
    scale_changed = Signal(str)

    def __init__(self, recipes: Sequence[Recipe], scale: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._recipes = {r.id: r for r in recipes}
        self._scale = scale
        # what the plan is built from: the connected pair and its probed facts once there are, else (None, None)
        # and the planner assumes the defaults; the main window hands in the controller's
        self.plan_context: Callable[[], tuple[Pair | None, Facts | None]] = lambda: (None, None)
        self.plan_seed: int | None = None  # None: a new seed each time, as a run would draw (tests fix one)
        # the completed runs at a scale, newest first, on the connected hosts or elsewhere: what the estimates are
        # made from (the main window reads them from the store)
        self.past_runs: Callable[[str], Sequence[PastRun]] = lambda _scale: []
        self._past: Sequence[PastRun] = []  # read by refresh(), not at every change of recipe
        self.plan_dialog: PlanDialog | None = None
        self._shown: tuple[str, str, int] | None = None  # the last plan shown: its recipe, scale, seed
        # the connected pair ("nas \u2192 client", None before both are), whether it is probed, and why a run cannot
        # start yet (None: it can): what the estimates and the banner above the recipes say (show_hosts)
        self._hosts: tuple[str | None, bool, str | None] = (None, False, "not connected")
        self.hosts_label = wrapped_label(NOT_CONNECTED, rich=True)
        # a panel on the alternate base drawn by the palette, not a style sheet: a label's style sheet keeps the
        # colours of its first polish, and the box stayed light after a switch to dark
        self.hosts_label.setFrameShape(QFrame.Shape.StyledPanel)
        self.hosts_label.setAutoFillBackground(True)
        self.hosts_label.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.hosts_label.setMargin(6)
        self.hosts_label.setAccessibleName("Hosts")

        self.recipe_list = QListWidget()
        self.recipe_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.recipe_list.setSpacing(2)
        # the first look first: the list's order is the order they run in
        for recipe in sorted(recipes, key=lambda r: r.id not in PRESELECTED):
            item = QListWidgetItem(recipe.title)  # its time, host and risk follow (_label_items)
            item.setData(ID_ROLE, recipe.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            checked = recipe.id in PRESELECTED
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            item.setToolTip(recipe.summary)
            self.recipe_list.addItem(item)
        list_label = QLabel("&Recipes (Space checks or unchecks the current one)")
        list_label.setWordWrap(True)
        list_label.setBuddy(self.recipe_list)
        self.total_label = wrapped_label()
        self.scale_combo = QComboBox()
        self.scale_combo.addItem("small: the practice lab, a short time budget", "small")
        self.scale_combo.addItem("normal: a real NAS, files sized from the link's speed", "normal")
        self.scale_combo.setCurrentIndex(max(0, self.scale_combo.findData(scale)))
        self.scale_combo.currentIndexChanged.connect(self._on_scale_changed)
        scale_label = QLabel("Si&zes:")
        scale_label.setBuddy(self.scale_combo)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(list_label)
        left_layout.addWidget(self.recipe_list)
        left_layout.addWidget(scale_label)
        left_layout.addWidget(self.scale_combo)
        left_layout.addWidget(self.total_label)
        # next to the recipe it plans, named after it: the one on screen, checked or not
        self.plan_button = QPushButton("Show the &plan…")
        self.plan_button.setToolTip(
            "What a run of this recipe would do, before it runs: every command on each host, in which order, how "
            "it is undone, and the estimated time"
        )
        self.plan_button.clicked.connect(self._on_plan_clicked)

        # a recipe the clients connected cannot run (many-clients with one): said under its title, and the main
        # window offers no run until there are enough, or it is unchecked (run_blocker)
        self.needs_label = wrapped_label(rich=True)
        self.needs_label.setFrameShape(QFrame.Shape.StyledPanel)
        self.needs_label.setAutoFillBackground(True)
        self.needs_label.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.needs_label.setMargin(6)
        self.needs_label.setAccessibleName("Needs more clients")
        self.needs_label.setVisible(False)
        self.title_label = wrapped_label()
        self.title_label.setStyleSheet("font-size: 14pt; font-weight: bold;")
        self.summary_label = wrapped_label()
        self.why_label = wrapped_label(rich=True)
        self.varies_label = wrapped_label(rich=True)
        self.changes_label = wrapped_label(rich=True)
        self.warning_label = wrapped_label(rich=True)
        self.warning_label.setStyleSheet(WARNING_STYLE)
        self.warning_label.setAccessibleName("Warning")
        # the options wrap (at ", " and " · "), the workloads one a line, so that a name never breaks at its
        # hyphen ("seq-" / "read"): a 1024 px window shows every column whole; a narrower pane scrolls sideways
        self.config_table = RowsTable(CONFIG_HEADER, stretch=CONFIG_HEADER[1:], min_stretch=CONFIG_WORKLOADS_MIN_WIDTH)
        self.estimate_label = wrapped_label(rich=True)

        details = QWidget()
        details_layout = QVBoxLayout(details)
        for widget in (
            self.title_label,
            self.needs_label,
            self.summary_label,
            self.plan_button,
            self.why_label,
            self.varies_label,
            self.changes_label,
            self.warning_label,
        ):
            details_layout.addWidget(widget)
        details_layout.setAlignment(self.plan_button, Qt.AlignmentFlag.AlignLeft)
        configs_label = QLabel("&Configurations")
        configs_label.setBuddy(self.config_table)
        details_layout.addWidget(configs_label)
        details_layout.addWidget(self.config_table)
        details_layout.addWidget(self.estimate_label)
        details_layout.addStretch(1)
        self.details_scroll = scrolled(details, wraps=True)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.details_scroll)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([300, 900])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hosts_label)
        layout.addWidget(splitter, 1)
        for first, second in itertools.pairwise(
            [self.recipe_list, self.scale_combo, self.plan_button, self.config_table]
        ):
            QWidget.setTabOrder(first, second)

        self.recipe_list.currentItemChanged.connect(self._on_current_item_changed)
        self.recipe_list.itemChanged.connect(self._on_item_changed)
        first = next((i for i in range(self.recipe_list.count()) if self._id_at(i) in PRESELECTED), 0)
        if self.recipe_list.count():
            self.recipe_list.setCurrentRow(first, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self._label_items()
        self._show_total()

    # --- state ----------------------------------------------------------------------------------------------

    def selected_ids(self) -> list[str]:
        """The checked recipes' ids, in the list's order (the order they run in)."""
        return [
            self._id_at(row)
            for row in range(self.recipe_list.count())
            if self.recipe_list.item(row).checkState() == Qt.CheckState.Checked
        ]

    def set_scale(self, scale: str) -> None:
        self._scale = scale
        index = self.scale_combo.findData(scale)
        if index >= 0 and index != self.scale_combo.currentIndex():
            self.scale_combo.setCurrentIndex(index)
        self.refresh()  # another scale: other past times, and the totals with them

    @property
    def scale(self) -> str:
        return self._scale

    @Slot(int)
    def _on_scale_changed(self, index: int) -> None:
        self.set_scale(str(self.scale_combo.itemData(index)))
        self.scale_changed.emit(self._scale)

    def current_recipe(self) -> Recipe | None:
        item = self.recipe_list.currentItem()
        return None if item is None else self._recipes[item.data(ID_ROLE)]

    def _id_at(self, row: int) -> str:
        return str(self.recipe_list.item(row).data(ID_ROLE))

    def estimate(self, recipe: Recipe) -> Estimate:
        return estimate(recipe, self._scale, self._past, self._recipes, hosts_known=self._hosts[0] is not None)

    def show_hosts(self, pair: str | None, *, probed: bool, blocker: str | None) -> None:
        """What the estimates and plans are for: `pair` ("nas \u2192 client") once both hosts are connected, else
        None (the plan's own times, placeholder hosts); `probed` once their facts are read; `blocker`: why a run
        cannot start yet (None: it can). The main window calls this at every change of the wizard's state."""
        self._label_items()  # more clients may have connected to the same pair: what needs more is said again
        self._show_needs(self.current_recipe())
        if (pair, probed, blocker) == self._hosts:
            return
        new_pair = pair != self._hosts[0]
        self._hosts = (pair, probed, blocker)
        if pair is None:
            self.hosts_label.setText(NOT_CONNECTED)
        else:
            e = html.escape
            facts = "their probed facts" if probed else "the default facts until Preflight (step 2) probes them"
            said = f"<b>For {e(pair)}</b>: their past times and {facts}."
            self.hosts_label.setText(f"{said} {e(blocker)}" if blocker else said)
        if new_pair:
            self.refresh()  # these hosts' own past times (or none's), and the estimates' words with them

    def _estimate_text(self, seconds: float, at_most_s: float) -> str:
        """'about 6 min, at most 15 min (scale small: ...)'."""
        at_most = format_duration(at_most_s).removeprefix("about ")
        scale = SCALE_NOTE.get(self._scale, f"scale {self._scale}")
        if round(at_most_s / 60) <= round(seconds / 60):
            return f"{format_duration(seconds)} ({scale})"
        return f"{format_duration(seconds)}, at most {at_most} ({scale})"

    def show_plan(self) -> PlanDialog | None:
        """The plan of the recipe on screen, in a dialog that names it: the admin reviews the changes of the recipe
        whose description and warning they read. Planning is pure and fast (no SSH, no I/O: the facts were probed
        before; all seven shipped recipes at scale normal plan and print in about 70 ms), so it runs here on the
        GUI thread rather than in a job."""
        recipe = self.current_recipe()
        if recipe is None:
            return None
        chosen = [recipe]
        pair, facts = self.plan_context()
        try:
            plan = plan_for(pair, facts, chosen, self._scale, seed=self.plan_seed, ask_admin=True)  # the Run page asks
        except NfstuneError as exc:
            QMessageBox.warning(self, "No plan", f"Could not plan {', '.join(r.id for r in chosen)}:\n{exc}")
            return None
        self._shown = (recipe.id, self._scale, plan.seed)
        if facts is not None:
            where = "the probed hosts"
        elif pair is None:
            where = "placeholder hosts, default facts (not connected yet)"
        else:
            where = "the connected hosts, default facts (not probed yet)"
        title = f"The plan of {recipe.title} ({recipe.id}): seed {plan.seed}, {where}"
        heading = f"The plan of {recipe.title}"
        if recipe.id not in self.selected_ids():
            heading += " (not checked: a run of the checked recipes leaves it out)"
        if self.plan_dialog is not None:
            self.plan_dialog.close()
        note = clients_short(recipe, pair) or (PLACEHOLDER_NOTE if pair is None and facts is None else None)
        text = plan_text(plan, pace=estimate_pace(self.estimate(recipe), self._scale))
        # where the run goes first, as `nfstune run --dry-run` says it: user@address:port, jump hosts, SSH config
        text = text if pair is None else pair_hosts_text(pair) + "\n\n" + text
        self.plan_dialog = PlanDialog(title, text, self, note=note, heading=heading)
        self.plan_dialog.open()
        return self.plan_dialog

    def run_blocker(self) -> str | None:
        """Why the checked recipes cannot run on the clients connected (many-clients with one), None when they can."""
        return run_blocker([self._recipes[i] for i in self.selected_ids()], self.plan_context()[0])

    def _show_needs(self, recipe: Recipe | None) -> None:
        short = clients_short(recipe, self.plan_context()[0], named=False) if recipe is not None else None
        self.needs_label.setVisible(short is not None)
        self.needs_label.setText(f"<b>Needs more clients.</b> {html.escape(short or '')}")

    def run_seed(self) -> int | None:
        """The seed of the plan last shown, when its recipe is checked now at this scale, so that the run visits
        its configurations in the order the admin read (the planner draws each recipe's order from the seed and the
        recipe's id alone); else `plan_seed` (None: the run draws one)."""
        if self._shown is not None and self._shown[0] in self.selected_ids() and self._shown[1] == self._scale:
            return self._shown[2]
        return self.plan_seed

    def _show_total(self) -> None:
        chosen = [self._recipes[i] for i in self.selected_ids()]
        if not chosen:
            self.total_label.setText("No recipe checked: check at least one to continue.")
            return
        what = "1 recipe" if len(chosen) == 1 else f"{len(chosen)} recipes"
        estimates = [self.estimate(r) for r in chosen]
        total = self._estimate_text(sum(e.seconds for e in estimates), sum(e.at_most_s for e in estimates))
        self.total_label.setText(f"Checked: {what}, {total}")

    def _show_details(self, recipe: Recipe | None) -> None:
        self.plan_button.setEnabled(recipe is not None)
        if recipe is None:
            return
        e = html.escape
        info = describe(recipe)
        self.title_label.setText(recipe.title)
        self._show_needs(recipe)
        self.plan_button.setText(f"Show the &plan of {recipe.title.replace('&', '&&')}…")
        self.summary_label.setText(recipe.summary)
        self.why_label.setText(f"<b>Why:</b> {e(recipe.why)}")
        self.varies_label.setText(f"<b>Varies:</b> {e(info.varies)}")
        host = "the server" if info.host == "server" else "the client only"
        self.changes_label.setText(f"<b>Changes {host}:</b> {e(info.changes)}")
        self.warning_label.setVisible(info.risks is not None)
        risks = e(info.risks or "").replace("\n", "<br>")
        self.warning_label.setText(f"<b>\u26a0 Warning</b><br>{risks}")
        self._fill_configs(recipe)
        likely = self.estimate(recipe)
        text = f"<b>Estimated duration:</b> {e(self._estimate_text(likely.seconds, likely.at_most_s))}"
        noise = e(noise_text(recipe, self._scale))
        self.estimate_label.setText(f"{text}<br><i>From {e(likely.basis)}.</i><br>{noise}")

    def refresh(self) -> None:
        """Read the connected hosts' past times again (one query of the store, on the page's entry or a new scale)
        and say the current recipe with them."""
        self._past = self.past_runs(self._scale)
        self._label_items()
        self._show_details(self.current_recipe())
        self._show_total()

    def _label_items(self) -> None:
        """Each recipe's time (at this scale, on these hosts), the host it changes and its risk, in the list."""
        self.recipe_list.blockSignals(True)  # a new text is no new check: itemChanged would say the selection moved
        pair = self.plan_context()[0]
        try:
            for row in range(self.recipe_list.count()):
                item = self.recipe_list.item(row)
                recipe = self._recipes[item.data(ID_ROLE)]
                short = clients_short(recipe, pair) is not None
                needs = f"needs {count(clients_needed(recipe), 'client')}" if short else None
                text, spoken = list_text(recipe, self.estimate(recipe), needs)
                item.setText(text)
                item.setData(Qt.ItemDataRole.AccessibleTextRole, spoken)
        finally:
            self.recipe_list.blockSignals(False)

    def _fill_configs(self, recipe: Recipe) -> None:
        table = self.config_table
        table.setRowCount(len(recipe.configs))
        for row, config in enumerate(recipe.configs):
            label = config.label
            if config.label == recipe.baseline and "baseline" not in config.label:
                label += " (baseline)"
            if config.when.tests:
                # a condition a line, so that the column stays narrow enough for the options beside it
                label += "\nonly with " + "\nand ".join(test.words() for test in config.when.tests)
            workloads = "\n".join(config.workloads or recipe.workloads)
            options = (mount_text(config).replace(",", ", "), server_text(config).replace(",", ", "))
            for column, text in enumerate((label, *options, workloads)):
                table.setItem(row, column, QTableWidgetItem(text))
        self.config_table.fit_height()

    # --- slots ----------------------------------------------------------------------------------------------

    @Slot(QListWidgetItem, QListWidgetItem)
    def _on_current_item_changed(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        self._show_details(None if current is None else self._recipes[current.data(ID_ROLE)])

    @Slot()
    def _on_plan_clicked(self) -> None:
        self.show_plan()

    @Slot(QListWidgetItem)
    def _on_item_changed(self, _item: QListWidgetItem) -> None:
        self._show_total()
        self.selection_changed.emit()
