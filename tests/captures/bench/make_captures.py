"""Records the captures in this folder from the practice lab (`nfstune lab up` must be running).

Every command is built by nfstune.bench itself, so the captures are the output of exactly the argv the unit
tests check. Run from the repository root: `.venv/bin/python tests/captures/bench/make_captures.py`.
See README.md for what each file is.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from pathlib import Path

from nfstune.bench import fallback, fio, iperf
from nfstune.bench.sampler import sampler_command
from nfstune.bench.workloads import WorkloadCommands, WorkloadId, WorkloadSizes
from nfstune.lab import LabConfig, ssh_argv

LAB = LabConfig().as_running()  # what `nfstune lab ssh VM 'COMMAND'` runs

HERE = Path(__file__).parent
MOUNT_POINT = "/mnt/bench-cap"
SCRATCH = f"{MOUNT_POINT}/nfstune-bench-cap"
REMOTE_OUT = "/tmp/nfstune-bench-cap"  # on the client's local disk
SIZES = WorkloadSizes(seq_file_bytes=24 * 1024 * 1024, small_file_count=30, small_file_bytes=4096, sync_4k_count=100)
IPERF_PORT = 5299  # not iperf3's default 5201, which someone else in the lab may be using
SETTLE_S = 1.5  # sampler snapshots before and after each workload


def ssh(vm: str, command: str) -> str:
    print(f"[{vm}] {command[:160]}", flush=True)
    # bytes, decoded by hand: text=True would turn dd's "\r" progress separators into "\n"
    done = subprocess.run([*ssh_argv(LAB, vm), command], capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"[{vm}] exit {done.returncode}: {done.stderr.decode()}")
    return done.stdout.decode()


def drop_caches(vm: str) -> None:
    ssh(vm, "sync && echo 3 > /proc/sys/vm/drop_caches")


def workload(name: str, commands: WorkloadCommands, *, sampled: bool) -> None:
    """Runs prepare + run on the client; stdout to NAME.out, stderr to NAME.err, exit status to NAME.rc."""
    out = f"{REMOTE_OUT}/{name}"
    steps = [shlex.join(step) for step in commands.prepare]
    if commands.needs_cold_cache:
        drop_caches("nas")
        steps.append("sync && echo 3 > /proc/sys/vm/drop_caches")
    run = f"if {shlex.join(commands.run)} > {out}.out 2> {out}.err; then echo 0 > {out}.rc; else echo $? > {out}.rc; fi"
    if sampled:
        sampler = sampler_command(MOUNT_POINT, 1.0)
        run = (
            f"sh -c {shlex.quote(sampler)} > {REMOTE_OUT}/sampler-client-{name}.txt & spid=$!; sleep {SETTLE_S}; "
            f"{run}; sleep {SETTLE_S}; kill $spid"
        )
    ssh("client", "set -e; " + "; ".join([*steps, run]))


def iperf_run(name: str, argv: list[str]) -> None:
    server = subprocess.Popen(
        [*ssh_argv(LAB, "nas"), shlex.join(iperf.iperf_server_argv(IPERF_PORT))],
        stdout=open(HERE / f"iperf-server-{name}.txt", "w"),  # noqa: SIM115 (closed when the server exits)
        stderr=subprocess.STDOUT,
    )
    time.sleep(8)  # ssh to the nas and the server's listen
    (HERE / f"iperf-{name}.txt").write_text(ssh("client", shlex.join(argv)))
    server.wait(timeout=60)


def main() -> None:
    ssh(
        "client",
        f"mkdir -p {MOUNT_POINT} {REMOTE_OUT} && (mountpoint -q {MOUNT_POINT} || "
        f"mount -t nfs -o vers=4.2 nas:/export {MOUNT_POINT}) && mkdir -p {SCRATCH}",
    )
    # the NAS's sampler runs through the fio seq-write on the client: its disks must show the file's bytes
    nas_sampler = subprocess.Popen(
        [*ssh_argv(LAB, "nas"), f"timeout 30 sh -c {shlex.quote(sampler_command(None, 1.0))}"],
        stdout=open(HERE / "sampler-nas-fio-seq-write.txt", "w"),  # noqa: SIM115 (closed at its timeout)
    )
    time.sleep(8)
    workload("fio-seq-write", fio.fio_commands(WorkloadId.SEQ_WRITE, SCRATCH, SIZES), sampled=True)
    nas_sampler.wait(timeout=60)
    workload("fio-seq-read", fio.fio_commands(WorkloadId.SEQ_READ, SCRATCH, SIZES), sampled=True)
    workload("fio-sync-4k", fio.fio_commands(WorkloadId.SYNC_4K, SCRATCH, SIZES), sampled=True)
    workload("dd-seq-write", fallback.fallback_commands(WorkloadId.SEQ_WRITE, SCRATCH, SIZES), sampled=False)
    workload("dd-seq-read", fallback.fallback_commands(WorkloadId.SEQ_READ, SCRATCH, SIZES), sampled=False)
    workload("dd-sync-4k", fallback.fallback_commands(WorkloadId.SYNC_4K, SCRATCH, SIZES), sampled=False)
    small = fallback.fallback_commands(WorkloadId.SMALL_FILES, SCRATCH, SIZES)
    workload("tar-small-files", small, sampled=True)
    ssh("client", f"tar -tvf {fallback.SMALL_FILES_TAR} > {REMOTE_OUT}/small-files-tar-listing.txt")
    idle_sampler = shlex.quote(sampler_command(MOUNT_POINT, 1.0))
    ssh("client", f"timeout 5 sh -c {idle_sampler} > {REMOTE_OUT}/sampler-idle.txt; test $? -eq 124")  # timeout: 124
    for name in ssh("client", f"ls {REMOTE_OUT}").split():
        text = ssh("client", f"cat {REMOTE_OUT}/{name}")
        if name.endswith(".rc"):
            assert text.strip() == "0", f"{name}: exit status {text.strip()}"
        elif text or not name.endswith(".err"):  # stderr only when there was some
            (HERE / name).write_text(text)

    iperf_run("text", iperf.iperf_client_argv("10.99.0.1", IPERF_PORT, 3))
    iperf_run("text-reverse", iperf.iperf_client_argv("10.99.0.1", IPERF_PORT, 3, reverse=True))
    iperf_run("json", iperf.iperf_client_argv("10.99.0.1", IPERF_PORT, 3, json_output=True))
    iperf_run("json-reverse", iperf.iperf_client_argv("10.99.0.1", IPERF_PORT, 3, reverse=True, json_output=True))

    # clean-up: our files on the share and on the client, the mount, the mount point
    ssh(
        "client",
        f"rm -rf {SCRATCH} {REMOTE_OUT} {fallback.SMALL_FILES_TAR} && umount {MOUNT_POINT} && rmdir {MOUNT_POINT}",
    )
    print(ssh("client", f"grep -c bench-cap /proc/mounts; ls /mnt /var/tmp; ls {REMOTE_OUT} 2>&1 || true"))
    print(ssh("nas", f"ls -la /export; pgrep -a iperf3 || echo no iperf3; ss -ltn | grep {IPERF_PORT} || echo free"))


if __name__ == "__main__":
    main()
