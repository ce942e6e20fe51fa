"""One repeat of a workload on the client, in the session's scratch directory on the NFS mount: its untimed
preparation, a cold cache (or flushed dirty pages), both hosts' writeback idle (writeback.py), the tool streamed
with its progress and a cancel, the parsed result, the bytes the mount moved on the wire meanwhile, and the
cleanup. Knows nothing of recipes, the store or
the engine's events: the engine stores what `run` returns.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from nfstune.bench.commands import counters_text, parser_for, repeat_steps, workload_commands
from nfstune.bench.workloads import MIB, Progress, WorkloadId, WorkloadResult, WorkloadSizes
from nfstune.bench.writeback import Flush, WritebackWait, wait_idle
from nfstune.errors import Cancelled
from nfstune.nfs.mountstats import nfs_mounts
from nfstune.remote import Host


@dataclass(frozen=True)
class Measured:
    result: WorkloadResult
    wire_bytes: int  # server_read + server_write of the mount's mountstats during the run
    writeback: tuple[WritebackWait, ...] = ()  # each host's wait for its writeback before the run


class ClientRunner:
    """Runs repeats on `client` against `server`, one at a time. One per session: it remembers the size of the
    sequential file seq-write left in the scratch directory, so that a seq-read finds a file of its own size."""

    def __init__(
        self,
        client: Host,
        server: Host | None,
        *,
        fio_available: bool,
        cancel: threading.Event,
        progress: Callable[[Progress], None],
        log: Callable[[str], None],
        waiting: Callable[[str], None] = lambda _text: None,
    ) -> None:
        """`progress` is called about once a second while a tool runs; `cancel` stops the tool (or the wait before
        it) and raises Cancelled; `waiting` gets a line about once a second while a host is still writing back.
        `server`: None when nfstune cannot log in to it: its cache is then neither flushed nor dropped
        (session/nas_view.py says what that does to the figures)."""
        self.client, self.server, self.fio_available = client, server, fio_available
        self.cancel, self.progress, self.log, self.waiting = cancel, progress, log, waiting
        self.seq_file_bytes: int | None = None  # the sequential file in the scratch directory; None: none yet

    def run(
        self, workload: WorkloadId, sizes: WorkloadSizes, *, scratch: str, mount_point: str, export_path: str
    ) -> Measured:
        """One repeat in `scratch`, a directory under the NFS mount at `mount_point` of the server's `export_path`."""
        commands = workload_commands(workload, scratch, sizes, fio_available=self.fio_available)
        if workload is WorkloadId.SEQ_READ and self.seq_file_bytes != sizes.seq_file_bytes:
            # the file was written at another size (the sizes grew since, or a recipe of other sizes wrote it):
            # write it again at this size, untimed, before the caches are dropped
            self._lay_out_seq_file(sizes, scratch)
        steps = repeat_steps(commands, mount_point)
        before = self.client.run(list(steps.before_client), sudo=True, timeout=600).stdout
        wire_before = self.wire_bytes(before, mount_point)
        if self.server is not None and steps.before_server:
            self.server.run(list(steps.before_server), sudo=steps.server_sudo, timeout=600)
        flushes = [Flush("client", self.client, mount_point, True)]
        if self.server is not None:
            flushes.append(Flush("server", self.server, export_path, False))
        waits = wait_idle(flushes, cancel=self.cancel, say=self.waiting, log=self.log)
        parser = parser_for(commands)
        proc = self.client.start(list(commands.run), sudo=True, timeout=3600)
        for stream, chunk in proc.chunks():
            if self.cancel.is_set():
                proc.cancel()
                raise Cancelled("cancelled during a workload: every change was undone")
            if stream == "out":
                for step in parser.feed(chunk):
                    self.progress(step)
        result = parser.result()
        after = self.client.run(list(steps.after_client), sudo=True, timeout=600).stdout
        measured = Measured(result, self.wire_bytes(after, mount_point) - wire_before, waits)
        if workload is WorkloadId.SEQ_WRITE:
            self.seq_file_bytes = sizes.seq_file_bytes
        return measured

    @staticmethod
    def wire_bytes(output: str, mount_point: str) -> int:
        """Bytes the mount at `mount_point` moved on the wire so far (server_read + server_write of its
        mountstats), from the output of a step that read them (commands.repeat_steps); 0 for a mount that is not
        NFS."""
        for m in nfs_mounts(counters_text(output)):
            if m.mount_point == mount_point and m.nfs is not None:
                return int(m.nfs.bytes.get("server_read_bytes") or 0) + int(m.nfs.bytes.get("server_write_bytes") or 0)
        return 0

    def _lay_out_seq_file(self, sizes: WorkloadSizes, scratch: str) -> None:
        write = workload_commands(WorkloadId.SEQ_WRITE, scratch, sizes, fio_available=self.fio_available)
        self.log(f"writing the {sizes.seq_file_bytes // MIB} MiB sequential file for seq-read (untimed)")
        for argv in write.prepare:
            self.client.run(list(argv), sudo=True, timeout=600)
        self.client.run(list(write.run), sudo=True, timeout=3600)
        self.seq_file_bytes = sizes.seq_file_bytes
