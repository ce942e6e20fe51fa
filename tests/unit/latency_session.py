"""A transport session whose sync-4k repeats went through fio's own parser (bench/fio.py) from json+ documents made
here as fio 3.33 makes them (its histogram's bins, its mean), and were stored as the engine stores them: "tcp,
nconnect=4" wrote exactly as "tcp" did, but for two writes of 150-175 ms in each of its visits (a NAS flushing its
journal). Its mean is then about 8 % above tcp's every round while its typical write (p50) holds within 1 %, and its
p99 is one of those slow writes. What the typical-write tests and the Results page's tail rows are checked on."""

from __future__ import annotations

import json
from typing import Any

from nfstune.bench.figure import repeat_record
from nfstune.bench.fio import FioStreamParser
from nfstune.bench.workloads import SYNC_BLOCK_BYTES, WorkloadId
from nfstune.store import Results
from tests.unit.trend_sessions import Run, store_session

WRITES = 50  # the small scale's sync-4k count
ROUNDS = 6
# one visit's writes in ms, as the lab's hdd export gives them (54-72 ms a flushed write)
WRITES_MS = tuple(50.0 + 14.0 * ((7 * i) % WRITES) / WRITES for i in range(WRITES))
DRIFT = (1.0, 1.03, 0.98, 1.01, 0.99, 1.02)  # each round's pace, both configurations alike
SLOW_MS = (150.0, 175.0)  # nconnect's two slow writes each visit
SLOW_AT = ((3, 40), (11, 27), (5, 44), (19, 30), (8, 36), (2, 47))  # which of its writes they were, round by round


def fio_bin(ns: int) -> int:
    """The value fio prints for the bin a latency falls in (stat.c: 64 bins a power of two, each named by its
    middle), so that the histograms here look as fio's do."""
    if ns < 64:
        return ns
    error_bits = ns.bit_length() - 1 - 6
    offset = (ns >> error_bits) & 63
    return (1 << (error_bits + 6)) + int((offset + 0.5) * (1 << error_bits))


def fio_document(latencies_ms: list[float]) -> str:
    """fio 3.33's json+ result of one sync-4k run that took these latencies (the parts nfstune reads)."""
    ns = [round(ms * 1e6) for ms in latencies_ms]
    bins: dict[str, int] = {}
    for value in ns:
        key = str(fio_bin(value))
        bins[key] = bins.get(key, 0) + 1
    lat = {"min": min(ns), "max": max(ns), "mean": sum(ns) / len(ns), "N": len(ns), "bins": bins}
    write = {
        "io_bytes": len(ns) * SYNC_BLOCK_BYTES,
        "runtime": round(sum(latencies_ms)),
        "total_ios": len(ns),
        "clat_ns": lat,
        "lat_ns": lat,
    }
    return json.dumps({"fio version": "fio-3.33", "jobs": [{"jobname": "sync-4k", "error": 0, "write": write}]})


def sync_record(latencies_ms: list[float]) -> dict[str, Any]:
    parser = FioStreamParser(WorkloadId.SYNC_4K, len(latencies_ms) * SYNC_BLOCK_BYTES)
    parser.feed(fio_document(latencies_ms))
    return repeat_record(parser.result(), 0)


def tcp_writes(number: int) -> list[float]:
    return [ms * DRIFT[number] for ms in WRITES_MS]


def nconnect_writes(number: int) -> list[float]:
    writes = tcp_writes(number)
    for at, slow in zip(SLOW_AT[number], SLOW_MS, strict=True):
        writes[at] = slow * DRIFT[number]
    return writes


def latency_runs(*, percentiles: bool = True) -> list[Run]:
    """`percentiles` False: the same repeats as an nfstune before percentiles stored them (no p50, no p99)."""
    records = {
        "tcp": [sync_record(tcp_writes(n)) for n in range(ROUNDS)],
        "tcp, nconnect=4": [sync_record(nconnect_writes(n)) for n in range(ROUNDS)],
    }
    if not percentiles:
        records = {label: [{**r, "lat_p50_us": None, "lat_p99_us": None} for r in rs] for label, rs in records.items()}
    return [
        Run("transport", "tcp", "sync-4k", [], records=records["tcp"]),
        Run(
            "transport",
            "tcp, nconnect=4",
            "sync-4k",
            [],
            negotiated="rw,vers=4.2,rsize=131072,wsize=131072,hard,nconnect=4,proto=tcp",
            config={"mount": "vers=4.2,nconnect=4"},
            records=records["tcp, nconnect=4"],
        ),
    ]


def store_latency_session(results: Results, *, percentiles: bool = True) -> int:
    return store_session(results, latency_runs(percentiles=percentiles))
