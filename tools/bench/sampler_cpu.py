"""Benchmark: what the live sampler costs the host it samples. Runs bench/sampler.py's sampler_command (one
snapshot a second, what HostSampler starts on each host during a run) over a real SSH login, in either form
(`--forms`: `vmstat`, one awk ticked by vmstat, what nfstune runs; `loop`, the shell loop starting a sleep, a date
and an awk a second), parses its output as nfstune does, and reads /proc/*/stat of every process of the sampler's
process group at the start and end of a minute: utime+stime+cutime+cstime (the children the shell waited for
included). Also the sshd process that serves the login (its encryption of the stream), and the whole host's CPU
from /proc/stat against a minute without the sampler. Prints figures; asserts nothing.

Figures (2026-11-23, commit fcb199f; one minute each, one snapshot a second):
lab client VM (1 emulated CPU): the loop 17.0 % of one CPU with mountstats (client form), 13.5 % without
(server form); its sshd 0.6 %; the VM 17.1 % busy while sampled against 0.5 % idle; it delivered 55 snapshots in
61 s (on the emulated CPU a snapshot sometimes takes longer than the 1 s interval).
This machine (2 CPUs, AMD EPYC) through a loopback sshd: the loop 0.32 % (client form), 0.35 % (server form); its
sshd 0.02 %; nfstune's side (SSH and parsing) 0.7-0.8 % of one CPU.

Targets: `--lab` samples the running dev lab's client VM (its CPUs are emulated, so every process costs far more
than on real hardware: the worst case), holding /tmp/nfstune-lab.lock while it does (it never brings the lab up
or down); `--loopback` starts a private sshd on 127.0.0.1 and samples this machine. The /proc readings go over a
second login (another sshd process), so they are not counted.

    .venv/bin/python tools/bench/sampler_cpu.py --lab --loopback
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from nfstune.bench.sampler import SampleParser, sampler_command
from nfstune.errors import NfstuneError
from nfstune.remote import Host

ROOT = Path(__file__).resolve().parents[2]
LAB_LOCK = "/tmp/nfstune-lab.lock"
SSHD = "/usr/sbin/sshd"
CLIENT_MOUNT = "/mnt/nfstune"  # mounted or not, the client's loop reads /proc/self/mountstats for it
Reader = Callable[[str], str]  # a shell line on the sampled host -> its stdout


@dataclass(frozen=True)
class Reading:
    uptime: float  # the host's own clock, seconds
    loop_ticks: int  # utime+stime+cutime+cstime of the loop's shell
    sshd_ticks: int  # utime+stime of the sshd serving the sampler's login
    busy: int  # /proc/stat, all CPUs
    total: int


def stat_fields(line: str) -> list[str]:
    """/proc/<pid>/stat after the command name (which may hold spaces): fields 3.. as a list from index 0."""
    return line[line.rindex(")") + 2 :].split()


def cpu_line(line: str) -> tuple[int, int]:
    values = [int(v) for v in line.split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    total = sum(values[:8])  # guest time is already inside user
    return total - idle, total


def read(reader: Reader, pgid: int, sshd_pid: int) -> Reading:
    # vmstat and its awk run for the whole run: their time is in no parent's cutime until they end
    lines = reader(
        f"cat /proc/uptime /proc/{sshd_pid}/stat; head -n 1 /proc/stat; cat /proc/[0-9]*/stat 2>/dev/null; true"
    ).splitlines()
    sshd = stat_fields(lines[1])
    busy, total = cpu_line(lines[2])
    group = [fields for fields in map(stat_fields, lines[3:]) if int(fields[2]) == pgid]  # field 5: pgrp
    return Reading(
        uptime=float(lines[0].split()[0]),
        loop_ticks=sum(int(v) for fields in group for v in fields[11:15]),  # utime stime cutime cstime (14-17)
        sshd_ticks=sum(int(v) for v in sshd[11:13]),
        busy=busy,
        total=total,
    )


def serving_sshd(reader: Reader, pid: int) -> tuple[int, str]:
    """The nearest sshd ancestor of `pid`: the process that carries its login's channels."""
    for _ in range(10):
        fields = stat_fields(reader(f"cat /proc/{pid}/stat"))
        pid = int(fields[1])  # ppid
        comm = reader(f"cat /proc/{pid}/comm").strip()
        if comm.startswith("sshd"):
            return pid, comm
    raise SystemExit(f"no sshd above the sampler's shell (stopped at pid {pid})")


def idle_busy(reader: Reader, seconds: float) -> tuple[float, int]:
    """The host's CPU, % of all CPUs, over `seconds` with no sampler running; and its CPU count."""
    first = reader("head -n 1 /proc/stat; nproc").splitlines()
    time.sleep(seconds)
    second = reader("head -n 1 /proc/stat").splitlines()
    (b0, t0), (b1, t1) = cpu_line(first[0]), cpu_line(second[0])
    return 100 * (b1 - b0) / (t1 - t0), int(first[1])


