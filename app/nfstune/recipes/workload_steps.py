"""The steps of a visit's workloads, as the plan shows them: for each workload its prepare, the cache drop or flush
on the client and on the server, each host's wait for its writeback to be idle (bench/writeback.py), the timed run
and the cleanup; from one client, or from several at once through fio's front end (bench/clients_runner.py). The
argv are the ones the engine's runners send (bench/commands.py)."""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.bench.clients_runner import JOB_PREFIX as CLIENTS_JOB_PREFIX
from nfstune.bench.commands import RepeatSteps, repeat_steps, workload_commands
from nfstune.bench.fio import fio_commands
from nfstune.bench.fio_clients import ClientJob, front_end_argv
from nfstune.bench.workloads import WorkloadId, WorkloadSizes
from nfstune.bench.writeback import LIMIT_S, THRESHOLD_KIB, idle_argv
from nfstune.changes.fio_server import DEFAULT_PORT as FIO_SERVER_PORT
from nfstune.changes.host_change import client_name
from nfstune.changes.steps import Step, write
from nfstune.shell_text import join


@dataclass(frozen=True)
class WorkloadSteps:
    sizes: WorkloadSizes
    fio_available: bool
    scratch: str  # the scratch directory as the client sees it
    mount_point: str  # nfstune's NFS mount on the client, which holds the scratch directory
    server_login: bool  # False: nothing runs on the server (its cache is not dropped)

    def of(self, workload: WorkloadId, clients: int | None, export_path: str) -> list[Step]:
        """`clients`: how many clients run it at once through fio's front end; None: the client alone.
        `export_path`: the export the visit mounts, as the server's path."""
        if clients is None:
            return self.one_client(workload, export_path)
        return self.several_clients(workload, clients, export_path)

    def one_client(self, workload: WorkloadId, export_path: str) -> list[Step]:
        commands = workload_commands(workload, self.scratch, self.sizes, fio_available=self.fio_available)
        steps = repeat_steps(commands, self.mount_point)
        flush = "drop the page cache" if commands.needs_cold_cache else "flush what the step before left dirty"
        prepare = "prepare (untimed), " if commands.prepare else ""
        cleanup = "clean up, " if steps.cleans_up else ""
        return [
            Step("client", steps.before_client, True, f"{workload}: {prepare}{flush}, read the mount's counters"),
            *self._server_flush(steps, f"{workload}: drop the page cache on the server"),
            *self._idle([("client", self.mount_point)], export_path, workload),
            Step("client", steps.run, True, f"{workload}: the timed run ({commands.tool})"),
            Step("client", steps.after_client, True, f"{workload}: {cleanup}read the mount's counters again"),
        ]

    def _server_flush(self, steps: RepeatSteps, what: str) -> list[Step]:
        if not (self.server_login and steps.before_server):
            return []
        return [Step("server", steps.before_server, steps.server_sudo, what)]

    def _idle(self, clients: list[tuple[str, str]], export_path: str, workload: WorkloadId) -> list[Step]:
        """Each host's flush and wait for its writeback, all at once: the clients' (name, path on the mount), then
        the server's."""
        idle = f"Dirty + Writeback under {THRESHOLD_KIB // 1024} MiB, at most {LIMIT_S:.0f} s"
        steps = [
            Step(name, idle_argv(path), True, f"{workload}: sync -f {path}, then wait until writeback is idle ({idle})")
            for name, path in clients
        ]
        if self.server_login:
            what = f"{workload}: sync -f {export_path}, then wait until writeback is idle ({idle}), beside the clients"
            steps.append(Step("server", idle_argv(export_path), False, what))
        return steps

    def several_clients(self, workload: WorkloadId, clients: int, export_path: str) -> list[Step]:
        """Each client in a directory of its own in the scratch directory, started together by fio's front end on
        the first client."""
        names = [client_name(k) for k in range(1, clients + 1)]
        prepared: list[Step] = []
        cleanups: list[Step] = []
        for name in names:
            commands = fio_commands(workload, f"{self.scratch}/{name}", self.sizes)
            steps = repeat_steps(commands, f"{self.scratch}/{name}")
            job = f"{CLIENTS_JOB_PREFIX}{name}.fio"
            prepared += [
                Step(name, steps.before_client, True, f"{workload}: prepare (untimed) and flush, in its own directory"),
                write(
                    "client",
                    job,
                    f"{workload}: {name}'s fio job file (journaled, removed at the end): {join(commands.run)}",
                ),
            ]
            cleanups.append(Step(name, steps.after_client, True, f"{workload}: clean up"))
        jobs = [ClientJob(n, f"<{n}'s address>,{FIO_SERVER_PORT}", f"{CLIENTS_JOB_PREFIX}{n}.fio") for n in names]
        return [
            *prepared,
            *self._server_flush(steps, f"{workload}: drop the page cache on the server"),
            *self._idle([(name, f"{self.scratch}/{name}") for name in names], export_path, workload),
            Step(
                "client",
                tuple(front_end_argv(jobs)),
                True,
                f"{workload}: the timed run: fio's front end on the first client starts the job on every client's "
                "fio server at the same moment",
            ),
            *cleanups,
        ]
