"""Benchmark: does the practice lab's link hold back a message of several frames? The lab's two VMs talk through
QEMU's `-netdev socket`, one TCP connection on this computer's loopback between the two QEMU processes, each
Ethernet frame a write of its own. A message of one frame goes at once; a message of several (a 4 KiB NFS WRITE
is three) may wait for the loopback's delayed ACK (40 ms) between its frames, if the sending QEMU's socket holds a
small write back until the one before is acknowledged (Nagle's rule).

Measures, from the lab's client to its NAS over the lab link: ping round trips of 1, 2 and 3 frames (56, 2000,
4000 bytes: IP fragments), and fio's sync-4k (nfstune's own job) with 4 KiB writes (three frames each) and 1 KiB
writes (one frame) on the export made async; around each, this computer's own TCP counters (delayed ACKs sent)
and the lab link's connection (`ss -tni`). With `--quickack`, everything again with this computer's loopback
route set to acknowledge at once (`ip route ... quickack 1`: no delayed ACK on 127.0.0.1), and the route put back
after, whatever happens. The NAS's /etc/exports is put back too. Asserts nothing; prints a table, writes JSON.

    flock /tmp/nfstune-lab.lock .venv/bin/python tools/bench/lab_link_stall.py --quickack --out /tmp/stall.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nfstune.bench.fio import fio_commands
from nfstune.bench.workloads import WorkloadId
from nfstune.lab import LabConfig, host
from nfstune.lab.config import LAB_IPS
from nfstune.remote import Host
from nfstune.shell_text import join, sh_line

sys.path.insert(0, str(Path(__file__).parent))
from async_sync4k_regimes import MOUNT, SCRATCH, SIZES, mount, run, set_export, umount

DROP = "sync; echo 3 > /proc/sys/vm/drop_caches"
LOOPBACK_ROUTE = ["local", "127.0.0.1", "dev", "lo", "table", "local", "proto", "kernel", "scope", "host"]
ROUTE_TAIL = ["src", "127.0.0.1"]


def host_delayed_acks() -> int:
    out = subprocess.run(["nstat", "-az", "TcpExtDelayedACKs"], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"TcpExtDelayedACKs\s+(\d+)", out)[1])  # type: ignore[index]


def link_rtt(port: int) -> str:
    """The lab link's two ends, as ss sees them on this computer: their smoothed RTT and ACK timeout."""
    out = subprocess.run(
        ["ss", "-tni", f"( sport = :{port} or dport = :{port} )"], capture_output=True, text=True, check=True
    ).stdout
    return " | ".join(" ".join(re.findall(r"\b(?:rtt|ato):\S+", line)) for line in out.splitlines() if "rtt:" in line)


