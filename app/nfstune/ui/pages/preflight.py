"""The preflight page: both hosts' facts side by side, what stands in the way (nfstune.session.preflight.check), and the
share to test. It never runs anything: an Install button only asks (install_requested), the wizard does it on the
host's worker and reports back through set_install_state."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from functools import partial

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from nfstune.facts.model import HostFacts
from nfstune.session.preflight import Problem, check, facts_rows, mtu_mismatch
from nfstune.ui.icons import icon
from nfstune.ui.widgets.scrolled import scrolled

TITLE = "Preflight: the two hosts side by side"
# a pale amber behind dark text: legible in light and dark themes alike, since both colours are set
HIGHLIGHT_BACKGROUND, HIGHLIGHT_TEXT = QColor("#ffe9a8"), QColor("#3d2e00")
NO_PROBLEMS = "No problems found: both hosts are ready."


class PreflightPage(QWidget):
    install_requested = Signal(str, str)  # host role ("server" | "client"), the command to run there as root
    share_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._server: HostFacts | None = None
        self._client: HostFacts | None = None
        self._labels = ("server", "client")
        self._exports: list[str] = []
        self._share: str | None = None
        self._mounts: list[str] = []
        self._export_files: dict[str, str] = {}
        self._more: list[tuple[str, HostFacts]] = []  # the further clients (label, facts)
        self._server_login = True  # False: the server is seen from the client alone (no login)
        self._refused_exports: tuple[str, ...] = ()  # what the server lists that no share can be (names.py)
        self._problems: list[Problem] = []
        # (host role, tool) -> (Install button, status label) of the problem rows shown now
        self._installs: dict[tuple[str, str], tuple[QPushButton, QLabel]] = {}

        title = QLabel(TITLE)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        title.setFont(font)

        self.table = QTableWidget(0, 3)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)  # one line a row; a long value is elided, and whole in its tooltip
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; the arrows move inside it
        self.table.verticalHeader().setVisible(False)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # the page scrolls instead
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self.table.setAccessibleName("Host facts")
        self.table.setHorizontalHeaderLabels(["", "Server", "Client"])  # not Qt's "1 2 3" before the facts come
        self.table.hide()  # until the facts come; the line below says they are being read
        self.reading = QLabel("Reading both hosts' facts over SSH (kernel, nfs-utils, RAM, NIC, disk, exports)…")
        self.reading.setWordWrap(True)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # busy, no percentage: one SSH command a host
        self.busy.setMaximumWidth(240)

        self.share_combo = QComboBox()
        self.share_combo.setMinimumContentsLength(24)
        self.share_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.share_combo.currentIndexChanged.connect(self._on_share_index_changed)
        share_label = QLabel("&Share to test:")
        share_label.setBuddy(self.share_combo)
        share_row = QHBoxLayout()
        share_row.addWidget(share_label)
        share_row.addWidget(self.share_combo)
        share_row.addStretch(1)

        problems_title = QLabel("Problems")
        problems_title.setFont(_bold(problems_title.font()))
        self._problems_box = QVBoxLayout()
        self._problems_box.setSpacing(10)

        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addWidget(self.reading)
        layout.addWidget(self.busy)
        layout.addWidget(self.table)
        layout.addLayout(share_row)
        layout.addWidget(problems_title)
        layout.addLayout(self._problems_box)
        layout.addStretch(1)
        outer = QVBoxLayout(self)
        outer.addWidget(title)
        outer.addWidget(scrolled(content), 1)

    # --- what the wizard calls --------------------------------------------------------------------------------

    def reading_failed(self, message: str) -> None:
        """The probe failed: say so where the facts would be (the error box says it too), and stop the busy bar."""
        self.busy.hide()
        self.reading.setText(f"Could not read the hosts' facts: {message}")

    def show_facts(
        self,
        server: HostFacts,
        client: HostFacts,
        *,
        server_label: str,
        client_label: str,
        exports: list[str],
        share: str | None,
        client_mounts_of_server: list[str],
        export_files: Mapping[str, str] | None = None,
        more: Sequence[tuple[str, HostFacts]] = (),
        server_login: bool = True,
        refused_exports: Sequence[str] = (),
    ) -> None:
        """`export_files`: the server's exports files by path; their traps are listed with file and line. `more`:
        the further clients (label, facts), checked for what a load from several clients needs. `server_login`
        False: the server's facts are what the client saw of it (no login). `refused_exports`: what the server
        lists that no share can be, said and not offered."""
        self._server_login = server_login
        self._refused_exports = tuple(refused_exports)
        self.reading.hide()
        self.busy.hide()
        self.table.show()
        self._server, self._client = server, client
        self._export_files = dict(export_files or {})
        self._more = list(more)
        self._labels = (server_label, client_label)
        self._exports, self._share, self._mounts = list(exports), share, list(client_mounts_of_server)
        self._fill_table()
        self._fill_shares()
        self._refresh_problems()

    def blocking(self) -> bool:
        """Whether an error stands in the way: the wizard keeps Next disabled while it does."""
        return any(p.severity == "error" for p in self._problems)

    def problems(self) -> list[Problem]:
        return list(self._problems)

    def set_install_state(self, host_role: str, tool: str, text: str) -> None:
        """Shows "installing…", "installed" or "failed: …" beside that Install button; it stays usable only after a
        failure, so that the admin can try again."""
        widgets = self._installs.get((host_role, tool))
        if widgets is None:
            return  # the problem went away meanwhile (a new probe): nothing to annotate
        button, status = widgets
        status.setText(text)
        status.show()
        button.setEnabled(text.startswith("failed"))

    @property
    def share(self) -> str | None:
        """The share chosen now (None before show_facts, or when none was given and none is picked yet)."""
        return self._share

    # --- filling --------------------------------------------------------------------------------------------------

    def _fill_table(self) -> None:
        assert self._server is not None and self._client is not None
        server_label, client_label = self._labels
        # "Client: this computer (vm)": a label may hold parentheses of its own (this computer's hostname)
        self.table.setHorizontalHeaderLabels(["", f"Server: {server_label}", f"Client: {client_label}"])
        rows = facts_rows(self._server, self._client, server_login=self._server_login)
        mtus = mtu_mismatch(self._server, self._client)
        self.table.setRowCount(len(rows))
        for row, cells in enumerate(rows):
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if column == 0:
                    item.setFont(_bold(item.font()))
                elif cells[0] == "NIC" and mtus is not None:
                    item.setBackground(QBrush(HIGHLIGHT_BACKGROUND))
                    item.setForeground(QBrush(HIGHLIGHT_TEXT))
                    item.setToolTip(f"{text}\nThe MTUs differ: {mtus[0]} on the server, {mtus[1]} on the client")
                self.table.setItem(row, column, item)
        self.table.resizeRowsToContents()
        height = self.table.horizontalHeader().sizeHint().height() + 2 * self.table.frameWidth()
        height += sum(self.table.rowHeight(r) for r in range(len(rows)))
        self.table.setFixedHeight(height)  # all rows at once: the page's scroll area does the scrolling

    def _fill_shares(self) -> None:
        self.share_combo.blockSignals(True)  # filling is not the admin choosing
        self.share_combo.clear()
        self.share_combo.addItems(self._exports)
        index = self._exports.index(self._share) if self._share in self._exports else -1
        self.share_combo.setCurrentIndex(index)
        if index < 0:
            placeholder = f"{self._share} (not exported)" if self._share else "choose a share"
            self.share_combo.setPlaceholderText(placeholder)
        self.share_combo.blockSignals(False)

    def _refresh_problems(self) -> None:
        assert self._server is not None and self._client is not None
        server_label, client_label = self._labels
        self._problems = check(
            self._server,
            self._client,
            server_label=server_label,
            client_label=client_label,
            client_mounts_of_server=self._mounts,
            share=self._share,
            exports=self._exports,
            export_files=self._export_files,
            more=self._more,
            server_login=self._server_login,
            refused_exports=self._refused_exports,
        )
        while self._problems_box.count():
            item = self._problems_box.takeAt(0)
            if widget := item.widget():
                widget.hide()
                widget.deleteLater()
        self._installs.clear()
        for problem in self._problems:
            self._problems_box.addWidget(self._problem_row(problem))
        if not self._problems:
            self._problems_box.addWidget(QLabel(NO_PROBLEMS))

    def _problem_row(self, problem: Problem) -> QWidget:
        row = QFrame()
        row.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QHBoxLayout(row)
        severity = QLabel()
        severity.setPixmap(icon(problem.severity).pixmap(32, 32))
        severity.setAccessibleName(problem.severity)
        severity.setAlignment(Qt.AlignmentFlag.AlignTop)
        layout.addWidget(severity)
        text = QVBoxLayout()
        title = QLabel(problem.title)
        title.setFont(_bold(title.font()))
        title.setWordWrap(True)
        detail = QLabel(_rich(problem.detail))
        detail.setTextFormat(Qt.TextFormat.RichText)
        detail.setWordWrap(True)
        detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for label in (title, detail):
            label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            text.addWidget(label)
        text.addStretch(1)  # keep title and detail together when the buttons make the row taller
        layout.addLayout(text, 1)
        if problem.install_command is not None:
            layout.addWidget(self._install_controls(problem, problem.install_command))
        return row

    def _install_controls(self, problem: Problem, command: str) -> QWidget:
        host_label = self._labels[0] if problem.host == "server" else self._labels[1]
        install = QPushButton("&Install")
        install.setToolTip(f"Run as root on {host_label}: {command}")
        install.setAccessibleName(f"Install {problem.tool or command} on {host_label}")
        install.clicked.connect(partial(self._on_install_clicked, problem.host, command))
        copy = QPushButton(icon("copy"), "C&opy command")
        copy.setToolTip(command)
        copy.clicked.connect(partial(self._on_copy_clicked, command))
        status = QLabel()
        status.setWordWrap(True)  # a failure's message wraps in this column rather than widening it
        status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        status.hide()  # until there is something to say: an empty label would only make the row taller
        column = QWidget()
        column.setFixedWidth(max(copy.sizeHint().width(), column.fontMetrics().horizontalAdvance("x" * 30)))
        buttons = QVBoxLayout(column)
        buttons.setContentsMargins(0, 0, 0, 0)
        for widget in (install, copy, status):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        self._installs[(problem.host, problem.tool or command)] = (install, status)
        return column

    # --- slots ----------------------------------------------------------------------------------------------------

    @Slot(int)
    def _on_share_index_changed(self, index: int) -> None:
        if index < 0:
            return
        self._share = self.share_combo.itemText(index)
        self._refresh_problems()  # pure and quick; the wizard probes the new share's filesystem and calls back
        self.share_changed.emit(self._share)

    def _on_install_clicked(self, host_role: str, command: str) -> None:
        self.install_requested.emit(host_role, command)

    def _on_copy_clicked(self, command: str) -> None:
        QGuiApplication.clipboard().setText(command)


def _rich(text: str) -> str:
    """Plain text with `commands` in backticks -> HTML with them in a monospace font."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def _bold(font: QFont) -> QFont:
    font.setBold(True)
    return font
