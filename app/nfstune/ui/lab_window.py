"""A window listing the practice lab's two hosts and their live state, polled on a worker thread."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from nfstune.errors import NfstuneError
from nfstune.lab import LabConfig, VmStatus, status
from nfstune.ui.icons import icon
from nfstune.ui.tint import follow_items, tint_item
from nfstune.ui.widgets.accessible import name_qt_buttons

COLUMNS = ("Host", "Address", "VM process", "SSH", "nfs-server", "Disk", "Link", "Kernel", "Up", "Load (1 min)")
POLL_MS = 3000


def format_uptime(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    minutes = int(seconds // 60)
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h {minutes % 60} min"


def row_for(st: VmStatus) -> list[str]:
    f = st.facts
    up = format_uptime(float(f["uptime"])) if f.get("uptime") else "-"
    return [
        st.name,
        f"127.0.0.1:{st.port}",
        f"running (pid {st.pid})" if st.pid else "down",
        "ok" if st.ssh == "ok" else ("-" if not st.running else "unreachable"),
        (f.get("nfs_server") or "-") if st.name == "nas" else "-",
        f.get("disk", "-"),
        f.get("link", "-"),
        f.get("kernel", "-"),
        up,
        f.get("load", "-"),
    ]


class LabPoller(QObject):
    """Lives on a worker thread; polls the lab over SSH when asked and emits a plain snapshot."""

    snapshot = Signal(list)
    failed = Signal(str)

    def __init__(self, cfg: LabConfig) -> None:
        super().__init__()
        self._cfg = cfg

    @Slot()
    def poll(self) -> None:
        try:
            states = status(self._cfg.as_running())
        except NfstuneError as exc:  # status() reports SSH trouble per host; this is anything else known
            self.failed.emit(str(exc))
        else:
            self.snapshot.emit(states)


class LabWindow(QMainWindow):
    poll_requested = Signal()

    def __init__(self, cfg: LabConfig) -> None:
        super().__init__()
        self.setWindowTitle("nfstune — practice lab")
        self.resize(1000, 300)
        self.table = QTableWidget(2, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        follow_items(self.table)  # healthy green, down red: by the scheme now
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.details = QLabel("Connecting to the lab…")
        self.details.setWordWrap(True)
        intro = QLabel(
            "<b>Practice lab</b>: emulated VMs on this computer. <i>nas</i> runs the kernel NFS server and "
            "exports /export; <i>client</i> (and <i>client2</i>… when started with more clients) mounts it over "
            "a private link. Emulated CPUs: compare "
            "configurations within one run, not against real-world speeds."
        )
        intro.setWordWrap(True)
        refresh = QPushButton(icon("refresh"), "&Refresh now")
        refresh.clicked.connect(self._on_timer)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(refresh)
        layout = QVBoxLayout()
        for widget in (intro, self.table, self.details):
            layout.addWidget(widget)
        layout.addLayout(buttons)
        layout.addStretch(1)
        central = QWidget()
        central.setLayout(layout)
        self.setCentralWidget(central)
        name_qt_buttons(self)
        self.statusBar().showMessage("waiting for the first poll…")

        # SSH work runs on the worker thread; the timer lives here and asks for one poll at a time
        self._thread = QThread(self)
        self._poller = LabPoller(cfg)
        self._poller.moveToThread(self._thread)
        self._thread.finished.connect(self._poller.deleteLater)
        self._poller.snapshot.connect(self._on_snapshot)
        self._poller.failed.connect(self._on_failed)
        self.poll_requested.connect(self._poller.poll)
        self._polling = False
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._on_timer)
        self._thread.start()
        self._timer.start(POLL_MS)
        self._on_timer()

    @Slot()
    def _on_timer(self) -> None:
        if not self._polling:
            self._polling = True
            self.poll_requested.emit()

    @Slot(list)
    def _on_snapshot(self, states: list[VmStatus]) -> None:
        self._polling = False
        self.table.setRowCount(len(states))  # a lab of several clients (`lab up --clients N`) has a row for each
        for r, st in enumerate(states):
            healthy = st.ssh == "ok" and (st.name != "nas" or st.facts.get("nfs_server") == "active")
            for c, text in enumerate(row_for(st)):
                item = QTableWidgetItem(text)
                if c in (2, 3, 4):
                    tint_item(item, "good" if healthy else "bad")
                self.table.setItem(r, c, item)
        nas = states[0].facts
        if nas:
            self.details.setText(
                f"NAS exports: {nas.get('exports', '').rstrip(';') or '-'}\n"
                f"nfsd: {nas.get('nfsd_threads', '-')} threads, max block size {nas.get('nfsd_max_block_size', '-')}"
                f" bytes, versions {nas.get('nfsd_versions', '-')}"
            )
        elif not any(st.running for st in states):
            self.details.setText("The lab is down. Start it with `nfstune lab up`.")
        self.statusBar().showMessage(f"updated {time.strftime('%H:%M:%S')}")

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._polling = False
        self.details.setText(message)
        self.statusBar().showMessage(f"poll failed {time.strftime('%H:%M:%S')}")

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        self._timer.stop()
        self._thread.quit()
        self._thread.wait(10_000)
        super().closeEvent(event)