def measure(name: str, sampled: Host, reader: Reader, role: str, form: str, seconds: float, idle_s: float) -> list[str]:
    hz = int(reader("getconf CLK_TCK"))
    idle, cpus = idle_busy(reader, idle_s) if idle_s else (None, int(reader("nproc")))
    mount = CLIENT_MOUNT if role == "client" else None
    proc = sampled.start(sampler_command(mount, 1.0, ticking=form == "vmstat"))
    assert proc.pgid is not None  # the wrapper's process group: the loop's shell (it exec'd into it)
    samples = [0]

    def consume() -> None:  # what HostSampler does with the stream
        parser = SampleParser()
        for stream, chunk in proc.chunks():
            if stream == "out":
                samples[0] += len(parser.feed(chunk))

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    try:
        sshd_pid, sshd_comm = serving_sshd(reader, proc.pgid)
        time.sleep(3)  # past the first snapshots
        before, ours_before, counted = read(reader, proc.pgid, sshd_pid), os.times(), samples[0]
        time.sleep(seconds)
        after, ours_after = read(reader, proc.pgid, sshd_pid), os.times()
        counted = samples[0] - counted
    finally:
        proc.cancel()
        thread.join(timeout=10)
    span = after.uptime - before.uptime
    loop = 100 * (after.loop_ticks - before.loop_ticks) / hz / span
    sshd = 100 * (after.sshd_ticks - before.sshd_ticks) / hz / span
    host = 100 * (after.busy - before.busy) / (after.total - before.total)
    ours = (ours_after.user + ours_after.system - ours_before.user - ours_before.system) / span * 100
    lines = [
        f"{name}, {form}, {role} form ({'with' if mount else 'without'} mountstats), {span:.0f} s, {counted} "
        f"samples parsed, {cpus} CPUs:",
        f"  the sampler (its whole process group): {loop:.2f} % of one CPU",
        f"  the login's sshd ({sshd_comm}): {sshd:.2f} % of one CPU",
        f"  the host, all CPUs: {host:.1f} % busy while sampled"
        + ("" if idle is None else f", {idle:.1f} % in the minute before without the sampler"),
        f"  nfstune's side (this process: SSH and parsing, plus the readings): {ours:.2f} % of one CPU",
    ]
    for line in lines:
        print(line, flush=True)
    return lines


@contextmanager
def lab_client() -> Iterator[tuple[Host, Host]]:
    from nfstune.lab import LabConfig, host

    with open(LAB_LOCK, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for {LAB_LOCK} (another lab user)", flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        cfg = LabConfig().as_running()
        sampled, readings = host(cfg, "client"), host(cfg, "client")
        try:
            sampled.connect()
            readings.connect()
        except NfstuneError as exc:
            raise SystemExit(
                f"the lab's client is not reachable ({exc}): is the lab up (`nfstune lab status`)?"
            ) from None
        try:
            yield sampled, readings
        finally:
            sampled.close()
            readings.close()


@contextmanager
def loopback_sshd() -> Iterator[tuple[Host, Host]]:
    """A private sshd on 127.0.0.1 (as tests/conftest.py's fixture), logged in to as this user."""
    d = Path(tempfile.mkdtemp(prefix="nfstune-sampler-sshd-"))
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)], check=True)
    shutil.copy(d / "client_key.pub", d / "authorized_keys")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    (d / "sshd_config").write_text(
        f"ListenAddress 127.0.0.1\nHostKey {d / 'host_key'}\nAuthorizedKeysFile {d / 'authorized_keys'}\n"
        f"PidFile {d / 'sshd.pid'}\nPermitRootLogin prohibit-password\nPasswordAuthentication no\nUsePAM no\n"
        "StrictModes no\n"
    )
    key_type, key = (d / "host_key.pub").read_text().split()[:2]
    (d / "known_hosts").write_text(f"[127.0.0.1]:{port} {key_type} {key}\n")
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(d / "sshd_config"), "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        user = os.environ.get("USER") or "root"

        def login() -> Host:
            return Host(
                "127.0.0.1",
                port=port,
                username=user,
                key_filename=d / "client_key",
                known_hosts=d / "known_hosts",
                label=f"loopback sshd :{port}",
            )

        with login() as sampled, login() as readings:
            yield sampled, readings
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(d, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lab", action="store_true", help="sample the running dev lab's client VM")
    parser.add_argument("--loopback", action="store_true", help="sample this machine through a private sshd")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--idle-s", type=float, default=60.0, help="the host without the sampler first (0: skip)")
    parser.add_argument("--roles", default="client,server", help="which hosts' forms (client has mountstats)")
    parser.add_argument("--forms", default="vmstat,loop", help="vmstat (what nfstune runs), loop (the fallback)")
    args = parser.parse_args(argv)
    if not (args.lab or args.loopback):
        parser.error("say where: --lab, --loopback or both")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(f"sampler CPU on the sampled host, commit {commit.stdout.strip()}, Python {sys.version.split()[0]}")
    targets = [("lab client VM (emulated CPUs)", lab_client)] if args.lab else []
    targets += [("this machine through a loopback sshd", loopback_sshd)] if args.loopback else []
    for name, connect in targets:
        with connect() as (sampled, readings):

            def reader(line: str, readings: Host = readings) -> str:
                return readings.run(line).stdout

            runs = [(form, role) for form in args.forms.split(",") for role in args.roles.split(",")]
            for number, (form, role) in enumerate(runs):
                measure(name, sampled, reader, role, form, args.seconds, args.idle_s if number == 0 else 0)


if __name__ == "__main__":
    main()
