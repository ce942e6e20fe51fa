"""The wizard's state and the jobs that change it: connect each host (or the practice lab), probe both, run the
chosen recipes, read the recommendation, apply it. Pages read the state and call these methods; all SSH and
benchmark work happens in jobs on worker threads.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from nfstune.changes.transaction import host_key
from nfstune.recipes.model import Recipe
from nfstune.remote import Host, PermissionDenied, open_host
from nfstune.session.engine import Event
from nfstune.session.nas_view import NO_ROOT_HINT, no_login_label
from nfstune.session.script import RunOutcome, Survey, run_session, survey
from nfstune.session.workflow import Facts, Pair
from nfstune.store import StoredSession
from nfstune.ui.jobs import EventBuffer, Job, JobQueue, Prompter

log = logging.getLogger(__name__)
ROLES = ("server", "client")
MORE_CLIENTS = ("client2", "client3", "client4")  # the roles of further clients (many-clients), as the lab names them


def _role_words(role: str) -> str:
    """A role as an error says it: "server", "client", "client 2"."""
    return f"client {role.removeprefix('client')}" if role in MORE_CLIENTS else role


class ConnState(enum.Enum):
    IDLE = "not connected"
    CONNECTING = "connecting…"
    CONNECTED = "connected"
    FAILED = "failed"


@dataclass(frozen=True)
class HostSpec:
    """How the admin named a host: an ssh target (an alias of ~/.ssh/config, user@host:port, ...) or a lab VM."""

    target: str
    user: str | None = None
    port: int | None = None
    identity_file: str | None = None
    lab_vm: str | None = None  # "nas" or "client": the practice lab's VM instead of `target`
    local: bool = False  # this computer, without SSH
    no_login: bool = False  # the NFS server nfstune cannot log in to: `target` is its name as the client reaches it

    def describe(self) -> str:
        if self.local:
            return "this computer"
        if self.no_login:
            return no_login_label(self.target)
        if self.lab_vm:
            return f"practice lab {self.lab_vm}"
        who = f"{self.user}@" if self.user else ""
        return f"{who}{self.target}" + (f":{self.port}" if self.port else "")


class Controller(QObject):
    host_state = Signal(str, object, str)  # role, ConnState, message
    lab_progress = Signal(str)
    probed = Signal(object)
    probe_failed = Signal(str)
    run_done = Signal(object)  # RunOutcome
    job_failed = Signal(str, str)  # what, message
    crashed = Signal(str)

    def __init__(
        self, prompter: Prompter, store_path: Path | None = None, lab_config: Any = None, ssh_config: Path | None = None
    ) -> None:
        """`lab_config`: the practice lab to use (a LabConfig; default: the user's own lab). `ssh_config`: that SSH
        config file alone, as `ssh -F` (default: ~/.ssh/config and /etc/ssh/ssh_config, as ssh reads them)."""
        super().__init__()
        self.prompter, self.store_path, self.lab_config = prompter, store_path, lab_config
        self.ssh_config = ssh_config
        self.hosts: dict[str, Host] = {}
        self.specs: dict[str, HostSpec] = {}
        self.states: dict[str, ConnState] = dict.fromkeys(ROLES, ConnState.IDLE)
        self.details: dict[str, str] = {}  # a failed host's technical text (the exception), behind its Details
        self.server_address: str | None = None
        self.share: str | None = None
        self.probe: Survey | None = None
        self.outcome: RunOutcome | None = None
        # the last run's session as stored, read on the run's thread once it ended: the Results page shows it
        self.stored: StoredSession | None = None
        self.events = EventBuffer()
        self.sample_sink: Callable[[str, float, dict[str, float]], None] | None = None
        self._jobs: dict[str, Job] = {}
        self.queue = JobQueue(self)
        self._run_job: Job | None = None

    # --- jobs ---------------------------------------------------------------------------------------------------

    def start_job(
        self,
        name: str,
        work: Callable[[Job], Any],
        on_done: Callable[[Any], None],
        on_failed: Callable[[str], None],
        hosts: Collection[str] = ROLES,
    ) -> Job:
        """`hosts`: the roles whose hosts the job uses; it waits while another job uses one of them."""
        job = Job(name, work, hosts)
        job.on_gui_thread(job.finished, on_done)
        job.on_gui_thread(job.failed, on_failed)
        job.crashed.connect(self.crashed)
        job.progress.connect(self.lab_progress)
        self.queue.add(job)
        self._jobs[name] = job
        return job

    # --- connect ------------------------------------------------------------------------------------------------

    def connect_host(self, role: str, spec: HostSpec, server_address: str | None = None) -> None:
        if role == "server" and spec.local and not server_address:
            # "this computer" is no address a client can mount from; the connect page asks for one first
            self._set_state(role, ConnState.FAILED, "this computer as the server needs the address the client uses")
            return
        self.specs[role] = spec
        if role == "server":
            self.server_address = server_address or (spec.target if not spec.lab_vm else "nas")
        if role == "server" and spec.no_login:
            # nothing to log in to: the client mounts it, and the probe sees it from there (session/nas_view.py)
            previous = self.hosts.pop(role, None)
            if previous is not None:
                previous.close()
            self._set_state(role, ConnState.CONNECTED, f"{spec.describe()}: tested from the client alone")
            return
        self._set_state(role, ConnState.CONNECTING, f"connecting to {spec.describe()}…")

        def work(job: Job) -> Host:
            previous = self.hosts.pop(role, None)
            if previous is not None:
                previous.close()
            if spec.lab_vm:
                from nfstune.lab import LabConfig, host, require_running, status, up

                cfg = self.lab_config or LabConfig()
                if not all(s.running for s in status(cfg)):
                    job.progress.emit("starting the practice lab (about a minute)…")
                    up(cfg, job.progress.emit)
                # as `nfstune run --lab` says it: what listens on a VM's port when it does not run is not the lab
                require_running(cfg.as_running(), [spec.lab_vm])
                h = host(cfg.as_running(), spec.lab_vm, role=_role_words(role))
            elif spec.local:
                from nfstune.remote.local import LocalHost

                h = LocalHost(ask_secret=self.prompter.secret)  # sudo's password, if this user needs one
            else:
                h = open_host(
                    spec.target,
                    user=spec.user,
                    port=spec.port,
                    identity_file=Path(spec.identity_file).expanduser() if spec.identity_file else None,
                    on_unknown_host_key=self.prompter.host_key,
                    ask_secret=self.prompter.secret,
                    ssh_config=self.ssh_config,
                    role=_role_words(role),
                )
            for warning in h.target.warnings:  # what of ~/.ssh/config nfstune could not honour: said before connecting
                job.progress.emit(f"{h.label}: note: {warning}")
            h.connect()
            try:  # sudo now, while the admin is looking: a password prompt belongs here
                h.run(["true"], sudo=True, action="checking sudo")
            except PermissionDenied as exc:
                h.close()
                if role != "server":
                    raise
                said = str(exc).removeprefix(f"{exc.host}: ")
                raise PermissionDenied(exc.host, f"{said}. {NO_ROOT_HINT}", exc.details) from None
            self._recover(h, job)
            return h

        def done(h: Host) -> None:
            self.hosts[role] = h
            notes = "".join(f"\nnote: {w}" for w in h.target.warnings)  # kept in view while connected
            said = h.label
            if not spec.lab_vm and not spec.local:  # the address, user and port it went to, not the name alone
                t = h.target
                said = t.destination if t.alias == t.hostname else f"{t.alias}: {t.destination}"
            self._set_state(role, ConnState.CONNECTED, said + notes)

        def failed(message: str) -> None:
            self._set_state(role, ConnState.FAILED, message, getattr(job.error, "details", ""))

        job = self.start_job(f"connect-{role}", work, done, failed, hosts=(role,))

    def _recover(self, host: Host, job: Job) -> None:
        """Whatever an earlier run (killed, crashed, powered off) left changed on this host is undone now."""
        from nfstune.changes.transaction import recover_on_connect
        from nfstune.store import Journal, open_store

        conn = open_store(self.store_path)
        try:
            undone = recover_on_connect([host], Journal(conn), job.progress.emit)
        finally:
            conn.close()
        if undone:
            job.progress.emit(f"{host.label}: undid {len(undone)} change(s) an earlier run had left")

    def connect_lab(self, *, no_login: bool = False) -> None:
        """Both roles on the practice lab, at once when both VMs run; when the lab is down, the server's job
        starts it first and the client connects after it (so the two connections do not both try). `no_login`:
        the lab's NAS as one nfstune cannot log in to (the client's job starts the lab then)."""
        from nfstune.lab import LabConfig, vm_pid

        cfg = self.lab_config or LabConfig()
        if no_login:
            self.connect_host("server", HostSpec("nas", no_login=True), server_address="nas")
        else:
            self.connect_host("server", HostSpec("nas", lab_vm="nas"))
        if no_login or all(
            vm_pid(cfg, vm) is not None for vm in ("nas", "client")
        ):  # pid files only: no SSH on this thread
            self.connect_host("client", HostSpec("client", lab_vm="client"))
        else:
            job = self._jobs["connect-server"]
            job.on_gui_thread(job.finished, lambda _h: self.connect_host("client", HostSpec("client", lab_vm="client")))
            job.on_gui_thread(
                job.failed,
                lambda message: self._set_state("client", ConnState.FAILED, message, getattr(job.error, "details", "")),
            )
        self.share = "/export"
        # a lab already running with further clients (`lab up --clients N`): them too, for many-clients (as_running
        # reads the lab's settings file only; a lab that is down has one client)
        more = cfg.as_running().client_vms[1:]
        self.connect_more([HostSpec(vm, lab_vm=vm) for vm in more if vm_pid(cfg, vm) is not None])

    def connect_more(self, specs: list[HostSpec]) -> None:
        """Further clients, for recipes that load the NAS from several at once: each one connected (and its
        leftovers undone) like the client; those of an earlier list that are not in this one are let go."""
        if len(specs) > len(MORE_CLIENTS):
            raise ValueError(f"at most {len(MORE_CLIENTS)} further clients")
        for role in MORE_CLIENTS[len(specs) :]:
            host = self.hosts.pop(role, None)
            if host is not None:
                host.close()
            self.specs.pop(role, None)
            if self.states.pop(role, None) is not None:
                self.host_state.emit(role, ConnState.IDLE, "")
        for role, spec in zip(MORE_CLIENTS, specs, strict=False):
            self.connect_host(role, spec)

    def more_roles(self) -> list[str]:
        """The further clients' roles, in order."""
        return [role for role in MORE_CLIENTS if role in self.specs]

    def connected_more(self) -> list[str]:
        """The further clients' roles that are connected, in order: those a probe and a run use."""
        return [role for role in self.more_roles() if self.states.get(role) is ConnState.CONNECTED]

    def _set_state(self, role: str, state: ConnState, message: str, details: str = "") -> None:
        self.states[role] = state
        self.details[role] = details
        self.host_state.emit(role, state, message)

    def pair(self) -> Pair:
        if any(self.states[r] is not ConnState.CONNECTED for r in ROLES) or not self.share:
            raise RuntimeError("both hosts must be connected and a share chosen first")
        more = [self.hosts[r] for r in self.connected_more()]
        return Pair(self.hosts.get("server"), self.hosts["client"], self.server_address or "", self.share, more)

    def server_label(self) -> str:
        """The server as messages name it: its login's label, or its address when there is no login."""
        server = self.hosts.get("server")
        return server.label if server is not None else no_login_label(self.server_address or "")

    def server_key(self) -> str:
        """The server's key in the store (Pair.server_key)."""
        server = self.hosts.get("server")
        return host_key(server) if server is not None else f"nfs@{self.server_address}"

    def plan_inputs(self) -> tuple[Pair | None, Facts | None]:
        """What the plan of a run is built from: the connected pair and its probed facts, each None until there
        is one (the planner then assumes the defaults)."""
        facts = self.probe.facts if self.probe is not None else None
        try:
            return self.pair(), facts
        except RuntimeError:
            return None, facts

    # --- probe --------------------------------------------------------------------------------------------------

    def probe_hosts(self) -> None:
        server, client = self.hosts.get("server"), self.hosts["client"]
        more = [self.hosts[r] for r in self.connected_more()]
        address = self.server_address or ""

        def work(_job: Job) -> Survey:
            return survey(Pair(server, client, address, self.share or "", more))

        def done(result: Survey) -> None:
            self.probe = result
            if self.share not in result.exports and result.exports:
                self.share = result.exports[0]
            self.probed.emit(result)

        self.start_job("probe", work, done, self.probe_failed.emit, hosts=(*ROLES, *self.more_roles()))

    def set_share(self, share: str) -> None:
        """Another share than the one probed: the filesystem facts (free space, disks) are read again."""
        if share == self.share:
            return
        self.share = share
        if self.probe is not None:
            self.probe_hosts()

    def install(self, role: str, command: str, on_done: Callable[[bool, str], None]) -> None:
        host = self.hosts[role]

        def work(_job: Job) -> str:
            return host.run(command, sudo=True, timeout=900, action="installing the missing tools").stdout[-500:]

        self.start_job(
            f"install-{role}", work, lambda out: on_done(True, out), lambda msg: on_done(False, msg), hosts=(role,)
        )

    # --- run ----------------------------------------------------------------------------------------------------

    def start_run(self, recipes: list[Recipe], scale: str, seed: int | None = None) -> None:
        """`seed`: the visit order's, as in the plan the admin was shown (None: a new one)."""
        pair, probed = self.pair(), self.probe
        if probed is None:
            raise RuntimeError("probe the hosts first")
        self.outcome, self.stored = None, None
        self.events.drain()

        def emit(event: Event) -> None:  # engine thread and sampler threads
            if event.kind == "sample":
                sink = self.sample_sink
                if sink is not None:
                    sink(str(event.data["role"]), float(event.data["time"]), dict(event.data["series"]))
            else:
                self.events.append(event)

        def work(job: Job) -> tuple[RunOutcome, StoredSession]:
            from nfstune.store import Journal, Results, open_store

            conn = open_store(self.store_path)  # this thread's own connection: sqlite objects stay on one thread
            try:
                outcome = run_session(
                    pair,
                    probed.facts,
                    recipes,
                    scale=scale,
                    results=Results(conn),
                    journal=Journal(conn),
                    emit=emit,
                    cancel=job.cancel,
                    seed=seed,
                    confirm=self.prompter.server_change,  # asked on the GUI thread; the worker waits for the answer
                    ask=lambda prompt: self.prompter.hand(prompt, job.cancel),  # a step on the Run page
                )
                # read here too, with the outcome: the GUI thread shows them and reads nothing
                return outcome, Results(conn).stored_session(outcome.session_id)
            finally:
                conn.close()

        def done(ended: tuple[RunOutcome, StoredSession]) -> None:
            self.outcome, self.stored = ended
            self.run_done.emit(self.outcome)

        self._run_job = self.start_job(
            "run", work, done, lambda msg: self.job_failed.emit("run", msg), hosts=(*ROLES, *self.more_roles())
        )

    def cancel_run(self) -> None:
        if self._run_job is not None:
            self._run_job.cancel.set()

    def shutdown(self) -> bool:
        """On quit: jobs not started are dropped, running ones asked to stop (a run undoes its changes first).
        True when nothing runs any more and the hosts are closed; otherwise `queue.idle` comes when the last job
        has ended, and the caller calls this again then. Never waits: the window stays responsive meanwhile."""
        self.queue.cancel_all()
        if self.queue.busy():
            return False
        for host in self.hosts.values():
            host.close()
        return True

    def when_shut_down(self, then: Callable[[], None]) -> None:
        """Shut down, and call `then` once no job runs any more: at once when none does."""
        if self.shutdown():
            then()
            return

        def idle() -> None:
            self.queue.idle.disconnect(idle)
            self.shutdown()
            then()

        self.queue.idle.connect(idle)