def ping(client: Host, size: int, count: int = 10) -> dict[str, Any]:
    before = host_delayed_acks()
    out = run(client, sh_line("ping -c {n} -i 0.3 -s {s} {to}", n=count, s=size, to=LAB_IPS["nas"]))
    acks = host_delayed_acks() - before
    rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", out)]
    rtts.sort()
    return {"what": f"ping -s {size}", "median_ms": rtts[len(rtts) // 2], "max_ms": rtts[-1], "host_delayed_acks": acks}


def sync_4k(client: Host, block: int) -> dict[str, Any]:
    argv = [
        a if not a.startswith("--bs=") else f"--bs={block}"
        for a in fio_commands(WorkloadId.SYNC_4K, SCRATCH, SIZES).run
    ]
    argv = [a if not a.startswith("--size=") else f"--size={block * 50}" for a in argv]
    run(client, sh_line("rm -f -- {f} && sync -f {mp}", f=f"{SCRATCH}/nfstune-sync4k.dat", mp=MOUNT))
    before = host_delayed_acks()
    out = run(client, join(argv))
    acks = host_delayed_acks() - before
    lat = json.loads(out[out.rindex('{\n  "fio version"') :])["jobs"][0]["write"]["lat_ns"]
    return {
        "what": f"sync-4k, {block} B writes",
        "median_ms": lat["percentile"]["50.000000"] / 1e6,
        "max_ms": lat["max"] / 1e6,
        "host_delayed_acks": acks,
    }


@contextmanager
def quickack() -> Iterator[None]:
    """This computer's loopback route acknowledging at once, for the block; put back after, whatever happens."""
    subprocess.run(["ip", "route", "replace", *LOOPBACK_ROUTE, *ROUTE_TAIL, "quickack", "1"], check=True)
    try:
        yield
    finally:
        subprocess.run(["ip", "route", "replace", *LOOPBACK_ROUTE, *ROUTE_TAIL], check=True)


def guest_retransmits(h: Host) -> int:
    out = run(h, "nstat -az TcpRetransSegs")
    return int(re.search(r"TcpRetransSegs\s+(\d+)", out)[1])  # type: ignore[index]


def throughput(nas: Host, client: Host, mib: int = 64) -> list[dict[str, Any]]:
    """A write of `mib` MiB ending in fsync, then its cold read (caches dropped on both), with dd through the mount;
    the TCP segments the guests sent again meanwhile (a link that drops frames makes them resend)."""
    found = []
    path = f"{SCRATCH}/bulk.dat"
    steps = (
        ("dd write, fsync", sh_line("dd if=/dev/zero of={p} bs=1M count={n} conv=fsync 2>&1", p=path, n=mib), None),
        (
            "dd cold read",
            sh_line("dd if={p} of=/dev/null bs=1M 2>&1", p=path),
            DROP,
        ),
    )
    for what, line, drop in steps:
        if drop:
            run(client, drop)
            run(nas, drop)
        before = guest_retransmits(client) + guest_retransmits(nas)
        t0 = time.monotonic()
        run(client, line, timeout=600)
        seconds = time.monotonic() - t0
        resent = guest_retransmits(client) + guest_retransmits(nas) - before
        found.append({"what": what, "mb_per_s": mib * 1048576 / seconds / 1e6, "guest_retransmits": resent})
    run(client, sh_line("rm -f {p}", p=path))
    return found


BEFORE = {
    "right after a 32 MiB write": "dd if=/dev/zero of={p} bs=1M count=32 conv=fsync 2>/dev/null",
    "right after a 32 MiB cold read": "echo 3 > /proc/sys/vm/drop_caches; dd if={p} of=/dev/null bs=1M 2>/dev/null",
    "right after 200 files created": "mkdir -p {p}.d && for i in $(seq 200); do : > {p}.d/f$i; done; rm -rf {p}.d",
    "after 20 s with no traffic": "sleep 20",
}


def after_traffic(nas: Host, client: Host) -> list[dict[str, Any]]:
    """sync-4k at once after each kind of traffic on the link (the NAS's cache dropped before the cold read)."""
    found = []
    path = f"{SCRATCH}/before.dat"
    run(client, sh_line("dd if=/dev/zero of={p} bs=1M count=32 conv=fsync 2>/dev/null", p=path), timeout=600)
    for label, line in BEFORE.items():
        if "cold read" in label:
            run(nas, DROP)
        run(client, sh_line(line, p=path) if "{p}" in line else line, timeout=600)
        f = sync_4k(client, 4096)
        f["what"], f["pass"] = f"sync-4k {label}", "after traffic"
        print(f"{f['what']:52} median {f['median_ms']:7.2f} ms  delayed ACKs {f['host_delayed_acks']:4}", flush=True)
        found.append(f)
    run(client, sh_line("rm -f {p}", p=path))
    return found


def one_pass(client: Host, label: str, port: int) -> list[dict[str, Any]]:
    found = []
    for size in (56, 2000, 4000):
        found.append(ping(client, size))
    for block in (4096, 1024):
        found.append(sync_4k(client, block))
    for f in found:
        f["pass"], f["link"] = label, link_rtt(port)
        print(
            f"{label:28} {f['what']:24} median {f['median_ms']:7.2f} ms  max {f['max_ms']:7.1f}  "
            f"delayed ACKs on this computer {f['host_delayed_acks']:4}",
            flush=True,
        )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--quickack", action="store_true", help="a second pass with the loopback acknowledging at once")
    parser.add_argument("--sync", action="store_true", help="also sync-4k on the export made sync, and dd's rates")
    parser.add_argument("--after-traffic", action="store_true", help="sync-4k at once after other kinds of traffic")
    args = parser.parse_args()
    cfg = LabConfig().as_running()
    nas, client = host(cfg, "nas"), host(cfg, "client")
    original = nas.read_file("/etc/exports", sudo=True)
    assert original is not None
    results: list[dict[str, Any]] = []
    try:
        set_export(nas, original.decode(), "async")
        mount(client)
        time.sleep(2)
        results += one_pass(client, "as the lab runs", cfg.link_port)
        if args.after_traffic:
            results += after_traffic(nas, client)
        if args.quickack:
            with quickack():
                results += one_pass(client, "loopback quickack 1", cfg.link_port)
            results += one_pass(client, "as the lab runs, again", cfg.link_port)
        if args.sync:
            set_export(nas, original.decode(), "sync")
            time.sleep(2)
            found = sync_4k(client, 4096)
            found["what"] = "sync-4k, 4096 B, export sync"
            print(f"{'export sync':28} {found['what']:24} median {found['median_ms']:7.2f} ms", flush=True)
            results.append(found)
            for rate in throughput(nas, client):
                print(
                    f"{'export sync':28} {rate['what']:24} {rate['mb_per_s']:7.1f} MB/s  guest retransmits "
                    f"{rate['guest_retransmits']}",
                    flush=True,
                )
                results.append(rate)
    finally:
        umount(client)
        nas.write_file("/etc/exports", original, sudo=True)
        run(nas, "exportfs -ra && exportfs -f")
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
