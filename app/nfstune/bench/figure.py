"""The figure a workload is judged by, in its recipe's unit (recipes.model.WORKLOADS): MB/s for the sequential
workloads (their steady state when the run was long enough to tell it), seconds for small-files and tree-delete,
milliseconds per write for sync-4k, files a second for file-create, file-stat and file-delete. One function reads it
from a repeat's record, the row the store keeps: the engine judges a fresh repeat by the record it stores, and the
summary reads the same records back, so the two cannot differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nfstune.bench.fio_clients import ClientsResult
from nfstune.bench.workloads import METADATA_RATES, WorkloadResult


def repeat_record(result: WorkloadResult, wire_bytes: int) -> dict[str, Any]:
    """A repeat as the store keeps it (store.results.REPEAT_FIELDS). `wire_bytes`: what the mount moved on the wire
    meanwhile (its mountstats), to check the tool's own count against the kernel's."""
    return {
        "tool": str(result.tool),
        "bytes": result.bytes,
        "seconds": result.seconds,
        "mb_per_s": result.mb_per_s,
        "ops": result.ops,
        "ops_per_s": result.ops_per_s,
        "lat_mean_us": result.lat_mean_us,
        "lat_p50_us": result.lat_p50_us,
        "lat_p99_us": result.lat_p99_us,
        "wire_bytes": wire_bytes,
        "steady_mb_per_s": result.steady_mb_per_s,
        "raw_output": result.raw,
    }


def clients_record(result: ClientsResult) -> dict[str, Any]:
    """A repeat from several clients at once as the store keeps it: the aggregate, which is what the NAS served
    (all the clients' bytes and operations over the slowest client's time). Its figure is then the aggregate one:
    MB/s for the sequential workloads, and for sync-4k the time per write served (the inverse of the writes per
    second of them all), not one client's latency (each client's own is kept with its share, store.repeat_clients).
    """
    return {
        "tool": "fio",
        "bytes": result.total_bytes,
        "seconds": result.seconds,
        "mb_per_s": result.mb_per_s,
        "ops": result.total_ops,
        "ops_per_s": result.total_ops / result.seconds,
        "lat_mean_us": None,
        "lat_p50_us": None,
        "lat_p99_us": None,
        "wire_bytes": None,
        "steady_mb_per_s": None,
        "raw_output": result.raw,
    }


def client_shares(result: ClientsResult) -> list[dict[str, Any]]:
    """Each client's own part of a repeat from several clients (store.repeat_clients), in the order they ran."""
    return [
        {
            "client": name,
            "bytes": r.bytes,
            "seconds": r.seconds,
            "mb_per_s": r.mb_per_s,
            "ops": r.ops,
            "ops_per_s": r.ops_per_s,
            "lat_mean_us": r.lat_mean_us,
            "lat_p99_us": r.lat_p99_us,
        }
        for name, r in result.per_client.items()
    ]


def figure(workload: str, repeat: Mapping[str, Any]) -> float:
    """The figure of one repeat, from its record (repeat_record, or a row read back from the store; a row from an
    export older than the steady state has no steady_mb_per_s)."""
    if workload in ("seq-write", "seq-read"):
        steady = repeat.get("steady_mb_per_s")
        return float(steady if steady is not None else repeat["mb_per_s"])
    if workload in ("small-files", "tree-delete"):
        return float(repeat["seconds"])
    if workload in METADATA_RATES:
        return float(repeat["ops"]) / float(repeat["seconds"])
    if repeat["lat_mean_us"] is not None:
        return float(repeat["lat_mean_us"]) / 1000
    # dd measures no latency: the mean time of a write (a run that counted no write is charged as one)
    return float(repeat["seconds"]) * 1000 / max(1, int(repeat["ops"] or 1))
