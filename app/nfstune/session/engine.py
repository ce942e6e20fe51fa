"""Executes a plan (recipes.plan) on a server and its clients: the session from its start to its end. Before
anything is changed: what an earlier run left is undone, the clients are checked, and the server guarded
(server_change_consent.py). Then the session's own changes as the plan lists them (Plan.session_changes: its scratch
directory, fio's servers, nfsd's RDMA listeners), journaled in one transaction; the ceilings (ceilings.py); and
each recipe's rounds (recipe_rounds.py), whose visits (visit.py) make the changes the plan lists for them, run the
workloads (workload_run.py) under the samplers (samplers.py) and undo their changes. The session's changes are
undone at its end, on cancel and on failure, and its end stored. Reports plain events (admin.py) through a
callback; never imports Qt.
"""

from __future__ import annotations

from nfstune.bench.runner import ClientRunner
from nfstune.bench.workloads import WorkloadSizes
from nfstune.changes.host_change import apply_all
from nfstune.changes.transaction import Transaction, recover_on_connect
from nfstune.errors import Cancelled, NfstuneError
from nfstune.recipes.plan import Plan
from nfstune.session.admin import Admin, Declined, Event
from nfstune.session.ceilings import Ceiling, measure_all
from nfstune.session.hand_rounds import HandRounds
from nfstune.session.inputs import SessionHosts, SessionSettings, SessionStore
from nfstune.session.latency import Latency, measure_latencies
from nfstune.session.load_clients import LoadHost, SessionLoad, clients_needed
from nfstune.session.progress import SessionProgress
from nfstune.session.recipe_rounds import RecipeRounds
from nfstune.session.samplers import LiveSamples
from nfstune.session.server_change_consent import guard_server
from nfstune.session.visit import VisitExecutor
from nfstune.session.workload_run import WorkloadRunner
from nfstune.words import count

__all__ = ["Cancelled", "Declined", "Engine", "Event"]


