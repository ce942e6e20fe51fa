"""The preflight page: what stands in the way first (nfstune.session.preflight.check, worst first, each with its
action), then the share to test, then the two hosts side by side as cards of their known facts
(session/preflight_cards.py). It never runs anything: an Install button only asks (install_requested), the wizard
does it on the host's worker and reports back through set_install_state; Read again asks for a new probe
(read_again_requested)."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from functools import partial

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from nfstune.facts.model import HostFacts
from nfstune.session.preflight import Problem, check, mtu_mismatch
from nfstune.session.preflight_cards import host_card
from nfstune.ui.icons import icon
from nfstune.ui.pages.preflight_card import HostCardView
from nfstune.ui.tint import tint
from nfstune.ui.widgets.labels import wrapped_label
from nfstune.ui.widgets.scrolled import scrolled

TITLE = "Preflight: the two hosts side by side"
NO_PROBLEMS = "Both hosts are ready: nothing stands in the way of a run."
READING = "Reading both hosts' facts over SSH (kernel, nfs-utils, RAM, NIC, disk, exports)\u2026"


def exports_nothing(server_label: str) -> str:
    return f"{server_label} exports nothing, so there is no share to test: add an export there, then Read again."


class PreflightPage(QWidget):
    install_requested = Signal(str, str)  # host role ("server" | "client"), the command to run there as root
    share_changed = Signal(str)
    read_again_requested = Signal()  # the wizard probes both hosts again, and calls show_facts or reading_failed

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
        self.read_again = QPushButton("&Read again")
        self.read_again.setToolTip("Probe both hosts again: after a fix made by hand, or a new export")
        self.read_again.clicked.connect(self._on_read_again_clicked)
        self.read_again.hide()  # until the first probe has answered: there is nothing to read again before
        title_row = QHBoxLayout()
        title_row.addWidget(title, 1)
        title_row.addWidget(self.read_again)

        self.reading = wrapped_label(READING)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # busy, no percentage: one SSH command a host
        self.busy.setMaximumWidth(240)

        self._problems_box = QVBoxLayout()
        self._problems_box.setSpacing(10)

        self.share_combo = QComboBox()
        self.share_combo.setMinimumContentsLength(24)
        self.share_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.share_combo.currentIndexChanged.connect(self._on_share_index_changed)
        share_label = QLabel("&Share to test:")
        share_label.setBuddy(self.share_combo)
        # said where the combo would be, when the server lists no share at all
        self.no_share = wrapped_label()
        self.no_share.setFont(_bold(self.no_share.font()))
        self.no_share.hide()
        self._share_row = QWidget()
        share_row = QHBoxLayout(self._share_row)
        share_row.setContentsMargins(0, 0, 0, 0)
        share_row.addWidget(share_label)
        share_row.addWidget(self.share_combo)
        share_row.addStretch(1)
        self._share_row.hide()  # until the exports are known

        self.server_card, self.client_card = HostCardView(), HostCardView()
        self._cards = QWidget()
        cards = QHBoxLayout(self._cards)
        cards.setContentsMargins(0, 0, 0, 0)
        cards.setSpacing(12)
        cards.addWidget(self.server_card, 1)
        cards.addWidget(self.client_card, 1)
        self._cards.hide()  # until the facts come; the line above says they are being read

        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setSpacing(12)
        layout.addWidget(self.reading)
        layout.addWidget(self.busy)
        layout.addLayout(self._problems_box)
        layout.addWidget(self._share_row)
        layout.addWidget(self.no_share)
        layout.addWidget(self._cards)
        layout.addStretch(1)
        outer = QVBoxLayout(self)
        outer.addLayout(title_row)
        outer.addWidget(scrolled(content), 1)

    # --- what the wizard calls --------------------------------------------------------------------------------

    def reading_failed(self, message: str) -> None:
        """The probe failed: say so where the facts would be (the error box says it too), and stop the busy bar."""
        self.busy.hide()
        self.reading.setText(f"Could not read the hosts' facts: {message}")
        self.reading.show()
        self.read_again.setEnabled(True)
        self.read_again.show()

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
        self.read_again.setEnabled(True)
        self.read_again.show()
        self._server, self._client = server, client
        self._export_files = dict(export_files or {})
        self._more = list(more)
        self._labels = (server_label, client_label)
        self._exports, self._share, self._mounts = list(exports), share, list(client_mounts_of_server)
        self._fill_shares()
        self._refresh_problems()
        self._fill_cards()

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

    def _fill_cards(self) -> None:
        assert self._server is not None and self._client is not None
        server_label, client_label = self._labels
        server = host_card(self._server, "server", server_label, login=self._server_login)
        client = host_card(self._client, "client", client_label)
        flagged = {"MTU"} if mtu_mismatch(self._server, self._client) is not None else set()
        self.server_card.show_card(server, flagged)
        self.client_card.show_card(client, flagged)
        self._cards.show()

    def _fill_shares(self) -> None:
        empty = not self._exports
        self._share_row.setVisible(not empty)  # an empty list to open says less than a sentence
        self.no_share.setVisible(empty)
        self.no_share.setText(exports_nothing(self._labels[0]) if empty else "")
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
        self._problems_box.addWidget(self._verdict_line())
        for problem in self._problems:
            self._problems_box.addWidget(self._problem_row(problem))

    def _verdict_line(self) -> QWidget:
        """The decision first, in the colour of its worst problem: stopped, can run with less, or ready."""
        text, meaning = verdict(self._problems)
        line = wrapped_label(text)
        line.setAccessibleName("Preflight verdict")
        font = _bold(line.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        line.setFont(font)
        tint(line, meaning)
        return line

    def _problem_row(self, problem: Problem) -> QWidget:
        row = QFrame()
        row.setFrameShape(QFrame.Shape.StyledPanel)
        row.setProperty("severity", problem.severity)
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

    def _on_read_again_clicked(self) -> None:
        self.read_again.setEnabled(False)  # one probe at a time; show_facts or reading_failed enables it again
        self.reading.setText(READING)
        self.reading.show()
        self.busy.show()
        self.read_again_requested.emit()

    def _on_install_clicked(self, host_role: str, command: str) -> None:
        self.install_requested.emit(host_role, command)

    def _on_copy_clicked(self, command: str) -> None:
        QGuiApplication.clipboard().setText(command)


def verdict(problems: Sequence[Problem]) -> tuple[str, str]:
    """(the line above the problems, its text colour's meaning in nfstune.ui.theme)."""
    errors = sum(p.severity == "error" for p in problems)
    if errors:
        what = "a problem below stops" if errors == 1 else f"{errors} problems below stop"
        return f"Not ready: {what} a run.", "bad"
    if any(p.severity == "warning" for p in problems):
        return "Ready, with less: a run can start, but see the warnings below.", "warning"
    return NO_PROBLEMS, "good"


def _rich(text: str) -> str:
    """Plain text with `commands` in backticks -> HTML with them in a monospace font."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def _bold(font: QFont) -> QFont:
    font.setBold(True)
    return font
