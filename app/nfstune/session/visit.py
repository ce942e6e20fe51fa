"""One visit of a configuration: its host changes (a scratch filesystem or the export's options, nfsd's threads,
the client's mount and read-ahead, the further clients' mounts), journaled in the visit's own transaction; the run
of each workload it opens in the store; its workloads under the samplers; and the undo of every change, whether
the visit ends, fails or is cancelled."""

from __future__ import annotations

from nfstune.bench.sizing import files_bytes
from nfstune.bench.workloads import WorkloadSizes
from nfstune.changes.export import ExportChange, exportfs_table, read_export_files
from nfstune.changes.isolated import IsolatedExport, export_options, scratch_size_mib
from nfstune.changes.mount import ClientMount, make_scratch, set_readahead
from nfstune.changes.nfsd_threads import set_threads
from nfstune.changes.transaction import Transaction
from nfstune.errors import NfstuneError
from nfstune.nfs.export_edit import export_edit
from nfstune.recipes.model import Config
from nfstune.recipes.plan import Plan, RecipePlan, Visit
from nfstune.remote import Host, RemoteError
from nfstune.session.admin import Admin, Event
from nfstune.session.inputs import SessionHosts, SessionStore
from nfstune.session.load_clients import SessionLoad
from nfstune.session.progress import SessionProgress
from nfstune.session.rounds import RecipeFigures
from nfstune.session.samplers import LiveSamples
from nfstune.session.workload_run import WorkloadRunner


class VisitExecutor:
    """The visits of one session's plan. `appliance`: the server's vendor when it is one (nothing is written)."""

    def __init__(
        self,
        plan: Plan,
        hosts: SessionHosts,
        store: SessionStore,
        admin: Admin,
        *,
        appliance: str | None,
        progress: SessionProgress,
        load: SessionLoad,
        samples: LiveSamples,
        runner: WorkloadRunner,
    ) -> None:
        self.plan, self.hosts, self.store, self.admin, self.appliance = plan, hosts, store, admin, appliance
        self.progress, self.load, self.samples, self.runner = progress, load, samples, runner

    def run(
        self,
        session_id: int,
        item: RecipePlan,
        visit: Visit,
        runs: dict[tuple[str, str], int],
        figures: RecipeFigures,
        sizes: WorkloadSizes,
    ) -> None:
        """`runs`: the recipe's runs by (configuration, workload), opened here at their first visit."""
        server, client, share = self.hosts.server, self.hosts.client, self.hosts.share
        recipe, config = item.recipe, item.recipe.config(visit.label)
        name = "warm-up" if visit.warmup else f"round {visit.round}"
        self.progress.say(f"{recipe.id} {name}: {config.label}")
        tx = Transaction(self.store.journal, self.admin.log)
        try:
            export_path, change = share, None
            if config.filesystem is not None:
                export_path = self._scratch_filesystem(tx, config, sizes)
            else:
                change = self._change_export(tx, config)
            if config.nfsd_threads is not None:
                set_threads(self._server(), tx, config.nfsd_threads)
            mount = ClientMount(
                client,
                server,
                tx,
                server_address=self.hosts.server_address,
                export_path=export_path,
                options=visit.mount_options,
                scratch_name=self.plan.scratch_name,
                mount_point=self.plan.mount_point,
            )
            negotiated = mount.mount()
            loads = []
            if config.clients is not None:
                loads = self.load.mount(
                    tx, config.clients, mount, visit.mount_options, self.plan.scratch_name, self.plan.mount_point
                )
            if config.read_ahead_kb is not None:
                set_readahead(client, tx, mount.mount_point, config.read_ahead_kb)
            if change is not None:
                client.run(["ls", mount.scratch])  # the kernel fills its caches when a client uses them
                change.verify_kernel(change.expect)
            # the options in force are kept with each run: read only when this visit opens one (its first round)
            opens = any((config.label, workload) not in runs for workload in visit.workloads)
            export_opts = self._export_in_force(export_path, required=bool(config.export)) if opens else None
            roles = (*(("server",) if server is not None else ()), "client", *(load.name for load in loads[1:]))
            with self.samples.samplers(mount.mount_point, [load.host for load in loads[1:]]):
                for workload in visit.workloads:
                    self.admin.check_cancel()
                    run_id = runs.get((config.label, workload))
                    if run_id is None:
                        run_id = runs[(config.label, workload)] = self._open_run(
                            session_id, recipe.id, config, workload, negotiated, export_opts
                        )
                    self.runner.run(visit, workload, run_id, sizes, figures, mount, loads)
                self.samples.wait_closed(roles)
        except BaseException:
            self.samples.flush()
            tx.undo(announce=True)  # cancelled or failed: each step said as it is put back
            raise
        self.samples.flush()
        tx.undo(announce=self.admin.cancel.is_set())  # the admin pressed Cancel: from then on every step is said
        self.admin.emit(
            Event(
                "config",
                f"{recipe.id} {name}: {config.label} done",
                {"recipe": recipe.id, "config": config.label, "round": visit.round},
            )
        )

    def _open_run(
        self, session_id: int, recipe: str, config: Config, workload: str, negotiated: str, export_opts: str | None
    ) -> int:
        results = self.store.results
        run_id = results.start_run(
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
        results.set_run_options(run_id, requested=config.mount.render(), negotiated=negotiated, export=export_opts)
        return run_id

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
        return {client: opts for (p, client), opts in exportfs_table(self._server()).items() if p == path}

    def _server(self) -> Host:
        """The server, for what only runs on it; the plan skips such configurations when there is no login."""
        if self.hosts.server is None:
            raise NfstuneError(f"nfstune cannot log in to {self.hosts.server_address}: nothing can change there")
        return self.hosts.server

    def _scratch_filesystem(self, tx: Transaction, config: Config, sizes: WorkloadSizes) -> str:
        """A scratch filesystem of the configuration's type, exported alone to this client (or to the share's own
        clients when its address is not known: never to more than the share is), undone with the visit. Its
        path on the server."""
        assert config.filesystem is not None
        server, share = self._server(), self.hosts.share
        spec = self.hosts.client_address or next(iter(self._table(share)), None)
        if not spec:
            raise NfstuneError(
                f"{server.label}: the share {share} is not exported, so nfstune cannot tell which client "
                "a scratch filesystem may be exported to"
            )
        limits = self.plan.size_limits or sizes
        scratch = IsolatedExport(
            server,
            tx,
            share_path=share,
            client_spec=spec,
            options=export_options(config.export.set),
            size_mib=scratch_size_mib(files_bytes(limits), config.filesystem),
            filesystem=config.filesystem,
            appliance=self.appliance,
        )
        scratch.apply()
        # the session's scratch directory, on this filesystem too (it goes with the filesystem at the undo)
        make_scratch(server, tx, scratch.path, self.plan.scratch_name)
        self.runner.forget_seq_file()
        return scratch.path

    def _change_export(self, tx: Transaction, config: Config) -> ExportChange | None:
        """None when the configuration changes no export option, or when the file already says what it would
        (nothing is written nor journaled then)."""
        if not config.export:
            return None
        server, share = self._server(), self.hosts.share
        files = read_export_files(server)
        file, new_text, mode = export_edit(files, share, config.export)
        if new_text == files[file].encode("utf-8", "surrogateescape"):
            self.admin.log(f"{server.label}: {file} already has {config.label}'s options: not written")
            return None
        change = ExportChange(server, tx, file=file, new_text=new_text, expect={share: mode}, appliance=self.appliance)
        change.apply()
        return change