class Engine:
    def __init__(self, hosts: SessionHosts, store: SessionStore, admin: Admin, settings: SessionSettings) -> None:
        self.hosts, self.store, self.admin, self.settings = hosts, store, admin, settings
        self.progress = SessionProgress(admin)
        self.samples = LiveSamples(hosts, settings.sample_interval_s, store.results, admin)
        first = LoadHost(hosts.client, hosts.client_address or "", settings.fio_available)
        self.load = SessionLoad(
            hosts.server,
            [first, *hosts.more],
            server_address=hosts.server_address,
            share=hosts.share,
            cancel=admin.cancel,
            log=admin.log,
            waiting=self.progress.waiting,
        )

    def run(self, session_id: int, plan: Plan) -> None:
        hosts, results, admin = self.hosts, self.store.results, self.admin
        logged_in = [hosts.server] if hosts.server is not None else []
        recover_on_connect([*logged_in, *(c.host for c in self.load.hosts)], self.store.journal, admin.log)
        try:
            if not plan.scratch_name:
                raise NfstuneError("the plan names no scratch directory: it was not made for a session")
            self.load.check(plan)
            guard_server(plan, hosts, self.load.hosts, admin, appliance=self.settings.appliance)
        except BaseException as exc:
            results.end_session(session_id, "cancelled" if isinstance(exc, Cancelled) else "failed", str(exc))
            raise
        eta = self.progress.start(plan, self.settings.likely)
        sizes, fio_available = self.settings.sizes, self.settings.fio_available
        if plan.sizes is not None:  # the workloads run with what their argv in the plan were made with
            sizes, fio_available = plan.sizes, plan.fio_available
        client = ClientRunner(
            hosts.client,
            hosts.server,
            fio_available=fio_available,
            cancel=admin.cancel,
            progress=self.progress.step,
            log=admin.log,
            waiting=self.progress.waiting,
        )
        runner = WorkloadRunner(client, self.load, self.samples, results, admin)
        visits = VisitExecutor(
            plan,
            hosts,
            self.store,
            admin,
            appliance=self.settings.appliance,
            progress=self.progress,
            load=self.load,
            samples=self.samples,
            runner=runner,
        )
        rounds = RecipeRounds(plan, sizes, eta, visits, results, admin)
        by_hand = HandRounds(visits, results, admin, eta, self.progress)
        # one scratch directory for the whole session, on the server, used by every configuration: the files of
        # each configuration then land in the same part of the disk. Measured in the lab (hdd profile): with a new
        # directory per configuration, ext4 put each in another block group, and the same settings' seq-write
        # differed by 25-66 % from one configuration to the next while agreeing within 10 % inside each.
        session_tx = Transaction(self.store.journal, admin.log)
        try:
            try:
                # the plan's own list: the scratch directory, the small-files tar, nfsd's RDMA listeners, fio's
                # servers and their job files
                if clients_needed(plan):
                    self.progress.say(f"starting fio's server on {count(clients_needed(plan), 'client')}")
                on = visits.on_hosts(session_tx)
                apply_all(plan.session_changes, on, admin.check_cancel)
                self.load.started(on, session_tx)
                scratch = on.scratch
                if self.settings.ceilings:
                    self._measure_ceilings(session_id, scratch, sizes)
                for item in plan.recipes:
                    admin.check_cancel()
                    if item.hand is not None:  # a guided hand change: blocks, the admin switching between them
                        by_hand.run(session_id, item, sizes)
                    else:
                        rounds.run(session_id, item)
            except BaseException:
                session_tx.undo(announce=True)  # cancelled or failed: each step said as it is put back
                raise
            session_tx.undo(announce=admin.cancel.is_set())
        except Cancelled as exc:
            results.end_session(session_id, "cancelled", str(exc))
            raise
        except BaseException as exc:
            results.end_session(session_id, "failed", str(exc))
            raise
        results.end_session(session_id, "completed")

    def _measure_ceilings(self, session_id: int, scratch: str, sizes: WorkloadSizes) -> None:
        """The ceilings: without a login on the server, only the network round trip (ping from the client)."""
        if self.hosts.server is None:
            self.progress.say("ceilings: the network round trip (ping); the others need a login on the server")
        else:
            self.progress.say("ceilings: the network (iperf3 and ping) and the server's own disk")
        self._measure_latencies(session_id, scratch, sizes)
        if self.hosts.server is None:
            return

        def found(b: Ceiling) -> None:
            self.store.results.add_baseline(
                session_id,
                kind=b.kind,
                direction=b.direction,
                mb_per_s=b.mb_per_s,
                seconds=b.seconds,
                size=b.bytes,
                raw=b.raw_output,
            )
            self.admin.emit(
                Event(
                    "baseline",
                    f"{b.label}: {b.mb_per_s:.3g} MB/s",
                    {"kind": b.kind, "direction": b.direction, "mb_per_s": b.mb_per_s},
                )
            )

        # the disk baseline's file stays in the session's scratch directory (removed with it); seq-write
        # replaces it, in the same place on the disk
        measure_all(
            self.hosts.server,
            self.hosts.client,
            address=self.hosts.server_address,
            directory=scratch,
            sizes=sizes,
            iperf_seconds=self.settings.iperf_seconds,
            iperf_available=self.settings.iperf_available,
            cancel=self.admin.cancel,
            warn=self.admin.warn,
            found=found,
        )
        self.admin.check_cancel()

    def _measure_latencies(self, session_id: int, scratch: str, sizes: WorkloadSizes) -> None:
        def found(b: Latency) -> None:
            self.store.results.add_latency(
                session_id,
                kind=b.kind,
                tool=b.tool,
                mean_ms=b.mean_ms,
                median_ms=b.median_ms,
                min_ms=b.min_ms,
                max_ms=b.max_ms,
                count=b.count,
                raw_output=b.raw_output,
            )
            self.admin.log(f"{b.label}: {b.text}")

        measure_latencies(
            self.hosts.server,
            self.hosts.client,
            address=self.hosts.server_address,
            directory=scratch,
            sizes=sizes,
            cancel=self.admin.cancel,
            warn=self.admin.warn,
            found=found,
        )
        self.admin.check_cancel()
