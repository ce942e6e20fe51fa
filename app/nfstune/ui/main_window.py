"""The main window: the guided flow (Connect → Preflight → Recipes → Run → Results → Recommendation) as a list of
steps beside a stack of pages, with Back/Next, and the History view in its own tab."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QUrl, Slot
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from nfstune import __version__
from nfstune.advice.recommend import Recommendation
from nfstune.recipes.estimate import PastRun
from nfstune.recipes.loader import default_recipe_dirs, load_recipes
from nfstune.session.script import RunOutcome
from nfstune.store import Results, open_store
from nfstune.ui.controller import ConnState, Controller
from nfstune.ui.help_menu import HelpMenu
from nfstune.ui.icons import icon
from nfstune.ui.jobs import CRASHED, Prompter
from nfstune.ui.pages.connect import ConnectPage
from nfstune.ui.pages.history import HistoryPage
from nfstune.ui.pages.preflight import PreflightPage
from nfstune.ui.pages.recipes import RecipesPage
from nfstune.ui.pages.recommendation import RecommendationPage
from nfstune.ui.pages.results import ResultsPage
from nfstune.ui.pages.run import RunPage
from nfstune.ui.screen_fit import fit_on_screen
from nfstune.ui.widgets.accessible import name_qt_buttons

log = logging.getLogger(__name__)
ENABLED = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
STEPS = ("Connect", "Preflight", "Recipes", "Run", "Results", "Recommendation")
WISHED_SIZE = QSize(1280, 740)  # on a screen large enough; a smaller one gets what it has room for (screen_fit)


class MainWindow(QMainWindow):
    def __init__(
        self,
        *,
        store_path: Path | None = None,
        scale: str | None = None,
        settings: QSettings | None = None,
        lab_config: object = None,
    ) -> None:
        super().__init__()
        self.setWindowTitle(f"nfstune {__version__}: NFS tuning assistant")
        self.settings = settings or QSettings()
        self.scale = scale or str(self.settings.value("run/scale", "normal"))
        self._closing = False  # set once Quit is confirmed: the next close event is the last
        self.prompter = Prompter(self)
        self.controller = Controller(self.prompter, store_path, lab_config)
        self.recipes, recipe_errors = load_recipes(default_recipe_dirs())
        self.results_store = Results(open_store(store_path))  # the GUI thread's own connection (reading)
        self.results_store.mark_interrupted()  # sessions of a process that is gone: not "running" any more

        self.connect_page = ConnectPage(self.controller, self.settings)
        self.preflight_page = PreflightPage()
        self.recipes_page = RecipesPage(self.recipes, self.scale)
        self.recipes_page.plan_context = self.controller.plan_inputs
        self.recipes_page.past_runs = self._past_runs
        self.run_page = RunPage(self.controller)
        self.results_page = ResultsPage()
        self.recommendation_page = RecommendationPage()
        self.history_page = HistoryPage(
            self.results_store,
            recipes={r.id: r for r in self.recipes},
            store_path=store_path,
            background=lambda name, work, done, failed: self.controller.start_job(name, work, done, failed, hosts=()),
        )
        self.results_page.export_report_requested.connect(self.history_page.export_html)
        self.history_page.report_written.connect(self.results_page.report_written)
        self.pages = [
            self.connect_page,
            self.preflight_page,
            self.recipes_page,
            self.run_page,
            self.results_page,
            self.recommendation_page,
        ]

        self.steps = QListWidget()
        self.steps.addItems([f"{i + 1}. {name}" for i, name in enumerate(STEPS)])
        self.steps.setMaximumWidth(160)  # the pages get the width: their tables must fit a 1024 px window
        self.steps.setAccessibleName("Steps")
        self.steps.currentRowChanged.connect(self._on_step_changed)
        self.stack = QStackedWidget()
        for page in self.pages:
            self.stack.addWidget(page)
        self.back_button = QPushButton("< &Back")
        self.next_button = QPushButton("&Next >")
        self.back_button.clicked.connect(self._on_back_clicked)
        self.next_button.clicked.connect(self._on_next_clicked)
        # why Start run is greyed out on the Recipes page before the hosts are ready, beside it
        self.nav_note = QLabel()
        self.nav_note.setWordWrap(True)
        nav = QHBoxLayout()
        nav.addWidget(self.nav_note, 1)
        nav.addWidget(self.back_button)
        nav.addWidget(self.next_button)
        right = QVBoxLayout()
        right.addWidget(self.stack, 1)
        right.addLayout(nav)
        flow = QWidget()
        row = QHBoxLayout(flow)
        row.addWidget(self.steps)
        row.addLayout(right, 1)
        self.tabs = QTabWidget()
        self.tabs.addTab(flow, "&Guided tuning")
        self.tabs.addTab(self.history_page, "&History")  # it reads the stored sessions when shown, off this thread
        self.setCentralWidget(self.tabs)
        self._menus()

        c = self.controller
        c.host_state.connect(lambda *_: self._update_nav())
        c.probed.connect(self._on_probed)
        c.probe_failed.connect(lambda msg: self._error("Preflight failed", msg))
        c.probe_failed.connect(self.preflight_page.reading_failed)
        c.job_failed.connect(lambda what, msg: self._error(f"{what} failed", msg))
        self.preflight_page.share_changed.connect(c.set_share)
        self.preflight_page.install_requested.connect(self._on_install_requested)
        self.preflight_page.read_again_requested.connect(c.probe_hosts)
        self.recipes_page.selection_changed.connect(self._update_nav)
        self.recipes_page.scale_changed.connect(self._on_scale_changed)
        self.run_page.finished.connect(self._on_run_finished)
        self.recommendation_page.apply_requested.connect(self._on_apply_requested)
        self.recommendation_page.undo_requested.connect(self._on_undo_requested)
        self.recommendation_page.check_requested.connect(self._on_check_requested)
        self.history_page.check_requested.connect(self.check_session)
        self.recommendation_page.mount_point_changed.connect(self._on_mount_point_changed)
        for error in recipe_errors:
            log.warning("recipe not loaded: %s", error)
        self.steps.setCurrentRow(0)
        self._restore()
        name_qt_buttons(self)
        # the first thing to type is the server's name: there, not on the tab bar (the first widget in Tab order)
        self.connect_page.panels["server"].target.setFocus()

    def _menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_logs = QAction("Open the &log folder", self)
        open_logs.triggered.connect(self._on_open_logs)
        file_menu.addAction(open_logs)
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        self.help_menu = HelpMenu(self)

    # --- navigation ---------------------------------------------------------------------------------------------

    def go(self, index: int) -> None:
        if 0 <= index < len(self.pages) and self._reachable(index):
            self.steps.setCurrentRow(index)

    def _reachable(self, index: int) -> bool:
        c = self.controller
        if self.run_page.running:
            return index == 3
        if index == 2:
            return True  # the recipes and their plans can be read before any host is connected
        needs = [
            True,
            self.connect_page.is_complete(),
            self._ready_to_run(),
            bool(self.recipes_page.selected_ids()),
            c.outcome is not None,
            c.outcome is not None and c.outcome.recommendation is not None,
        ]
        return all(needs[: index + 1])

    def _ready_to_run(self) -> bool:
        """Both hosts connected, probed, and nothing in Preflight that stops a run."""
        c = self.controller
        return self.connect_page.is_complete() and c.probe is not None and not self.preflight_page.blocking()

    @Slot(int)
    def _on_step_changed(self, index: int) -> None:
        if index < 0:
            return
        if not self._reachable(index):
            self.steps.setCurrentRow(self.stack.currentIndex())
            return
        self.stack.setCurrentIndex(index)
        if index == 1 and self.controller.probe is None:
            self.controller.probe_hosts()
        if index == 2:
            self.recipes_page.refresh()  # the past times again: those of the hosts connected since, or a new run
        self._update_nav()

    @Slot()
    def _on_back_clicked(self) -> None:
        target = self._back_target()
        if target is not None:
            self.go(target)

    @Slot()
    def _on_next_clicked(self) -> None:
        index = self.stack.currentIndex()
        if index == 2:  # Recipes -> Run: start measuring
            self.start_run()
            return
        self.go(index + 1)

    @Slot(str)
    def _on_scale_changed(self, scale: str) -> None:
        self.scale = scale
        self.settings.setValue("run/scale", scale)

    def start_run(self) -> None:
        chosen = [r for r in self.recipes if r.id in self.recipes_page.selected_ids()]
        self.controller.start_run(chosen, self.recipes_page.scale, self.recipes_page.run_seed())
        self.run_page.start()
        self.steps.setCurrentRow(3)
        self._update_nav()

    def _update_nav(self) -> None:
        index = self.stack.currentIndex()
        # a step that cannot be reached now is greyed out and cannot be picked: it never shows highlighted over
        # another page (a cancelled session has results but no recommendation)
        for row in range(self.steps.count()):
            item = self.steps.item(row)
            reachable = self._reachable(row) or row == index
            flags = item.flags()
            wanted = flags | ENABLED if reachable else flags & ~ENABLED
            if wanted != flags:
                item.setFlags(wanted)
        self.back_button.setEnabled(self._back_target() is not None and not self.run_page.running)
        self.next_button.setText("&Start run >" if index == 2 else "&Next >")
        self.next_button.setIcon(icon("run") if index == 2 else QIcon())
        not_ready = "" if self._ready_to_run() or index != 2 else self._not_ready_text()
        if index == 2 and not not_ready:  # many-clients checked with one client connected: not offered to run
            not_ready = self.recipes_page.run_blocker() or ""
        self.next_button.setToolTip(not_ready)
        self.nav_note.setText(not_ready)
        if index == 2:
            can_go = not not_ready and bool(self.recipes_page.selected_ids()) and not self.run_page.running
        else:
            can_go = index < len(self.pages) - 1 and self._reachable(index + 1)
        self.next_button.setEnabled(can_go)
        self._show_hosts_on_recipes()

    def _back_target(self) -> int | None:
        """The nearest earlier step that can be shown (Recipes before connecting: Connect, not Preflight)."""
        index = self.stack.currentIndex()
        return next((i for i in range(index - 1, -1, -1) if self._reachable(i)), None)

    def _not_ready_text(self) -> str:
        if not self.connect_page.is_complete():
            return "Connect both hosts first (step 1, Connect), then check them in Preflight (step 2)."
        if self.controller.probe is None:
            return "Check the hosts in Preflight first (step 2): a run needs their facts."
        return "Preflight found something that stops a run: see step 2."

    def _show_hosts_on_recipes(self) -> None:
        """What the Recipes page plans for: the connected pair once there is one, else placeholders."""
        c = self.controller
        pair = None
        if self.connect_page.is_complete():
            pair = f"{c.server_label()} \u2192 {c.hosts['client'].label}"
        blocker = None if self._ready_to_run() else self._not_ready_text()
        self.recipes_page.show_hosts(pair, probed=c.probe is not None, blocker=blocker)

    # --- results of jobs ----------------------------------------------------------------------------------------

    @Slot(object)
    def _on_probed(self, probed: object) -> None:
        c = self.controller
        p = c.probe
        assert p is not None
        self.preflight_page.show_facts(
            p.facts.server,
            p.facts.client,
            server_label=c.server_label(),
            client_label=c.hosts["client"].label,
            exports=p.exports,
            share=c.share,
            client_mounts_of_server=p.client_mounts_of_server,
            export_files=p.export_files,
            more=[(c.hosts[role].label, facts) for role, facts in zip(c.connected_more(), p.facts.more, strict=False)],
            server_login="server" in c.hosts,
            refused_exports=p.refused_exports,
        )
        self._update_nav()

    @Slot(str, str)
    def _on_install_requested(self, role: str, command: str) -> None:
        tool = command.split()[-1]
        self.preflight_page.set_install_state(role, tool, "installing…")

        def done(ok: bool, text: str) -> None:
            self.preflight_page.set_install_state(role, tool, "installed" if ok else f"failed: {text}")
            if ok:
                self.controller.probe_hosts()

        self.controller.install(role, command, done)

    @Slot(object)
    def _on_run_finished(self, outcome: RunOutcome) -> None:
        log.info(
            "session %d %s%s", outcome.session_id, outcome.status, f": {outcome.message}" if outcome.message else ""
        )
        stored = self.controller.stored
        # both read and worked out on the run's thread (run_session always returns the outcome)
        if stored is not None and outcome.outcome is not None:
            self.results_page.show_session(stored, outcome.outcome, {r.id: r for r in self.recipes})
        if outcome.recommendation is not None:
            self._show_recommendation(outcome.recommendation, outcome)
        self.history_page.refresh()
        self._update_nav()
        if outcome.status == "completed":
            self.go(4)

    def _past_runs(self, scale: str) -> list[PastRun]:
        """The completed runs at this scale, newest first; on the connected pair or (before there is one, or on
        other hosts) elsewhere: what the Recipes page's estimates are made from."""
        from nfstune.changes.transaction import host_key

        c = self.controller
        connected = c.states["server"] is ConnState.CONNECTED and "client" in c.hosts
        keys = (c.server_key(), host_key(c.hosts["client"])) if connected else ("", "")
        return [PastRun(*row) for row in self.results_store.past_runs(*keys, scale)]

    def _show_recommendation(self, rec: Recommendation, run: RunOutcome) -> None:
        c = self.controller
        self.recommendation_page.show_recommendation(
            rec,
            server_label=c.server_label(),
            client_label=c.hosts["client"].label,
            async_measured=run.outcome is not None and run.outcome.async_measured,
            can_apply="server" in c.hosts,
        )

    @Slot(str)
    def _on_mount_point_changed(self, mount_point: str) -> None:
        """The same recommendation with the fstab line the admin's mount point gives (from what the session kept)."""
        from nfstune.advice.session import kept_recommendation

        outcome = self.controller.outcome
        if outcome is None or outcome.recommendation is None:
            return
        recipes = {r.id: r for r in self.recipes}
        # what the session measured is the run's outcome: only the fstab line changes, nothing is judged again
        measured = outcome.outcome.measured if outcome.outcome is not None else None
        rec = kept_recommendation(
            self.results_store, outcome.session_id, recipes, mount_point=mount_point, measured=measured
        )
        if isinstance(rec, str):
            self.recommendation_page.status.setText(f"Mount point not changed: {rec}")
            return
        self.controller.outcome = replace(outcome, recommendation=rec)
        self._show_recommendation(rec, self.controller.outcome)
        self.recommendation_page.status.setText(f"The fstab line now mounts the share on {mount_point}.")
        log.info("mount point for the recommended fstab line: %s", mount_point)

    @Slot()
    def _on_undo_requested(self) -> None:
        from nfstune.ui.apply_dialog import run_undo_flow

        run_undo_flow(self, self.controller, self.recommendation_page)

    @Slot()
    def _on_check_requested(self) -> None:
        if self.controller.outcome is not None:
            self.check_session(self.controller.outcome.session_id)

    @Slot(int)
    def check_session(self, session_id: int) -> None:
        """Check it held: from the recommendation after an Apply, or from History for an applied session."""
        from nfstune.ui.check_dialog import run_check_flow

        run_check_flow(self, self.controller, session_id)

    @Slot()
    def _on_apply_requested(self) -> None:
        from nfstune.ui.apply_dialog import run_apply_flow

        run_apply_flow(self, self.controller, self.recommendation_page)

    @Slot(str)
    def show_crash(self, report: str) -> None:
        """A bug in a job: its traceback, with versions, in the crash dialog."""
        from nfstune.ui.crash import CrashDialog, versions

        header = "\n".join(f"{k}: {v}" for k, v in versions().items())
        CrashDialog(f"{header}\n\n{report}", self).open()

    def _error(self, title: str, message: str) -> None:
        if message != CRASHED:  # a bug: the crash dialog is already open with the traceback
            QMessageBox.warning(self, title, message)

    @Slot()
    def _on_open_logs(self) -> None:
        from nfstune.logs import log_dir

        QDesktopServices.openUrl(QUrl.fromLocalFile(str(log_dir())))

    # --- persistence --------------------------------------------------------------------------------------------

    def _restore(self) -> None:
        geometry = self.settings.value("window/geometry")
        restored = isinstance(geometry, QByteArray) and self.restoreGeometry(geometry)
        fit_on_screen(self, WISHED_SIZE, restored)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        if self._closing:  # the jobs have ended: close for good
            super().closeEvent(event)
            return
        if self.run_page.running:
            answer = QMessageBox.question(
                self,
                "A run is in progress",
                "Quit anyway? The run is cancelled and every change it made on your hosts is undone first.",
            )
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        self.settings.setValue("window/geometry", self.saveGeometry())
        self._closing = True
        if self.controller.shutdown():
            super().closeEvent(event)
            return
        # jobs still end their work (a run undoes its changes): the window goes, the process stays until then
        event.ignore()
        self.hide()
        self.controller.when_shut_down(self.close)
