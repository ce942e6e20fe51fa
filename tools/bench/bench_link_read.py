"""Benchmark: how close nfstune's cold sequential read comes to the link's TCP goodput, and whether the bytes it
reports agree with the client's mountstats. Prints figures; asserts nothing (CPU contention on the machine
running the emulated lab moves them).

Needs a running lab with a shaped link, e.g. a second lab beside the dev one:

    XDG_STATE_HOME=/tmp/lab50 nfstune lab up --link 50mbit --nas-port 2322 --client-port 2323 --link-port 10199
    XDG_STATE_HOME=/tmp/lab50 .venv/bin/python tools/bench/bench_link_read.py --size-mib 64 --tool fio

50 Mbit/s of TCP carries 5.88 MB/s of payload (1448 of every 1538 bytes on the wire with timestamps).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import threading
from pathlib import Path

from nfstune.bench.workloads import MIB
from nfstune.lab import LabConfig, host
from nfstune.recipes.loader import default_recipe_dirs, load_recipes
from nfstune.recipes.model import Rounds, recipe_facts
from nfstune.recipes.plan import build_plan
from nfstune.session.engine import Event
from nfstune.session.workflow import Pair, make_engine, probe_pair, sizes_for, start_session
from nfstune.store import Journal, Results, open_store


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--tool", choices=("fio", "dd"), default="fio")
    parser.add_argument("--goodput", type=float, default=5.88, help="the link's TCP goodput in MB/s")
    args = parser.parse_args()
    cfg = LabConfig().as_running()
    conn = open_store(Path(tempfile.mkdtemp()) / "bench.sqlite3")
    results, journal = Results(conn), Journal(conn)
    recipes, _ = load_recipes(default_recipe_dirs())
    quick = next(r for r in recipes if r.id == "quick-check")
    # one configuration (the client's default mount), sequential write then cold read, three counted rounds
    config = dataclasses.replace(quick.config("baseline"), workloads=("seq-write", "seq-read"))
    recipe = dataclasses.replace(quick, configs=(config,), rounds=Rounds(min=3, max=3, warmup=1))
    with host(cfg, "nas") as nas, host(cfg, "client") as client:
        pair = Pair(nas, client, "nas", "/export")
        facts = probe_pair(pair)
        sizes = dataclasses.replace(sizes_for("small", facts)[0], seq_file_bytes=args.size_mib * MIB)
        plan = build_plan(
            [recipe],
            recipe_facts(facts.server, facts.client),
            scale="small",
            seed=1,
            sizes=sizes,
            fio_available=args.tool == "fio",
            share=pair.share,
            server_address=pair.address,
            scratch_name=".nfstune-bench-link",
        )
        sid = start_session(results, pair, facts, scale="small", recipe_ids=["quick-check"], plan=plan)

        def emit(event: Event) -> None:
            if event.kind in ("repeat", "warning", "baseline"):
                print(event.message, flush=True)

        engine = make_engine(
            pair, facts, scale="small", results=results, journal=journal, emit=emit, cancel=threading.Event()
        )
        engine.run(sid, plan)
    data = results.session(sid)
    iperf = {b["direction"]: b["mb_per_s"] for b in data["baselines"] if b["kind"] == "network"}
    for run in data["runs"]:
        reps = [r for r in run["repeats"] if not r["warmup"]]
        rates = [r["mb_per_s"] for r in reps]
        median = statistics.median(rates)
        ratios = [r["wire_bytes"] / r["bytes"] for r in reps]
        print(
            f"\n{run['workload']} ({args.tool}, {args.size_mib} MiB): median {median:.2f} MB/s, repeats "
            f"{', '.join(f'{v:.2f}' for v in rates)}"
        )
        print(f"  vs {args.goodput} MB/s goodput: {100 * median / args.goodput:.1f} %")
        way = "from-server" if run["workload"] == "seq-read" else "to-server"
        if way in iperf:
            print(f"  vs iperf3 {way} {iperf[way]:.2f} MB/s: {100 * median / iperf[way]:.1f} %")
        print(f"  mountstats bytes / reported bytes: {min(ratios):.4f} .. {max(ratios):.4f}")


if __name__ == "__main__":
    main()
