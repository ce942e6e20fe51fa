"""One visit of a configuration: the host changes its plan lists (recipes/visit_changes.py: a scratch filesystem or
the export's options, nfsd's threads, the mounts and read-ahead), applied in the visit's own transaction; the run of
each workload it opens in the store; its workloads under the samplers; and the undo of every change, whether the
visit ends, fails or is cancelled."""

from __future__ import annotations

from nfstune.bench.workloads import WorkloadSizes
from nfstune.changes.export import exportfs_table
from nfstune.changes.host_change import OnHosts, Where, apply_all
from nfstune.changes.nfs_scratch import scratch_work
from nfstune.changes.transaction import Transaction
from nfstune.errors import NfstuneError
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
        server, client = self.hosts.server, self.hosts.client
        recipe, config = item.recipe, item.recipe.config(visit.label)
        name = "warm-up" if visit.warmup else f"round {visit.round}"
        self.progress.say(f"{recipe.id} {name}: {config.label}")
        data: dict[str, object] = {"recipe": recipe.id, "config": config.label, "round": visit.round}
        self.admin.emit(Event("visit", f"{recipe.id} {name}: {config.label}", {**data, "workloads": visit.workloads}))
        tx = Transaction(self.store.journal, self.admin.log)
        on = self.on_hosts(tx)
        try:
            apply_all(visit.changes, on, self.admin.check_cancel)
            if on.new_filesystem:
                self.runner.forget_seq_file()
            negotiated = on.negotiated["client"]
            loads = self.load.loads(config.clients, on) if config.clients is not None else []
            if on.after_mount:
                # the kernel fills its caches when a client uses them; a stat, for the login may not be root and
                # the scratch directory is not its to list (0700, the user the share maps root to)
                client.run(["stat", "-c", "%i", on.where.scratch])
                for check in on.after_mount:
                    check()
            # the options in force are kept with each run: read only when this visit opens one (its first round)
            opens = any((config.label, workload) not in runs for workload in visit.workloads)
            export_opts = self._export_in_force(on.where.export_path, required=bool(config.export)) if opens else None
            roles = (*(("server",) if server is not None else ()), "client", *(load.name for load in loads[1:]))
            with self.samples.samplers(on.where.mount_point, [load.host for load in loads[1:]]):
                for workload in visit.workloads:
                    self.admin.check_cancel()
                    run_id = runs.get((config.label, workload))
                    if run_id is None:
                        run_id = runs[(config.label, workload)] = self._open_run(
                            session_id, recipe.id, config, workload, negotiated, export_opts
                        )
                    self.runner.run(visit, workload, run_id, sizes, figures, on.where, loads)
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
                data,
            )
        )

    def on_hosts(self, tx: Transaction) -> OnHosts:
        """The session's hosts and places, for a list of the plan's changes journaled in `tx`."""
        hosts, plan = self.hosts, self.plan
        return OnHosts(
            Where(
                hosts.share,
                hosts.server_address,
                plan.mount_point,
                plan.scratch_name,
                work=scratch_work(plan.server_login),
            ),
            tx,
            hosts.server,
            self.load.by_role,
            self.load.addresses,
            client_address=hosts.client_address,
            appliance=self.appliance,
            log=self.admin.log,
        )

    def _open_run(
        self, session_id: int, recipe: str, config: Config, workload: str, negotiated: str, export_opts: str | None
    ) -> int:
        results = self.store.results
        run_id = results.start_run(
            session_id,
            recipe=recipe,
            config_label=config.label,
            config=config.stored(),
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
