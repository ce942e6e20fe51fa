"""Records fio-sync-4k-loopback.out and fio-clients-sync-4k-loopback.out in this folder: sync-4k's latency histogram
(fio's json+ "bins") from one fio, and from two fio servers driven by one front end, all on this machine's loopback.

Needs fio 3.33 on the PATH (Debian bookworm's `apt-get install fio`), and nothing else: no lab, no NFS. Every argv
and job file is nfstune's own (bench/fio.py, bench/fio_clients.py). The two "clients" are two fio servers on
127.0.0.1, ports 8765 and 8766: "client" writes to a directory on the machine's disk, "client2" to one on tmpfs
(/dev/shm, where O_DSYNC costs nothing), so that their latencies differ by orders of magnitude, as a client on a
slow link beside one on a fast link would: the case where merging the histograms and averaging the clients'
percentiles part. Run from the repository root:
`PYTHONPATH=app .venv/bin/python tests/captures/bench/make_loopback_captures.py`.

Each capture is fio's stdout, then a line `--- stderr`, its stderr, then `--- exit N`, as the lab's captures.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from nfstune.bench.fio import fio_commands
from nfstune.bench.fio_clients import ClientJob, front_end_argv, job_file
from nfstune.bench.workloads import MIB, WorkloadId, WorkloadSizes

HERE = Path(__file__).parent
SIZES = WorkloadSizes(seq_file_bytes=4 * MIB, small_file_count=20, small_file_bytes=4096, sync_4k_count=50)
PORTS = {"client": 8765, "client2": 8766}


def record(name: str, argv: list[str], cwd: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=300, check=False)
    (HERE / name).write_text(f"{done.stdout}--- stderr\n{done.stderr}--- exit {done.returncode}\n")
    print(f"{name}: exit {done.returncode}, {len(done.stdout)} bytes of stdout")


def main() -> None:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as disk, tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
        record("fio-sync-4k-loopback.out", list(fio_commands(WorkloadId.SYNC_4K, disk, SIZES).run), disk)
        os.remove(os.path.join(disk, "nfstune-sync4k.dat"))
        directories = {"client": disk, "client2": shm}
        servers = [
            subprocess.Popen(["fio", f"--server=ip:127.0.0.1,{port}"], start_new_session=True, cwd=disk)
            for port in PORTS.values()
        ]
        try:
            time.sleep(1)  # each server listens within a few ms; the front end gives up at once on a refusal
            jobs = []
            for name, port in PORTS.items():
                path = Path(disk) / f"{name}.fio"
                path.write_text(job_file(fio_commands(WorkloadId.SYNC_4K, directories[name], SIZES).run))
                jobs.append(ClientJob(name, f"127.0.0.1,{port}", str(path)))
            record("fio-clients-sync-4k-loopback.out", front_end_argv(jobs), disk)
        finally:
            for server in servers:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=10)


if __name__ == "__main__":
    main()
