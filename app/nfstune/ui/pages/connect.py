"""Connect: the NFS server and the NFS client over SSH, or both on the practice lab. Each host shows its own
state (connecting / connected / failed with the reason) and a Retry; recent pairs are offered again."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from nfstune.errors import ConfigError
from nfstune.nfs.addresses import server_address
from nfstune.remote.target import split_spec
from nfstune.ui.controller import MORE_CLIENTS, ConnState, Controller, HostSpec
from nfstune.ui.icons import icon
from nfstune.ui.pages.host_panel import HostPanel, state_colour
from nfstune.ui.rich_text import rich
from nfstune.ui.tint import on_scheme_change, tint
from nfstune.ui.widgets.scrolled import scrolled

RECENT_KEY = "connect/recent_pairs"
LAB_PAIR = {"server": {"lab": "nas"}, "client": {"lab": "client"}}  # the practice lab, as a recent pair
RECENT_MAX = 8


class ConnectPage(QWidget):
    """Fill both hosts and press Connect, or press Practice lab."""

    def __init__(self, controller: Controller, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller, self.settings = controller, settings
        title = QLabel("<h2>Connect to your NFS server and client</h2>")
        intro = QLabel(
            "nfstune logs in over SSH (your keys, agent and ~/.ssh/config) and uses sudo for the NFS changes it "
            "makes. Every change is journaled and undone when the run ends. A password you type is kept in memory "
            "only. The recipes (step 3), what each changes and how long it takes, can be read before connecting.",
            wordWrap=True,
        )
        self.recent = QComboBox()
        self.recent.setPlaceholderText("Recent pairs…")
        self.recent.activated.connect(self._on_recent_activated)
        recent_label = QLabel("R&ecent:")
        recent_label.setBuddy(self.recent)
        self.panels = {
            "server": HostPanel("server", "NFS server (the NAS)"),
            "client": HostPanel("client", "NFS client (the Linux machine that mounts it)"),
        }
        self.connect_button = QPushButton(icon("connect"), "&Connect both")
        self.connect_button.setDefault(True)
        self.connect_button.clicked.connect(self._on_connect_clicked)
        self.lab_button = QPushButton("Use the &practice lab")
        self.lab_button.setToolTip("Two virtual machines on this computer: a NAS (kernel NFS server) and a client")
        self.lab_button.clicked.connect(self._on_lab_clicked)
        self.more = QLineEdit(placeholderText="optional: pc2.local, admin@192.168.1.23")
        self.more.setToolTip("For the many-clients recipes: more clients as for ssh, separated by commas")
        self.more.setAccessibleName("Further clients")
        self.more_state = QLabel(wordWrap=True)
        on_scheme_change(self.more_state, self._show_more_states)  # each state's colour, by the scheme now
        self._more_messages: dict[str, str] = {}  # a further client's last state message (why it failed)
        more_label = QLabel("&Further clients:")
        more_label.setBuddy(self.more)
        self.lab_status = QLabel(wordWrap=True)
        self.error = QLabel(wordWrap=True)
        tint(self.error, "bad")
        buttons = QHBoxLayout()
        buttons.addWidget(self.connect_button)
        buttons.addWidget(self.lab_button)
        buttons.addStretch(1)
        top = QHBoxLayout()
        top.addWidget(recent_label)
        top.addWidget(self.recent, 1)
        # a failure's message with its Details open is taller than a 1024x700 screen leaves the page: it scrolls
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(intro)
        layout.addLayout(top)
        hosts = QHBoxLayout()
        for role, panel in self.panels.items():
            panel.ssh_config = controller.ssh_config
            hosts.addWidget(panel)
            panel.connect_requested.connect(lambda r=role: self._connect(r))
        layout.addLayout(hosts)
        further = QHBoxLayout()
        further.addWidget(more_label)
        further.addWidget(self.more, 1)
        layout.addLayout(further)
        layout.addWidget(self.more_state)
        layout.addLayout(buttons)
        layout.addWidget(self.lab_status)
        layout.addWidget(self.error)
        layout.addStretch(1)
        outer = QVBoxLayout(self)
        outer.addWidget(title)
        outer.addWidget(scrolled(content), 1)
        controller.host_state.connect(self._on_host_state)
        controller.lab_progress.connect(self._on_lab_progress)
        self._load_recent()

    def is_complete(self) -> bool:
        return all(self.controller.states[r] is ConnState.CONNECTED for r in self.panels)

    def _connect(self, role: str) -> None:
        spec = self.panels[role].spec()
        if self.controller.specs.get(role) and self.controller.specs[role].lab_vm:
            spec = self.controller.specs[role]  # Retry of a lab VM
        elif not spec.target and not spec.local:
            self.error.setText(f"Enter the {role}'s host name or address first.")
            self.panels[role].target.setFocus()
            return
        elif refused := self.panels[role].problem():
            self._refuse(*refused)
            return
        address = None
        if role == "server" and spec.no_login:
            try:  # no login: the name the client mounts it by, not an ssh destination
                address = server_address(spec.target)
            except ValueError as error:
                self.error.setText(f"NFS server: {error}.")
                self.panels[role].target.setFocus()
                return
        elif role == "server":
            address, problem = self._server_address(spec)
            if problem:
                self.error.setText(problem)
                self.panels["server"].address.setFocus()
                return
        self.error.clear()
        self.controller.connect_host(role, spec, server_address=address)

    def _server_address(self, spec: HostSpec) -> tuple[str | None, str | None]:
        """(the address the client will mount the server by, or None for the host name; what is wrong with it)."""
        text = self.panels["server"].address.text().strip()
        if not text:
            if spec.local:  # "this computer" is no name the client can reach
                return None, (
                    "This computer as the NFS server: enter its name or IP address as the client reaches "
                    "it, under \u201cAddress seen by the client\u201d."
                )
            return None, None
        try:
            return server_address(text), None
        except ValueError as error:
            return None, f"Address seen by the client: {error}."

    @Slot()
    def _on_connect_clicked(self) -> None:
        missing = [r for r, p in self.panels.items() if not p.target.text().strip() and not p.spec().local]
        if missing:
            self.error.setText(f"Enter the {' and the '.join(missing)} host first, or use the practice lab.")
            return
        for panel in self.panels.values():  # before either host is contacted
            if refused := panel.problem():
                self._refuse(*refused)
                return
        _, problem = self._server_address(self.panels["server"].spec())
        if problem:  # before either host is contacted
            self.error.setText(problem)
            self.panels["server"].address.setFocus()
            return
        more, problem = self._more_specs()
        if problem:
            self.error.setText(problem)
            self.more.setFocus()
            return
        for role in self.panels:
            self._connect(role)
        self.controller.connect_more(more)

    def _refuse(self, message: str, field: QLineEdit) -> None:
        self.error.setText(message)
        field.setFocus()

    def _more_specs(self) -> tuple[list[HostSpec], str]:
        """The further clients typed, and what is wrong with the list ("" when nothing)."""
        targets = [t.strip() for t in self.more.text().split(",") if t.strip()]
        if len(targets) > len(MORE_CLIENTS):
            return [], f"Further clients: at most {len(MORE_CLIENTS)} (the first client makes {len(MORE_CLIENTS) + 1})."
        client = self.panels["client"].target.text().strip()
        twice = [t for i, t in enumerate(targets) if t in targets[:i] or t == client]
        if twice:
            return [], f"Further clients: {twice[0]} is given twice; each client once."
        for target in targets:
            try:
                split_spec(target)
            except ConfigError as error:
                return [], f"Further clients: {error}"
        return [HostSpec(t) for t in targets], ""

    @Slot()
    def _on_lab_clicked(self) -> None:
        self.error.clear()
        self.controller.connect_lab(no_login=self.panels["server"].no_login.isChecked())

    @Slot(str, object, str)
    def _on_host_state(self, role: str, state: ConnState, message: str) -> None:
        if role in self.panels:
            self.panels[role].show_state(state, message, self.controller.details.get(role, ""))
        else:
            self._more_messages[role] = message
            self._show_more_states()
        busy = any(s is ConnState.CONNECTING for s in self.controller.states.values())
        self.connect_button.setEnabled(not busy)
        self.lab_button.setEnabled(not busy)
        if state is ConnState.CONNECTED and role in self.panels and self.is_complete():
            self.lab_status.setText("Both hosts are connected: go on to Preflight.")
            # only a pair that connected is offered again: the fields as they are now, after any Retry
            client = self.controller.specs.get("client")
            if client is not None and client.lab_vm:
                self._remember_lab()
            else:
                self._remember()

    def _show_more_states(self) -> None:
        """One line per further client: its name and state (the reason when it failed)."""
        c = self.controller
        lines = []
        for role in c.more_roles():
            state = c.states.get(role, ConnState.IDLE)
            spec = c.specs[role]
            label = c.hosts[role].label if role in c.hosts else spec.describe()
            colour = state_colour(state)
            said = f"{state.value}: {self._more_messages.get(role, '')}" if state is ConnState.FAILED else state.value
            lines.append(f"{role}: {rich(label)}: <span style='color: {colour}'>{rich(said)}</span>")
        self.more_state.setText("<br>".join(lines))
        # each failure's technical text, as a host panel's Details has it: on hover here, one line per client
        details = [
            f"{r}: {c.details[r]}" for r in c.more_roles() if c.states.get(r) is ConnState.FAILED and c.details.get(r)
        ]
        self.more_state.setToolTip("\n".join(details))

    @Slot(str)
    def _on_lab_progress(self, line: str) -> None:
        self.lab_status.setText(line)

    # --- recent pairs ---------------------------------------------------------------------------------------

    def _remember(self) -> None:
        pair = {
            role: {
                "target": p.target.text().strip(),
                "user": p.user.text().strip(),
                "port": p.port.value(),
                "key": p.key.text().strip(),
                "address": p.address.text().strip(),
                "local": p.this_computer.isChecked(),
                "no_login": p.no_login.isChecked(),
            }
            for role, p in self.panels.items()
        }
        if self.more.text().strip():
            pair["more"] = {"targets": self.more.text().strip()}
        recent = [r for r in self._recent() if r != pair]
        self.settings.setValue(RECENT_KEY, json.dumps([pair, *recent][:RECENT_MAX]))
        self._load_recent()

    def _remember_lab(self) -> None:
        recent = [r for r in self._recent() if r != LAB_PAIR]
        self.settings.setValue(RECENT_KEY, json.dumps([LAB_PAIR, *recent][:RECENT_MAX]))
        self._load_recent()

    def _recent(self) -> list[dict[str, dict[str, object]]]:
        try:
            found = json.loads(str(self.settings.value(RECENT_KEY, "[]")))
        except ValueError:
            return []
        return [p for p in found if isinstance(p, dict) and {"server", "client"} <= set(p)]

    def _load_recent(self) -> None:
        self.recent.clear()
        for pair in self._recent():
            if pair == LAB_PAIR:
                self.recent.addItem("the practice lab (nas → client)", pair)
                continue
            client = "this computer" if pair["client"].get("local") else pair["client"].get("target")
            more = pair.get("more", {}).get("targets")
            self.recent.addItem(f"{pair['server'].get('target')} → {client}" + (f", {more}" if more else ""), pair)

    @Slot(int)
    def _on_recent_activated(self, index: int) -> None:
        pair = self.recent.itemData(index)
        if pair == LAB_PAIR:
            self._on_lab_clicked()
            return
        for role, panel in self.panels.items():
            panel.fill(pair[role])
        self.more.setText(str(pair.get("more", {}).get("targets") or ""))
