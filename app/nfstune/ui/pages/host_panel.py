"""One host's panel on the Connect page: its fields (host, user, port, key file, the address the client reaches
it by), its connection state with Details and Retry, and what ssh would refuse in what was typed."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from nfstune.errors import ConfigError
from nfstune.nfs import names
from nfstune.remote.target import resolve, split_spec
from nfstune.ui.controller import ConnState, HostSpec
from nfstune.ui.icons import icon
from nfstune.ui.theme import text_colour
from nfstune.ui.tint import tint
from nfstune.ui.widgets.disclosure import Disclosure

TARGET_HINT = "nas.local, admin@192.168.1.10, or an alias from ~/.ssh/config"
TARGET_SHORT = "nas.local or an ssh alias"  # whole in a 1024-pixel window: the rest is its tooltip
RESOLVE_DELAY_MS = 400  # after the last key typed: `ssh -G` runs once a name is typed, not at each letter
STATE_MEANING = {
    ConnState.IDLE: "muted",
    ConnState.CONNECTING: "warning",
    ConnState.CONNECTED: "good",
    ConnState.FAILED: "bad",
}


# the icon beside a host's state (ui/icons.py); none while idle
STATE_ICONS = {ConnState.CONNECTED: "apply", ConnState.FAILED: "error", ConnState.CONNECTING: "refresh"}


def state_colour(state: ConnState) -> str:
    """A state's colour in rich text, a pair by the window's scheme (ui/theme.py): asked as the text is drawn."""
    return text_colour(STATE_MEANING[state]).name()


class HostPanel(QGroupBox):
    """One host's fields, its connection state and its Retry."""

    connect_requested = Signal()
    _resolved = Signal(int, str, bool)  # from the resolving thread: its request's number, what it found, an error

    def __init__(self, role: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self.role = role
        self.ssh_config: Path | None = None  # as `ssh -F` (the controller's); None: ssh's own files
        self.target = QLineEdit(placeholderText=TARGET_SHORT)
        self.target.setToolTip(TARGET_HINT)
        self.user = QLineEdit(placeholderText="as ssh would")
        self.user.setToolTip("Empty: the User of ~/.ssh/config for this host, else your own login name")
        self.port = QSpinBox(minimum=0, maximum=65535, specialValueText="as ssh would")
        self.port.setToolTip("Empty: the Port of ~/.ssh/config for this host, else 22")
        self.key = QLineEdit(placeholderText="optional")
        self.key.setToolTip(
            "A private key file, e.g. ~/.ssh/id_ed25519, tried first. Without it: the ssh agent's keys and the "
            "IdentityFile of ~/.ssh/config"
        )
        # where nfstune will log in, as ssh resolves what was typed: seen before anything is contacted
        self.goes_to = QLabel(wordWrap=True, textFormat=Qt.TextFormat.PlainText)
        self.goes_to.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.goes_to.setAccessibleName(f"Where nfstune will log in to the {role}")
        self._asked = 0  # the number of the last resolution asked for: an older answer is dropped
        self._resolve_timer = QTimer(self, singleShot=True, interval=RESOLVE_DELAY_MS)
        self._resolve_timer.timeout.connect(self._on_resolve_timer_timeout)
        self._resolved.connect(self._on_resolved)
        form = QFormLayout()
        self.this_computer = QCheckBox("T&his computer is the client (no SSH)")
        self.this_computer.toggled.connect(self._on_this_computer_toggled)
        # a NAS with SSH off, or a login without root: the client-side questions need no login there
        self.no_login = QCheckBox("I cannot &log in to this NAS: test from the client alone")
        self.no_login.setToolTip(
            "Mount options, read-ahead and NFS versions are compared from the client; nothing runs or changes on the "
            "NAS. What only the NAS can change (sync/async, threads) is listed with where to set it yourself."
        )
        self.no_login.toggled.connect(self._on_no_login_toggled)
        if role == "client":
            form.addRow(self.this_computer)
        else:
            form.addRow(self.no_login)
        form.addRow(f"&{'Server' if role == 'server' else 'Client'} host:", self.target)
        form.addRow("&User:", self.user)
        form.addRow("P&ort:", self.port)
        form.addRow("&Key file:", self.key)
        form.addRow("Goes to:", self.goes_to)
        self._form = form
        form.setRowVisible(self.goes_to, False)  # shown with something to say: a host typed, looked up
        self.address = QLineEdit(placeholderText="default: the host above")
        self.address.setToolTip("The server's name or IP address as the client reaches it (default: the host above)")
        if role == "server":
            form.addRow("Address seen by the &client:", self.address)
        # typed, or filled in from a recent pair
        for changed in (self.target.textChanged, self.user.textChanged, self.key.textChanged, self.port.valueChanged):
            changed.connect(self.resolve_later)
        self.state = QLabel(ConnState.IDLE.value, wordWrap=True)
        self.state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # to copy and search
        self.state.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)  # beside its icon
        # a failure says in plain words what to check; Python's own text stays one click away, for a bug report
        self.details = QLabel(wordWrap=True, textFormat=Qt.TextFormat.PlainText)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        # framed: it stands beside Retry, under the state (the label opens under both, the panel's whole width)
        self.details_toggle = Disclosure(
            "&Details" if role == "server" else "Det&ails",
            shows=self.details,
            names=f"Technical details of the {role}'s connection failure",
            framed=True,
        )
        self.details_toggle.setVisible(False)
        self.details_button = self.details_toggle.button
        self.details_button.setToolTip("The technical text of this failure (the error nfstune got)")
        self.retry = QPushButton("&Retry" if role == "server" else "Re&try")
        self.retry.setVisible(False)
        self.retry.clicked.connect(self.connect_requested)
        row = QHBoxLayout()
        self.icon = QLabel()
        row.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.state, 1)
        # under the state, not beside it: a failure's sentence gets the panel's whole width
        actions = QHBoxLayout()
        actions.addStretch(1)
        actions.addWidget(self.details_toggle)
        actions.addWidget(self.retry)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(row)
        layout.addLayout(actions)
        layout.addWidget(self.details)

    @Slot(bool)
    def _on_this_computer_toggled(self, checked: bool) -> None:
        for field in (self.target, self.user, self.port, self.key):
            field.setEnabled(not checked)
        self.resolve_later()

    @Slot()
    def resolve_later(self) -> None:
        self._asked += 1  # what is shown now no longer answers what is typed
        self._say_goes_to("")
        self._resolve_timer.start()

    @Slot()
    def _on_resolve_timer_timeout(self) -> None:
        if self.this_computer.isChecked() or self.no_login.isChecked() or not self.target.text().strip():
            return
        spec, asked, config = self.spec(), self._asked, self.ssh_config
        self._say_goes_to("looking it up in the SSH config…")

        def work() -> None:  # `ssh -G` runs a process, and Match exec may run more: never on the GUI thread
            try:
                key = Path(spec.identity_file).expanduser() if spec.identity_file else None
                found = resolve(spec.target, user=spec.user, port=spec.port, identity_file=key, ssh_config=config)
            except ConfigError as error:
                said, failed = str(error), True
            else:
                how = "resolved by ssh -G" if found.resolved_by == "ssh -G" else "read by nfstune: no ssh client"
                # the way there on a line of its own: a narrow panel then wraps between words of one part
                said, failed = found.destination.replace(" via ", "\nvia ", 1) + f"\n({how})", False
            with contextlib.suppress(RuntimeError):  # the panel was closed meanwhile
                self._resolved.emit(asked, said, failed)  # queued to the GUI thread: the label is set there

        threading.Thread(target=work, name=f"resolve-{self.role}", daemon=True).start()

    @Slot(int, str, bool)
    def _on_resolved(self, asked: int, said: str, failed: bool) -> None:
        if asked != self._asked:
            return  # typed on since: a newer answer is coming
        self._say_goes_to(said)
        tint(self.goes_to, "bad" if failed else None)

    def _say_goes_to(self, text: str) -> None:
        """An empty "Goes to:" (nothing typed, the practice lab's own hosts) is no row rather than a blank one."""
        self.goes_to.setText(text)
        self._form.setRowVisible(self.goes_to, bool(text))

    @Slot(bool)
    def _on_no_login_toggled(self, checked: bool) -> None:
        # the host is then the address itself, as the client mounts it
        for field in (self.user, self.port, self.key, self.address):
            field.setEnabled(not checked)
        self.target.setPlaceholderText("name or IP as the client reaches it" if checked else TARGET_SHORT)
        self.target.setToolTip("The NAS's name or IP address as the client reaches it" if checked else TARGET_HINT)
        self.resolve_later()

    def spec(self) -> HostSpec:
        if self.this_computer.isChecked():
            return HostSpec("this computer", local=True)
        if self.no_login.isChecked():
            return HostSpec(self.target.text().strip(), no_login=True)
        return HostSpec(
            self.target.text().strip(),
            self.user.text().strip() or None,
            self.port.value() or None,
            self.key.text().strip() or None,
        )

    def problem(self) -> tuple[str, QLineEdit] | None:
        """What ssh would refuse in the host, user or key file typed here (nfs/names.py), and that field; None
        when nothing (or when there is no login to make)."""
        if self.this_computer.isChecked() or self.no_login.isChecked():
            return None
        who = "Server" if self.role == "server" else "Client"
        spec = self.spec()
        try:
            split_spec(spec.target)
        except ConfigError as error:
            return f"{who} host: {error}", self.target
        if spec.user is not None and (why := names.user_problem(spec.user)):
            return f"{who} user: {why}", self.user
        if spec.identity_file is not None and "\0" in spec.identity_file:
            return f"{who} key file: a file name cannot contain an unprintable character (U+0000)", self.key
        return None

    def fill(self, data: dict[str, object]) -> None:
        self.target.setText(str(data.get("target") or ""))
        self.user.setText(str(data.get("user") or ""))
        self.port.setValue(int(data.get("port") or 0))
        self.key.setText(str(data.get("key") or ""))
        self.address.setText(str(data.get("address") or ""))
        self.this_computer.setChecked(bool(data.get("local")))
        self.no_login.setChecked(bool(data.get("no_login")))

    def show_state(self, state: ConnState, message: str, details: str = "") -> None:
        """`details`: a failure's technical text, shown when the admin opens Details (kept open or closed as they
        left it)."""
        # "connecting to nas…", not "connecting…: connecting to nas"
        text = message if state is ConnState.CONNECTING and message else state.value
        if message and state is not ConnState.CONNECTING:
            text = f"{state.value}: {message}"
        self.state.setText(text)
        tint(self.state, STATE_MEANING[state])
        font = self.state.font()
        font.setBold(state in (ConnState.CONNECTED, ConnState.FAILED))
        self.state.setFont(font)
        shown_icon = STATE_ICONS.get(state)
        if shown_icon is None:
            self.icon.clear()
        else:
            self.icon.setPixmap(icon(shown_icon).pixmap(16, 16))
        self.retry.setVisible(state is ConnState.FAILED)
        shown = details if state is ConnState.FAILED else ""
        self.details.setText(shown)
        self.details_toggle.setVisible(bool(shown))
        self.details.setVisible(bool(shown) and self.details_toggle.is_open())
        self.setEnabled(state is not ConnState.CONNECTING)
