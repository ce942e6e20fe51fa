"""The steps of a visit's workloads, as the plan shows them: for each workload its prepare, the cache drop or sync
on the client and on the server, the timed run and the cleanup; from one client, or from several at once through
fio's front end (bench/clients_runner.py). The argv are the ones the engine's runners send (bench/commands.py)."""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.bench.clients_runner import JOB_PREFIX as CLIENTS_JOB_PREFIX
from nfstune.bench.commands import repeat_steps, workload_commands
from nfstune.bench.fio import fio_commands
from nfstune.bench.fio_clients import ClientJob, front_end_argv
from nfstune.bench.workloads import WorkloadId, WorkloadSizes
from nfstune.changes.fio_server import DEFAULT_PORT as FIO_SERVER_PORT
from nfstune.changes.host_change import client_name
from nfstune.changes.steps import Step, write
from nfstune.shell_text import join


@dataclass(frozen=True)
class WorkloadSteps:
    sizes: WorkloadSizes
    fio_available: bool
    scratch: str  # the scratch directory as the client sees it
    server_login: bool  # False: nothing runs on the server (its cache is not dropped)

    def of(self, workload: WorkloadId, clients: int | None) -> list[Step]:
        """`clients`: how many clients run it at once through fio's front end; None: the client alone."""
        return self.one_client(workload) if clients is None else self.several_clients(workload, clients)

    def one_client(self, workload: WorkloadId) -> list[Step]:
        commands = workload_commands(workload, self.scratch, self.sizes, fio_available=self.fio_available)
        steps = repeat_steps(commands)
        flush = "drop the page cache" if commands.needs_cold_cache else "flush what the step before left dirty"
        prepare = "prepare (untimed), " if commands.prepare else ""
        cleanup = "clean up, " if steps.cleans_up else ""
        return [
            Step("client", steps.before_client, True, f"{workload}: {prepare}{flush}, read the mount's counters"),
            *self._server_flush(steps.before_server, steps.server_sudo, f"{workload}: {flush} on the server"),
            Step("client", steps.run, True, f"{workload}: the timed run ({commands.tool})"),
            Step("client", steps.after_client, True, f"{workload}: {cleanup}read the mount's counters again"),
        ]

    def _server_flush(self, argv: tuple[str, ...], sudo: bool, what: str) -> list[Step]:
        return [Step("server", argv, sudo, what)] if self.server_login else []

    def several_clients(self, workload: WorkloadId, clients: int) -> list[Step]:
        """Each client in a directory of its own in the scratch directory, started together by fio's front end on
        the first client."""
        names = [client_name(k) for k in range(1, clients + 1)]
        prepared: list[Step] = []
        cleanups: list[Step] = []
        for name in names:
            commands = fio_commands(workload, f"{self.scratch}/{name}", self.sizes)
            steps = repeat_steps(commands)
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
            *self._server_flush(steps.before_server, steps.server_sudo, f"{workload}: flush on the server"),
            Step(
                "client",
                tuple(front_end_argv(jobs)),
                True,
                f"{workload}: the timed run: fio's front end on the first client starts the job on every client's "
                "fio server at the same moment",
            ),
            *cleanups,
        ]
