"""Executes a plan (recipes.plan) on a server and a client: for each recipe the warm-up visits, then rounds in
which every configuration is visited once in the plan's order. A visit changes the export and/or mounts with the
configuration's options (journaled), runs each workload once on the client (bench.runner), stores that round's
repeat with its raw output and judges it by its figure (bench.figure), and undoes every change. The rounds stop by
rounds.stop_reason. Reports plain events through a callback; never imports Qt.
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Sequence

from nfstune.bench.clients_runner import LoadClient
from nfstune.bench.figure import client_shares, clients_record, figure, repeat_record
from nfstune.bench.live import HostSampler, RunSamples, Samplers
from nfstune.bench.runner import ClientRunner
from nfstune.bench.sizing import files_bytes
from nfstune.bench.stall import StallWatch, stall_message
from nfstune.bench.workloads import SMALL_FILES_TAR, Progress, WorkloadId
from nfstune.changes.export import (
    ApplianceRefused,
    ExportChange,
    exportfs_table,
    list_connected_clients,
    read_export_files,
)
from nfstune.changes.isolated import IsolatedExport, export_options, scratch_size_mib
from nfstune.changes.mount import ClientMount, make_scratch, set_readahead
from nfstune.changes.nfsd_listener import add_rdma_listener
from nfstune.changes.nfsd_threads import set_threads
from nfstune.changes.transaction import Transaction, recover_on_connect
from nfstune.errors import Cancelled, NfstuneError
from nfstune.facts.appliance import async_setting_hint
from nfstune.nfs.export_edit import export_edit
from nfstune.nfs.kernel_view import NfsClient
from nfstune.nfs.mounts import parse_proc_mounts
from nfstune.nfs.own_mount import MOUNT_ROOT
from nfstune.recipes.model import WORKLOADS, Config
from nfstune.recipes.plan import Plan, RecipePlan, Visit, client_name, rdma_ports_needed
from nfstune.remote import Host, RemoteError
from nfstune.remote.local import is_local
from nfstune.session.admin import Admin, Declined, Event
from nfstune.session.baselines import Baseline, measure_all
from nfstune.session.growth import next_sizes
from nfstune.session.guard import AsyncStep, ServerChange
from nfstune.session.inputs import SessionHosts, SessionSettings, SessionStore
from nfstune.session.load_clients import LoadHost, SessionLoad, clients_needed
from nfstune.session.rounds import Eta, RecipeFigures, rounds_to_expect, stop_reason

__all__ = ["Cancelled", "Declined", "Engine", "Event"]


class Engine:
    def __init__(self, hosts: SessionHosts, store: SessionStore, admin: Admin, settings: SessionSettings) -> None:
        self.hosts, self.store, self.admin, self.settings = hosts, store, admin, settings
        # the names the methods below read (until the engine is split by job)
        self.server, self.client, self.server_address, self.share = (
            hosts.server,
            hosts.client,
            hosts.server_address,
            hosts.share,
        )
        self.sizes, self.results, self.journal = settings.sizes, store.results, store.journal
        self.fio_available = settings.fio_available
        self.cancel = admin.cancel
        self.server_disks, self.server_nic, self.client_nic = hosts.server_disks, hosts.server_nic, hosts.client_nic
        self.sample_interval_s = settings.sample_interval_s
        self.baselines, self.iperf_available, self.iperf_seconds = (
            settings.baselines,
            settings.iperf_available,
            settings.iperf_seconds,
        )
        self.appliance, self.client_address, self.confirm = settings.appliance, hosts.client_address, admin.confirm
        self.likely = settings.likely
        self._eta: Eta | None = None
        self._t0 = time.monotonic()
        self._samples = RunSamples(self.sample_interval_s)
        self._stall = StallWatch()  # a workload with no NFS traffic for a minute: the server stopped answering?
        self._plan: Plan | None = None
        self._scratch = ""  # the session's scratch directory on the server
        self._planned_sizes = self.sizes  # each recipe starts with these; growth.py may grow them between rounds
        self._runner: ClientRunner | None = None  # one per session: it knows the scratch directory's files
        first = LoadHost(self.client, self.client_address or "", self.fio_available)
        self.load = SessionLoad(
            self.server,
            [first, *hosts.more],
            server_address=self.server_address,
            share=self.share,
            cancel=self.cancel,
            log=self.log,
        )

    def emit(self, event: Event) -> None:
        self.admin.emit(event)

    def log(self, message: str) -> None:
        self.emit(Event("log", message))

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled: every change was undone")

    def run(self, session_id: int, plan: Plan) -> None:
        recover_on_connect([self.server, *(c.host for c in self.load.hosts)], self.journal, self.log)
        try:
            if not plan.scratch_name:
                raise NfstuneError("the plan names no scratch directory: it was not made for a session")
            self.load.check(plan)
            self._guard_server(plan)
        except BaseException as exc:
            self.results.end_session(session_id, "cancelled" if isinstance(exc, Cancelled) else "failed", str(exc))
            raise
        self._plan, self._eta, self._fraction = plan, Eta(plan, self.likely), 0.0
        if plan.sizes is not None:  # the workloads run with what their argv in the plan were made with
            self.sizes, self.fio_available = plan.sizes, plan.fio_available
        self._planned_sizes = self.sizes
        self._runner = ClientRunner(
            self.client,
            self.server,
            fio_available=self.fio_available,
            cancel=self.cancel,
            progress=self._step,
            log=self.log,
        )
        # one scratch directory for the whole session, on the server, used by every configuration: the files of
        # each configuration then land in the same part of the disk. Measured in the lab (hdd profile): with a new
        # directory per configuration, ext4 put each in another block group, and the same settings' seq-write
        # differed by 25-66 % from one configuration to the next while agreeing within 10 % inside each.
        session_tx = Transaction(self.journal, self.log)
        try:
            try:
                self._scratch = make_scratch(self.server, session_tx, self.share, plan.scratch_name)
                if any("small-files" in v.workloads for item in plan.recipes for v in item.visits):
                    # its tar is built once on the client's own disk, kept for every visit, and ours to remove
                    session_tx.record(self.client, "tempfile", SMALL_FILES_TAR)
                for port in rdma_ports_needed(plan):
                    add_rdma_listener(self.server, session_tx, port)
                if clients_needed(plan):
                    self._progress(f"starting fio's server on {clients_needed(plan)} clients")
                    self.load.start(plan, session_tx)
                if self.baselines:
                    self._measure_baselines(session_id)
                for item in plan.recipes:
                    self._check_cancel()
                    self._run_recipe(session_id, item)
            except BaseException:
                session_tx.undo(announce=True)  # cancelled or failed: each step said as it is put back
                raise
            session_tx.undo(announce=self.cancel.is_set())
        except Cancelled as exc:
            self.results.end_session(session_id, "cancelled", str(exc))
            raise
        except BaseException as exc:
            self.results.end_session(session_id, "failed", str(exc))
            raise
        self.results.end_session(session_id, "completed")

    def _guard_server(self, plan: Plan) -> None:
        """Before anything is changed: refuse an appliance's exports, and have the admin confirm a change of the
        export while other clients use the server."""
        server_side = [(item, c) for item in plan.recipes for c in item.configs if c.export]
        if not server_side:
            return
        if self.appliance is not None:
            names = ", ".join(f"{item.recipe.id} {c.label}" for item, c in server_side)
            raise ApplianceRefused(
                f"{self.server.label} is a {self.appliance} appliance, which owns its NFS configuration: nfstune "
                f"does not write its exports ({names} would). Nothing was changed. To switch asynchronous writes "
                f"there: {async_setting_hint(self.appliance)}"
            )
        clients = list_connected_clients(self.server)
        if not clients:
            self.log(f"{self.server.label}: no other NFS client is connected")
            return
        if self._only_own_leftovers(clients):
            self.log(
                f"{self.server.label}: the only NFS client state is {self.client.label}'s, which mounts nothing over "
                "NFS but nfstune's own: the lease an earlier unmount left (NFSv4 keeps it a minute or two)"
            )
            return
        steps = tuple(
            AsyncStep(
                f"{item.recipe.id} {c.label}",
                len(c.workloads or item.recipe.workloads),
                sum(1 for v in item.visits if v.label == c.label),
            )
            for item, c in server_side
            if "async" in c.export.set
        )
        change = ServerChange(
            self.server.label,
            self.share,
            tuple(clients),
            self.client_address,
            self.client.label,
            len(server_side),
            steps,
        )
        self.log(change.message())
        if self.confirm is None or not self.confirm(change):
            raise Declined(
                f"not confirmed: {self.share} on {self.server.label} was not changed while "
                f"{len(clients)} client connection(s) use that server. Nothing was changed."
            )

    def _only_own_leftovers(self, clients: Sequence[NfsClient]) -> bool:
        """Whether every connected client is nfstune's own client host, which has no NFS mount (of any server, by
        any name) but under nfstune's mount root: a session right after another (nfs-versions' vers=4.0, then
        quick-check) otherwise met its own expiring lease and stopped to ask about "another client"."""
        own = {load.address: load.host for load in self.load.hosts if load.address}
        if any(c.host not in own for c in clients):
            return False
        for address in {c.host for c in clients}:  # the further clients of a many-clients session are ours too
            proc_mounts = own[address].run(["cat", "/proc/mounts"], action="reading /proc/mounts").stdout
            mounts = parse_proc_mounts(proc_mounts)
            if any(posixpath.dirname(m.mount_point) != MOUNT_ROOT for m in mounts if m.is_nfs):
                return False
        return True

    def _measure_baselines(self, session_id: int) -> None:
        self._progress("baselines: the network (iperf3) and the server's own disk")

        def found(b: Baseline) -> None:
            self.results.add_baseline(
                session_id,
                kind=b.kind,
                direction=b.direction,
                mb_per_s=b.mb_per_s,
                seconds=b.seconds,
                size=b.bytes,
                raw=b.raw_output,
            )
            self.emit(
                Event(
                    "baseline",
                    f"{b.label}: {b.mb_per_s:.3g} MB/s",
                    {"kind": b.kind, "direction": b.direction, "mb_per_s": b.mb_per_s},
                )
            )

        # the disk baseline's file stays in the session's scratch directory (removed with it); seq-write
        # replaces it, in the same place on the disk
        measure_all(
            self.server,
            self.client,
            address=self.server_address,
            directory=self._scratch,
            sizes=self.sizes,
            iperf_seconds=self.iperf_seconds,
            iperf_available=self.iperf_available,
            cancel=self.cancel,
            warn=lambda text: self.emit(Event("warning", text)),
            found=found,
        )
        self._check_cancel()

    def _progress(self, message: str) -> None:
        elapsed = time.monotonic() - self._t0
        now = time.monotonic()
        eta = self._eta.remaining_s(now) if self._eta is not None else None
        at_most = self._eta.at_most_s(now) if self._eta is not None else None
        done = elapsed / (elapsed + eta) if eta is not None and elapsed + eta > 0 else 0.0
        # never backwards: more rounds expected make the time left longer, not the work done less (the bar fell
        # from 88 % to 27 % on the lab when no-wdelay needed rounds beyond its minimum)
        self._fraction = max(self._fraction, done)
        self.emit(Event("progress", message, {"fraction": self._fraction, "eta_s": eta, "eta_max_s": at_most}))

    def _run_recipe(self, session_id: int, item: RecipePlan) -> None:
        """The warm-up visits, then round after round until stop_reason says why not another; one run per
        (configuration, workload), opened at its first visit and ended with the recipe."""
        assert self._eta is not None
        runs: dict[tuple[str, str], int] = {}
        figures = RecipeFigures(item)
        status = "failed"
        started, round_times = time.monotonic(), []
        self._eta.recipe_started(started)
        self.sizes = self._planned_sizes
        try:
            for number in range(item.rounds.max + 1):
                self._eta.round_started(item, number)
                round_start = time.monotonic()
                for visit in (v for v in item.visits if v.round == number):
                    self._check_cancel()
                    visit_start = time.monotonic()
                    self._visit(session_id, item, visit, runs, figures)
                    self._eta.visit_done(visit, time.monotonic() - visit_start)
                if number == 0:
                    continue
                round_times.append(time.monotonic() - round_start)
                elapsed = time.monotonic() - started
                why = stop_reason(figures, number, elapsed, round_times)
                if why is not None:
                    self.log(f"{item.recipe.id}: {why}")
                    break
                if number >= item.rounds.min:  # beyond the minimum: as many rounds as settling needs and fit
                    fit = number + int(max(0.0, item.budget_s - elapsed) // max(max(round_times[-3:]), 1.0))
                    likely = self._eta.likely_rounds[item.recipe.id]
                    self._eta.expect_rounds(item, rounds_to_expect(figures, number, fit, likely))
                self._grow(item, figures, number, time.monotonic() - started, round_times)
            self._eta.recipe_done(item, number)
            status = "completed"
        except Cancelled:
            status = "cancelled"
            raise
        finally:
            for run_id in runs.values():
                self.results.end_run(run_id, status)

    def _grow(
        self, item: RecipePlan, figures: RecipeFigures, rounds_done: int, elapsed_s: float, round_times: list[float]
    ) -> None:
        limits = self._plan.size_limits if self._plan is not None else None
        if limits is None:
            return
        growth = next_sizes(figures, self.sizes, limits, rounds_done, elapsed_s, round_times)
        if growth is not None:
            self.sizes = growth.sizes
            for reason in growth.reasons:
                self.log(f"{item.recipe.id}, from round {rounds_done + 1}: {reason}")

    def _visit(
        self,
        session_id: int,
        item: RecipePlan,
        visit: Visit,
        runs: dict[tuple[str, str], int],
        figures: RecipeFigures,
    ) -> None:
        assert self._plan is not None
        recipe, config = item.recipe, item.recipe.config(visit.label)
        name = "warm-up" if visit.warmup else f"round {visit.round}"
        self._progress(f"{recipe.id} {name}: {config.label}")
        tx = Transaction(self.journal, self.log)
        try:
            export_path, change = self.share, None
            if config.filesystem is not None:
                export_path = self._scratch_filesystem(tx, config)
            else:
                change = self._change_export(tx, config)
            if config.nfsd_threads is not None:
                set_threads(self.server, tx, config.nfsd_threads)
            mount = ClientMount(
                self.client,
                self.server,
                tx,
                server_address=self.server_address,
                export_path=export_path,
                options=visit.mount_options,
                scratch_name=self._plan.scratch_name,
                mount_point=self._plan.mount_point,
            )
            negotiated = mount.mount()
            loads = []
            if config.clients is not None:
                loads = self.load.mount(
                    tx, config.clients, mount, visit.mount_options, self._plan.scratch_name, self._plan.mount_point
                )
            if config.read_ahead_kb is not None:
                set_readahead(self.client, tx, mount.mount_point, config.read_ahead_kb)
            if change is not None:
                self.client.run(["ls", mount.scratch])  # the kernel fills its caches when a client uses them
                change.verify_kernel(change.expect)
            # the options in force are kept with each run: read only when this visit opens one (its first round)
            opens = any((config.label, workload) not in runs for workload in visit.workloads)
            export_opts = self._export_in_force(export_path, required=bool(config.export)) if opens else None
            roles = ("server", "client", *(load.name for load in loads[1:]))
            with self._samplers(mount.mount_point, [load.host for load in loads[1:]]):
                for workload in visit.workloads:
                    self._check_cancel()
                    run_id = runs.get((config.label, workload))
                    if run_id is None:
                        run_id = runs[(config.label, workload)] = self._open_run(
                            session_id, recipe.id, config, workload, negotiated, export_opts
                        )
                    if loads:
                        self._run_clients_workload(visit, workload, run_id, loads, figures)
                    else:
                        self._run_workload(visit, workload, run_id, mount, figures)
                # the samples covering the last run's final second arrive after it: keep them before stopping
                self._samples.wait_closed(roles)
        except BaseException:
            self._flush_samples()
            tx.undo(announce=True)  # cancelled or failed: each step said as it is put back
            raise
        self._flush_samples()
        tx.undo(announce=self.cancel.is_set())  # the admin pressed Cancel: from then on every step is said
        self.emit(
            Event(
                "config",
                f"{recipe.id} {name}: {config.label} done",
                {"recipe": recipe.id, "config": config.label, "round": visit.round},
            )
        )

    def _open_run(
        self, session_id: int, recipe: str, config: Config, workload: str, negotiated: str, export_opts: str | None
    ) -> int:
        run_id = self.results.start_run(
            session_id,
            recipe=recipe,
            config_label=config.label,
            config={
                "mount": config.mount.render(),
                "export_set": list(config.export.set),
                "read_ahead_kb": config.read_ahead_kb,
                "expect": config.expect,
                "clients": config.clients,
                "nfsd_threads": config.nfsd_threads,
            },
            workload=workload,
        )
        self.results.set_run_options(run_id, requested=config.mount.render(), negotiated=negotiated, export=export_opts)
        return run_id

    def _samplers(self, mount_point: str, more: Sequence[Host] = ()) -> Samplers:
        """The server's and the client's samplers, and one for each further client a visit loads the NAS from
        (its role is its name, "client2"...: the live graph draws a line per client)."""
        # the machine nfstune runs on is read through psutil (and its own /proc/self/mountstats), not a shell loop
        server = HostSampler(
            None if is_local(self.server) else self.server,
            "server",
            self._on_sample,
            disks=self.server_disks,
            nic=self.server_nic,
            interval_s=self.sample_interval_s,
        )
        client = HostSampler(
            None if is_local(self.client) else self.client,
            "client",
            self._on_sample,
            mount_point=mount_point,
            nic=self.client_nic,
            interval_s=self.sample_interval_s,
        )
        further = [
            HostSampler(
                None if is_local(h) else h,
                client_name(number),
                self._on_sample,
                mount_point=mount_point,
                interval_s=self.sample_interval_s,
            )
            for number, h in enumerate(more, start=2)
        ]
        return Samplers((server, client, *further), lambda text: self.emit(Event("warning", text)))

    def _on_sample(self, role: str, t: float, series: dict[str, float]) -> None:
        """On a sampler's thread: pass the sample on live, and keep it for the run in progress (if any)."""
        self._samples.add(role, t, series)
        self.emit(Event("sample", "", {"role": role, "time": t, "series": series}))
        if role == "client" and self._stall.sample(t, series):
            self.emit(Event("warning", stall_message(self.client.label, self.server_address, self._stall.after_s)))

    def _flush_samples(self) -> None:
        for (run_id, role), rows in self._samples.take().items():
            self.results.add_samples(run_id, role, rows)

    def _export_in_force(self, path: str, *, required: bool) -> str | None:
        """The export's options as the kernel runs them (`exportfs -s`), kept with every run: what History compares
        two sessions by. Only a configuration that changed the export must have them; for the others a server
        that cannot say (None) does not stop the run."""
        try:
            table = self._table(path)
        except (RemoteError, NfstuneError):
            if required:
                raise
            return None
        return ",".join(next(iter(table.values()), ())) or None

    def _table(self, path: str) -> dict[str, tuple[str, ...]]:
        return {client: opts for (p, client), opts in exportfs_table(self.server).items() if p == path}

    def _scratch_filesystem(self, tx: Transaction, config: Config) -> str:
        """A scratch filesystem of the configuration's type, exported alone to this client (or to the share's own
        clients when its address is not known: never to more than the share is), undone with the visit. Its
        path on the server."""
        assert config.filesystem is not None
        spec = self.client_address or next(iter(self._table(self.share)), None)
        if not spec:
            raise NfstuneError(
                f"{self.server.label}: the share {self.share} is not exported, so nfstune cannot tell which client "
                "a scratch filesystem may be exported to"
            )
        limits = self._plan.size_limits if self._plan is not None and self._plan.size_limits else self.sizes
        scratch = IsolatedExport(
            self.server,
            tx,
            share_path=self.share,
            client_spec=spec,
            options=export_options(config.export.set),
            size_mib=scratch_size_mib(files_bytes(limits), config.filesystem),
            filesystem=config.filesystem,
            appliance=self.appliance,
        )
        scratch.apply()
        assert self._plan is not None
        # the session's scratch directory, on this filesystem too (it goes with the filesystem at the undo)
        make_scratch(self.server, tx, scratch.path, self._plan.scratch_name)
        if self._runner is not None:
            self._runner.seq_file_bytes = None  # a new filesystem: seq-write's file of an earlier visit is not on it
        return scratch.path

    def _change_export(self, tx: Transaction, config: Config) -> ExportChange | None:
        """None when the configuration changes no export option, or when the file already says what it would
        (nothing is written nor journaled then)."""
        if not config.export:
            return None
        files = read_export_files(self.server)
        file, new_text, mode = export_edit(files, self.share, config.export)
        if new_text == files[file].encode("utf-8", "surrogateescape"):
            self.log(f"{self.server.label}: {file} already has {config.label}'s options: not written")
            return None
        change = ExportChange(
            self.server, tx, file=file, new_text=new_text, expect={self.share: mode}, appliance=self.appliance
        )
        change.apply()
        return change

    def _run_workload(
        self, visit: Visit, workload: str, run_id: int, mount: ClientMount, figures: RecipeFigures
    ) -> None:
        assert self._runner is not None
        self._samples.begin(run_id)
        self._stall.start()
        try:
            measured = self._runner.run(
                WorkloadId(workload), self.sizes, scratch=mount.scratch, mount_point=mount.mount_point
            )
            record = repeat_record(measured.result, measured.wire_bytes)
            value = figure(workload, record)
            self.results.add_repeat(run_id, visit.round, warmup=visit.warmup, values=record)
        finally:
            self._stall.stop()
            self._samples.end()
            self._flush_samples()
        figures.add(workload, visit.label, visit.round, value, measured.result.seconds)
        unit = WORKLOADS[workload].unit
        label = "warm-up" if visit.warmup else f"round {visit.round}"
        self.emit(
            Event(
                "repeat",
                f"{visit.recipe} {visit.label} {workload} {label}: {value:.3g} {unit}",
                {"run_id": run_id, "value": value, "warmup": visit.warmup, "round": visit.round},
            )
        )

    def _run_clients_workload(
        self, visit: Visit, workload: str, run_id: int, loads: Sequence[LoadClient], figures: RecipeFigures
    ) -> None:
        assert self.load.runner is not None
        self._samples.begin(run_id)
        self._stall.start()
        try:
            result = self.load.runner.run(WorkloadId(workload), self.sizes, loads)
            record = clients_record(result)
            value = figure(workload, record)
            repeat_id = self.results.add_repeat(run_id, visit.round, warmup=visit.warmup, values=record)
            self.results.add_repeat_clients(repeat_id, client_shares(result))
        finally:
            self._stall.stop()
            self._samples.end()
            self._flush_samples()
        figures.add(workload, visit.label, visit.round, value, result.seconds)
        unit = WORKLOADS[workload].unit
        label = "warm-up" if visit.warmup else f"round {visit.round}"
        shares = ", ".join(f"{name} {r.mb_per_s:.3g} MB/s" for name, r in result.per_client.items())
        self.emit(
            Event(
                "repeat",
                f"{visit.recipe} {visit.label} {workload} {label}: {value:.3g} {unit} together ({shares})",
                {
                    "run_id": run_id,
                    "value": value,
                    "warmup": visit.warmup,
                    "round": visit.round,
                    "clients": {name: r.mb_per_s for name, r in result.per_client.items()},
                },
            )
        )

    def _step(self, step: Progress) -> None:
        self.emit(Event("step", "", {"bytes": step.interval_bytes, "elapsed_s": step.elapsed_s}))
