"""Benchmark: does a sequential figure depend on the file's size? dd and fio writes (ending in fsync) and cold reads
of several sizes through one NFS mount of the practice lab's export, interleaved in a shuffled order per round, timed
by wall clock on the client (the tool's start included). Prints one line per transfer; asserts nothing.

Needs the lab up (`nfstune lab up`) and a quiet machine; hold the lab lock:

    flock /tmp/nfstune-lab.lock .venv/bin/python tools/bench/sequential_size.py --rounds 2

Figures of 2026-11-23 are in docs/bench/reproducibility.md (third execution).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from nfstune.lab import LabConfig, host

MOUNT = "/mnt/nfstune-bench-size"
DIRECTORY = "/export/.nfstune-bench-size"
CASES = (("dd", 1024), ("fio", 96), ("fio", 256), ("fio", 512), ("dd", 96))


def command(tool: str, size_mib: int, rw: str, path: str) -> str:
    if tool == "dd":
        if rw == "write":
            return f"dd if=/dev/zero of={path} bs=1M count={size_mib} conv=fsync 2>/dev/null"
        return f"dd if={path} of=/dev/null bs=1M 2>/dev/null"
    how = "--rw=write --end_fsync=1" if rw == "write" else "--rw=read --readonly"
    return (
        f"fio --name=size --filename={path} --bs=1048576 --size={size_mib * 2**20} {how} --ioengine=psync "
        "--direct=0 --fallocate=none --output-format=json >/dev/null"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    cfg = LabConfig().as_running()
    with host(cfg, "nas") as nas, host(cfg, "client") as client:
        nas.run(["mkdir", "-p", "-m", "1777", DIRECTORY], sudo=True)
        client.run(["mkdir", "-p", MOUNT], sudo=True)
        client.run(["mount", "-t", "nfs", "-o", "vers=4.2", "nas:/export", MOUNT], sudo=True, timeout=120)
        try:
            order = list(CASES)
            rng = random.Random(args.seed)
            for number in range(args.rounds):
                rng.shuffle(order)
                for tool, size in order:
                    path = f"{MOUNT}/{DIRECTORY.rsplit('/', 1)[1]}/file-{size}"
                    for rw in ("write", "read"):
                        for h in (client, nas):  # the write reaches the server's disk, and the read starts cold
                            h.run("sync && echo 3 > /proc/sys/vm/drop_caches", sudo=True)
                        timed = f'a=$(date +%s.%N); {command(tool, size, rw, path)}; b=$(date +%s.%N); echo "$a $b"'
                        start, end = client.run(timed, sudo=True, timeout=3600).stdout.split()[-2:]
                        seconds = float(end) - float(start)
                        print(
                            f"round {number} {tool:3} {size:5} MiB {rw:5}: {size * 2**20 / seconds / 1e6:6.1f} MB/s "
                            f"({seconds:.1f} s)",
                            flush=True,
                        )
                    client.run(["rm", "-f", path], sudo=True)
        finally:
            client.run(["umount", MOUNT], sudo=True, check=False)
            client.run(["rmdir", MOUNT], sudo=True, check=False)
            nas.run(["rm", "-rf", DIRECTORY], sudo=True)


if __name__ == "__main__":
    main()
