"""Benchmark: why the lab's async export gives sync-4k two regimes (3-20 ms a write in a first visit, 44-49 ms
after; issue 40). Runs fio's sync-4k job (nfstune's own argv, 50 writes of 4 KiB with O_DSYNC, a new file each
time) on the lab's client against its NAS, under scenarios that separate what could carry state from one run to
the next, and around each run reads what each suspect leaves behind:

- the NAS's page cache: Dirty and Writeback (/proc/meminfo), nr_dirty and nr_writeback (/proc/vmstat);
- its ext4 journal: jbd2's transactions and average commit time (/proc/fs/jbd2/*/info);
- its throttled disk (the hdd profile's dm-delay over vdb): writes and flushes completed (/proc/diskstats);
- the network: TCP's counters on both hosts (nstat: delayed ACKs, quick ACKs, ...), the NFS connection (ss -tni);
- the client's view of each WRITE: its round trip and execution time (the mount's mountstats);
- where the NAS's nfsd threads and the client's fio wait while the writes run (their wchan and kernel stack,
  sampled in one shell loop on each host).

Changes the NAS's /etc/exports for the async scenarios and puts its bytes back at the end (also on an error), and
mounts the export on the client at its own mount point (unmounted at the end). Asserts nothing; prints a table
and writes every reading as JSON. The lab is shared: run it under its lock, the lab up (hdd profile):

    flock /tmp/nfstune-lab.lock .venv/bin/python tools/bench/async_sync4k_regimes.py --out /tmp/regimes.json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from nfstune.bench.fio import fio_commands
from nfstune.bench.workloads import MIB, WorkloadId, WorkloadSizes
from nfstune.lab import LabConfig, host
from nfstune.lab.config import EXPORT_PATH, LAB_IPS
from nfstune.remote import Host
from nfstune.shell_text import join, sh_line

MOUNT = "/mnt/regimes"
SCRATCH = f"{MOUNT}/.regimes"
SIZES = WorkloadSizes(seq_file_bytes=16 * MIB, small_file_count=10, small_file_bytes=4096, sync_4k_count=50)
STOP = "/tmp/regimes.sampling"
STACKS = "/tmp/regimes.stacks"

SNAPSHOT = """echo ==meminfo; grep -E '^(Dirty|Writeback):' /proc/meminfo
echo ==vmstat; grep -E '^nr_(dirty|writeback) ' /proc/vmstat
echo ==jbd2; for f in /proc/fs/jbd2/*/info; do [ -e "$f" ] && echo "$f $(head -1 "$f")" && grep 'commit time' "$f"; done
echo ==diskstats; cat /proc/diskstats
echo ==nstat; nstat -az 2>/dev/null
echo ==mountstats; cat /proc/self/mountstats
echo ==ss; ss -tni state established '( dport = :2049 or sport = :2049 )' 2>/dev/null
echo ==end"""

# one loop per host while the writes run: the threads named (nfsd and jbd2 on the NAS, fio on the client), each
# sample their state, wchan and, when not sleeping idle, their kernel stack; builtins only but for sleep
SAMPLER = """names={names}
touch {stop}
: > {out}
while [ -e {stop} ]; do
  read -r up _ < /proc/uptime
  for d in /proc/[0-9]*; do
    read -r comm 2>/dev/null < "$d/comm" || continue
    case " $names " in *" $comm "*) ;; *) case $comm in jbd2/*) ;; *) continue;; esac;; esac
    read -r _ _ st _ 2>/dev/null < "$d/stat" || continue
    w=; read -r w 2>/dev/null < "$d/wchan"
    echo "S $up ${{d#/proc/}} $comm $st $w"
    if [ "$st" = D ] || [ "$st" = R ]; then while read -r line; do echo "K ${{d#/proc/}} $line"; done < "$d/stack"; fi
  done >> {out}
  sleep 0.05
done"""


def run(h: Host, line: str, timeout: float = 120) -> str:
    return h.run(["sh", "-c", line], timeout=timeout).stdout


def snapshot(h: Host) -> dict[str, str]:
    sections: dict[str, str] = {}
    name = ""
    for line in run(h, SNAPSHOT).splitlines():
        if line.startswith("=="):
            name = line[2:]
            sections[name] = ""
        elif name:
            sections[name] += line + "\n"
    return sections


def kib(section: str) -> dict[str, int]:
    return {k.rstrip(":"): int(v) for k, v, *_ in (line.split() for line in section.splitlines() if line.strip())}


def jbd2(section: str) -> dict[str, tuple[int, float]]:
    """Each journal: (transactions so far, average commit time in ms)."""
    found: dict[str, tuple[int, float]] = {}
    lines = section.splitlines()
    for k, line in enumerate(lines):
        m = re.match(r"(\S+) (\d+) transactions", line)
        if m:
            avg = re.search(r"(\d+)us average transaction commit time", lines[k + 1]) if k + 1 < len(lines) else None
            found[m[1].split("/")[-2]] = (int(m[2]), int(avg[1]) / 1000 if avg else float("nan"))
    return found


def disks(section: str) -> dict[str, tuple[int, int]]:
    """Each vd* and dm-* device: (writes completed, flushes completed)."""
    found: dict[str, tuple[int, int]] = {}
    for line in section.splitlines():
        f = line.split()
        if len(f) >= 14 and re.fullmatch(r"vd[a-z]+|dm-\d+", f[2]):
            found[f[2]] = (int(f[7]), int(f[18]) if len(f) >= 20 else -1)
    return found


def nstat(section: str) -> dict[str, int]:
    found = {}
    for line in section.splitlines():
        f = line.split()
        if len(f) >= 2 and f[1].isdigit() and not f[0].startswith("#"):
            found[f[0]] = int(f[1])
    return found


def write_op(section: str) -> tuple[int, float, float]:
    """The WRITE line of our mount's mountstats: (ops, total RTT ms, total execute ms)."""
    mine = section.split(f"mounted on {MOUNT} ")
    if len(mine) < 2:
        return 0, 0.0, 0.0
    m = re.search(r"^\s+WRITE: (.*)$", mine[1].split("device ")[0], re.M)
    if not m:
        return 0, 0.0, 0.0
    f = [int(x) for x in m[1].split()]
    return f[0], float(f[6]), float(f[7])


def delta(after: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    return {k: after[k] - before.get(k, 0) for k in after if isinstance(after[k], int) and after[k] != before.get(k)}


def start_sampler(h: Host, names: str) -> Any:
    return h.start(["sh", "-c", sh_line(SAMPLER, names=names, stop=STOP, out=STACKS)])


def stop_sampler(h: Host, proc: Any) -> list[str]:
    run(h, sh_line("rm -f {stop}", stop=STOP))
    for _ in proc.chunks():
        pass
    return run(h, sh_line("cat {out}", out=STACKS)).splitlines()


def waits(lines: list[str], names: tuple[str, ...]) -> dict[str, Any]:
    """Samples of the named threads: how often each state+wchan was seen, and the busy ones' top stack frames."""
    seen: Counter[str] = Counter()
    stacks: Counter[str] = Counter()
    current: dict[str, list[str]] = {}
    samples = 0
    for line in lines:
        f = line.split()
        if f[0] == "S" and len(f) >= 5 and (f[3] in names or f[3].startswith("jbd2")):
            samples += 1
            seen[f"{f[3].split('/')[0]} {f[4]} {f[5] if len(f) > 5 else ''}".strip()] += 1
        elif f[0] == "K" and len(f) >= 3:
            current.setdefault(f[1], []).append(f[2].split("+")[0] if len(f) == 3 else f[3].split("+")[0])
            if len(current[f[1]]) == 4:
                stacks[" < ".join(current[f[1]])] += 1
        if f[0] == "S":
            current.pop(f[2], None)
    return {"samples": samples, "states": dict(seen.most_common(8)), "busy_stacks": dict(stacks.most_common(6))}


def set_export(nas: Host, original: str, mode: str) -> None:
    """/etc/exports with the lab's export in `mode` (sync or async), reloaded."""
    lines = []
    for line in original.splitlines():
        if line.split()[:1] == [EXPORT_PATH]:
            line = re.sub(r"\b(a?sync)\b", mode, line)
        lines.append(line)
    nas.write_file("/etc/exports", ("\n".join(lines) + "\n").encode(), sudo=True)
    run(nas, "exportfs -ra")
    shown = run(nas, "exportfs -s")
    assert f"({mode}," in shown or f",{mode}," in shown, shown


def mount(client: Host) -> None:
    address = LAB_IPS["nas"]
    line = "mkdir -p {mp} && mount -t nfs -o vers=4.2 {src} {mp} && mkdir -p {scratch}"
    run(client, sh_line(line, mp=MOUNT, src=f"{address}:{EXPORT_PATH}", scratch=SCRATCH))


def umount(client: Host) -> None:
    run(client, sh_line("rm -rf {scratch}; umount {mp}; rmdir {mp}; true", scratch=SCRATCH, mp=MOUNT))


def one_run(nas: Host, client: Host, label: str) -> dict[str, Any]:
    commands = fio_commands(WorkloadId.SYNC_4K, SCRATCH, SIZES)
    before_s, before_c = snapshot(nas), snapshot(client)
    samplers = (start_sampler(nas, "nfsd"), start_sampler(client, "fio"))
    time.sleep(0.5)
    run(client, sh_line("rm -f -- {f} && sync -f {mp}", f=f"{SCRATCH}/nfstune-sync4k.dat", mp=MOUNT))
    t0 = time.time()
    out = run(client, join(commands.run))
    took = time.time() - t0
    nas_lines, client_lines = stop_sampler(nas, samplers[0]), stop_sampler(client, samplers[1])
    after_s, after_c = snapshot(nas), snapshot(client)
    last = json.loads(out[out.rindex('{\n  "fio version"') :])
    lat = last["jobs"][0]["write"]["lat_ns"]
    ops_b, rtt_b, exe_b = write_op(before_c["mountstats"])
    ops_a, rtt_a, exe_a = write_op(after_c["mountstats"])
    ops = max(ops_a - ops_b, 1)
    return {
        "label": label,
        "at": time.strftime("%H:%M:%S"),
        "seconds": round(took, 2),
        "p50_ms": lat["percentile"]["50.000000"] / 1e6,
        "mean_ms": lat["mean"] / 1e6,
        "max_ms": lat["max"] / 1e6,
        "write_rpcs": ops_a - ops_b,
        "rpc_rtt_ms": round((rtt_a - rtt_b) / ops, 2),
        "rpc_exe_ms": round((exe_a - exe_b) / ops, 2),
        "nas_meminfo_before": kib(before_s["meminfo"]),
        "nas_meminfo_after": kib(after_s["meminfo"]),
        "nas_vmstat_before": kib(before_s["vmstat"]),
        "nas_vmstat_after": kib(after_s["vmstat"]),
        "jbd2_before": jbd2(before_s["jbd2"]),
        "jbd2_after": jbd2(after_s["jbd2"]),
        "disks": {
            d: [a - b for a, b in zip(v, disks(before_s["diskstats"]).get(d, (0, 0)), strict=True)]
            for d, v in disks(after_s["diskstats"]).items()
        },
        "nas_tcp": delta(nstat(after_s["nstat"]), nstat(before_s["nstat"])),
        "client_tcp": delta(nstat(after_c["nstat"]), nstat(before_c["nstat"])),
        "client_ss_after": after_c["ss"].strip(),
        "nas_ss_after": after_s["ss"].strip(),
        "nas_threads": waits(nas_lines, ("nfsd",)),
        "client_threads": waits(client_lines, ("fio",)),
    }


SCENARIOS = (
    ("async", "after the export was made async", "runs"),
    ("async", "the same mount, 5 s later", "runs"),
    ("async", "the same mount, 5 s later", "runs"),
    ("async", "a new mount", "remount"),
    ("async", "the same mount, 5 s later", "runs"),
    ("async", "exportfs -ra again", "reexport"),
    ("async", "the same mount, 5 s later", "runs"),
    ("sync", "the export made sync", "runs"),
    ("sync", "the same mount, 5 s later", "runs"),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="where every reading is written (JSON)")
    args = parser.parse_args()
    cfg = LabConfig().as_running()
    nas, client = host(cfg, "nas"), host(cfg, "client")
    original = nas.read_file("/etc/exports", sudo=True)
    assert original is not None
    results = []
    try:
        mode = ""
        mount(client)
        for wanted, label, how in SCENARIOS:
            if wanted != mode or how == "reexport":
                set_export(nas, original.decode(), wanted)
                mode = wanted
            if how == "remount":
                umount(client)
                mount(client)
            time.sleep(5)
            found = one_run(nas, client, f"{wanted}: {label}")
            results.append(found)
            print(
                f"{found['at']} {found['label']:45} p50 {found['p50_ms']:6.1f} ms  mean {found['mean_ms']:6.1f}  "
                f"WRITE rtt {found['rpc_rtt_ms']:6.1f} exe {found['rpc_exe_ms']:6.1f}  disks {found['disks']}  "
                f"nas DelayedACKs {found['nas_tcp'].get('TcpExtDelayedACKs', 0)}",
                flush=True,
            )
    finally:
        umount(client)
        nas.write_file("/etc/exports", original, sudo=True)
        run(nas, "exportfs -ra && exportfs -f")
        args.out.write_text(json.dumps(results, indent=1))
    medians = statistics.median(r["p50_ms"] for r in results)
    print(f"median p50 over the runs: {medians:.1f} ms; readings in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
