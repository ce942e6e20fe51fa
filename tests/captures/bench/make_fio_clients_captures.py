"""Records fio-clients-*.out in this folder: fio's front end driving the servers on two lab clients at once.

Needs a lab of two clients (`nfstune lab up --clients 2`). Everything is done by nfstune's own code: the servers
by changes/fio_server.py, the mounts by changes/mount.py, the job files and the front end's argv by
bench/fio_clients.py, all journaled and undone at the end. Run from the repository root:
`PYTHONPATH=app .venv/bin/python tests/captures/bench/make_fio_clients_captures.py`.

Each capture is the front end's stdout, then a line `--- stderr`, its stderr, then `--- exit N`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from nfstune.bench.fio import fio_commands
from nfstune.bench.fio_clients import ClientJob, front_end_argv, job_file
from nfstune.bench.workloads import DROP_CACHES, MIB, WorkloadId, WorkloadSizes
from nfstune.changes.fio_server import start_server
from nfstune.changes.mount import ClientMount
from nfstune.changes.transaction import Transaction
from nfstune.lab import LabConfig, host
from nfstune.lab.config import LAB_IPS
from nfstune.remote import Host
from nfstune.store import Journal, open_store

HERE = Path(__file__).parent
SIZES = WorkloadSizes(seq_file_bytes=24 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=100)


def record(name: str, front_end: Host, argv: list[str]) -> None:
    done = front_end.run(argv, timeout=600, check=False)
    text = f"{done.stdout}--- stderr\n{done.stderr}--- exit {done.exit_status}\n"
    (HERE / name).write_text(text)
    print(f"{name}: exit {done.exit_status}, {len(done.stdout)} bytes of stdout")


def main() -> None:
    lab = LabConfig().as_running()
    if lab.clients < 2:
        raise SystemExit("the lab runs one client: start it with `nfstune lab up --clients 2`")
    with tempfile.TemporaryDirectory() as tmp:
        tx = Transaction(Journal(open_store(Path(tmp) / "nfstune.sqlite3")), print)
        with host(lab, "nas") as nas, host(lab, "client") as c1, host(lab, "client2") as c2:
            clients = {"client": c1, "client2": c2}
            try:
                servers, scratch = {}, {}
                for name, c in clients.items():
                    servers[name] = start_server(c, tx, LAB_IPS[name])
                    mount = ClientMount(c, nas, tx, server_address="nas", export_path="/export", options="vers=4.2")
                    mount.mount()
                    scratch[name] = mount.scratch
                for workload in (WorkloadId.SEQ_WRITE, WorkloadId.SEQ_READ, WorkloadId.SYNC_4K):
                    jobs = []
                    for name in clients:
                        path = f"/var/tmp/nfstune-capture-{name}.fio"
                        tx.record(c1, "tempfile", path)
                        run = fio_commands(workload, scratch[name], SIZES).run
                        c1.write_file(path, job_file(run).encode())
                        jobs.append(ClientJob(name, servers[name].reached_as, path))
                    if workload is WorkloadId.SEQ_READ:
                        for h in (nas, c1, c2):
                            h.run(DROP_CACHES, sudo=True)
                    record(f"fio-clients-{workload}.out", c1, front_end_argv(jobs))
                # a server that is gone when the front end starts: what fio says then
                c2.run(f"kill {servers['client2'].pid}", sudo=True)
                record("fio-clients-one-server-gone.out", c1, front_end_argv(jobs))
            finally:
                tx.undo(announce=True)


if __name__ == "__main__":
    main()
