"""One repeat of a workload on several clients at once (issue 13): each client's untimed preparation and flush, the
server's cache drop for a cold read, every host's writeback idle (writeback.py), then one fio front end (on the
first client) that starts the same job on every client's fio server, and the per-client results. Like runner.py it
knows nothing of recipes or the store; unlike it, it needs fio on every client (dd cannot start on several
machines at one moment) and the servers already running (changes/fio_server.py).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from nfstune.bench.commands import repeat_steps
from nfstune.bench.fio import fio_commands
from nfstune.bench.fio_clients import ClientJob, ClientsResult, front_end_argv, job_file, parse_front_end
from nfstune.bench.workloads import FRONT_END_WORKLOADS, WorkloadId, WorkloadSizes
from nfstune.bench.writeback import Flush, wait_idle
from nfstune.changes.transaction import Transaction
from nfstune.errors import Cancelled, NfstuneError
from nfstune.remote import Host, RemoteError, RemoteProcess
from nfstune.words import count

JOB_PREFIX = "/var/tmp/nfstune-fio-job-"  # on the front end's host; a "tempfile" of the journal


@dataclass(frozen=True)
class LoadClient:
    name: str  # as nfstune names the host ("client2")
    host: Host
    scratch: str  # its own scratch directory, on its own mount of the export
    server: str  # its fio server as the front end reaches it: "ADDRESS,PORT"


class ClientsRunner:
    """Runs repeats from the clients given to run(), the first of them hosting the front end."""

    def __init__(
        self,
        server: Host | None,
        tx: Transaction,
        *,
        cancel: threading.Event,
        log: Callable[[str], None],
        journaled: Collection[str] = (),
        waiting: Callable[[str], None] = lambda _text: None,
    ) -> None:
        """`server`: None when nfstune cannot log in to it (nothing is flushed there). `journaled`: the job files the
        session journaled already, on the front end's host (the first client). `waiting`: a line about once a second
        while a host is still writing back before a run."""
        self.server, self.tx, self.cancel, self.log, self.waiting = server, tx, cancel, log, waiting
        # (front end, path) journaled here
        self._job_files: set[tuple[str, str]] = set()
        self._journaled = frozenset(journaled)
        self._seq_file_bytes: dict[str, int] = {}  # client name -> size of the sequential file seq-write left

    def run(
        self, workload: WorkloadId, sizes: WorkloadSizes, clients: Sequence[LoadClient], export_path: str
    ) -> ClientsResult:
        """`export_path`: the export the clients mount, as the server's path (its filesystem is flushed there)."""
        if workload not in FRONT_END_WORKLOADS:
            raise NfstuneError(f"{workload} runs on one client at a time: fio's front end does not start it")
        if not clients:
            raise NfstuneError("a load from several clients needs at least one client")
        if workload is WorkloadId.SEQ_READ:
            behind = [c.name for c in clients if self._seq_file_bytes.get(c.name) != sizes.seq_file_bytes]
            if behind:
                raise NfstuneError(f"seq-read needs seq-write's file of this size first on {', '.join(behind)}")
        front_end = clients[0].host
        prepared = []
        for client in clients:
            commands = fio_commands(workload, client.scratch, sizes)
            steps = repeat_steps(commands, client.scratch)
            client.host.run(list(steps.before_client), sudo=True, timeout=600, action=f"preparing {workload}")
            path = f"{JOB_PREFIX}{client.name}.fio"
            if path not in self._journaled and (front_end.label, path) not in self._job_files:
                self.tx.record(front_end, "tempfile", path)
                self._job_files.add((front_end.label, path))
            front_end.write_file(path, job_file(commands.run).encode(), sudo=True)
            prepared.append((client, steps, ClientJob(client.name, client.server, path)))
        # every client's flush first, then the server's: what the clients flush must reach the server's disk
        server_steps = prepared[0][1]
        if self.server is not None and server_steps.before_server:
            self.server.run(list(server_steps.before_server), sudo=server_steps.server_sudo, timeout=600)
        flushes = [Flush(c.name, c.host, c.scratch, True) for c in clients]
        if self.server is not None:
            flushes.append(Flush("server", self.server, export_path, False))
        waits = wait_idle(flushes, cancel=self.cancel, say=self.waiting, log=self.log)
        jobs = [job for _, _, job in prepared]
        self.log(f"{workload}: {count(len(clients), 'client')} at once through fio's front end on {front_end.label}")
        proc = front_end.start(front_end_argv(jobs), sudo=True, timeout=3600)
        out: list[str] = []
        err: list[str] = []
        # the front end prints nothing until the end: a cancel cannot wait for its output
        finished = threading.Event()
        watcher = threading.Thread(target=self._cancel_when_asked, args=(proc, finished), daemon=True)
        watcher.start()
        try:
            for stream, chunk in proc.chunks():
                (out if stream == "out" else err).append(chunk)
        except RemoteError:
            if not self.cancel.is_set():
                raise
        finally:
            finished.set()
            watcher.join()
        if self.cancel.is_set():
            raise Cancelled("cancelled during a workload: every change was undone")
        # every client's job moves the same bytes: the sizes are the same, only the directory differs
        result = parse_front_end(workload, jobs, "".join(out), "".join(err), commands.expected_bytes)
        result = dataclasses.replace(result, writeback=waits)
        for client, steps, _ in prepared:
            client.host.run(list(steps.after_client), sudo=True, timeout=600, action=f"cleaning up after {workload}")
            if workload is WorkloadId.SEQ_WRITE:
                self._seq_file_bytes[client.name] = sizes.seq_file_bytes
        return result

    def _cancel_when_asked(self, proc: RemoteProcess, finished: threading.Event) -> None:
        while not finished.is_set():
            if self.cancel.wait(0.2):
                proc.cancel()  # the whole process group: fio's front end tells its servers to stop the job
                return
