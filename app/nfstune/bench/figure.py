"""The figure a workload is judged by, in its recipe's unit (recipes.model.WORKLOADS): MB/s for the sequential
workloads (their steady state when the run was long enough to tell it), seconds for small-files and tree-delete,
milliseconds per write for sync-4k, files a second for file-create, file-stat and file-delete. Functions here read
it from a repeat's record, the row the store keeps: the engine judges a fresh repeat by the record it stores, and
the summary reads the same records back, so the two cannot differ.

A latency workload (sync-4k) has more than one figure: its typical write (the p50 of fio's histogram; from several
clients, of their merged histogram), its tail (the p99) and its mean. It is judged by the typical write, the
operation an application waits for most often: a few writes of 100-420 ms (a NAS flushing its journal) move the
mean 5-10 % while the p50 holds. Where a group of repeats lacks the percentiles (dd, which times only the whole run;
a session stored before nfstune kept them), the group is judged by the mean, and says so. `judged_by` is the one
place that decides it, for the engine's stop rule and for every view.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from nfstune.bench.fio_clients import ClientsResult
from nfstune.bench.workloads import METADATA_RATES, WorkloadResult

# judged by their typical operation where the percentiles are kept. The metadata workloads are rates (files a
# second over the run) and small-files and tree-delete times: none of their figures is a latency
LATENCY_WORKLOADS = frozenset({"sync-4k"})


class Basis(StrEnum):
    """What a workload's figure is, where it could be more than one thing."""

    OWN = "own"  # a rate or a time: the workload's one figure
    TYPICAL = "p50"  # a latency workload's typical operation, the p50 of its histogram
    MEAN = "mean"  # a latency workload whose repeats lack percentiles: its mean time per operation


TYPICAL_WORDS = "the typical write (p50)"
TAIL_WORDS = "tail (p99)"


@dataclass(frozen=True)
class RepeatFigures:
    """One repeat's figures. `value`: by the workload's unit rule (figure()); for sync-4k the mean time per write,
    and from several clients the time per write served (all their writes over the slowest one's time). `typical`
    and `tail`: a latency workload's p50 and p99 in its unit (ms), None where they were not kept."""

    value: float
    typical: float | None = None
    tail: float | None = None
    tool: str = ""  # what measured it: dd gives no percentiles
    served: bool = False  # from several clients: `value` is the time per write served, not a mean latency


def repeat_figures(workload: str, repeat: Mapping[str, Any]) -> RepeatFigures:
    """The figures of one repeat, from its record (repeat_record, clients_record, or a row read back from the
    store)."""
    value = figure(workload, repeat)
    if workload not in LATENCY_WORKLOADS:
        return RepeatFigures(value)
    p50, p99 = repeat.get("lat_p50_us"), repeat.get("lat_p99_us")
    return RepeatFigures(
        value,
        None if p50 is None else float(p50) / 1000,
        None if p99 is None else float(p99) / 1000,
        str(repeat.get("tool") or ""),
        served=repeat.get("lat_mean_us") is None and repeat.get("tool") == "fio",
    )


def judged_by(workload: str, figures: Iterable[RepeatFigures]) -> Basis:
    """What a group of repeats (the repeats a comparison, a table or a trend puts side by side) is judged by: a
    latency workload by its typical operation when every repeat kept one, else by its mean; one basis for the whole
    group, so that a ratio never sets a p50 against a mean."""
    if workload not in LATENCY_WORKLOADS:
        return Basis.OWN
    return Basis.TYPICAL if all(f.typical is not None for f in figures) else Basis.MEAN


def judged_figure(figures: RepeatFigures, basis: Basis) -> float:
    """The figure a repeat is judged by, on its group's basis (judged_by)."""
    if basis is Basis.TYPICAL and figures.typical is not None:
        return figures.typical
    return figures.value


def tail_figure(figures: RepeatFigures, basis: Basis) -> float | None:
    """The tail (p99) a latency workload's second verdict is judged by; None where its group is not judged by its
    typical operation (its tail was not kept either)."""
    return figures.tail if basis is Basis.TYPICAL else None


def basis_words(basis: Basis, figures: Iterable[RepeatFigures]) -> str | None:
    """What a group is judged by, in the views' words; None for a workload with one figure."""
    if basis is Basis.OWN:
        return None
    every = list(figures)
    if basis is Basis.TYPICAL:
        mean = "the time per write served" if every and all(f.served for f in every) else "the mean"
        return f"judged by {TYPICAL_WORDS}, the {TAIL_WORDS} a second verdict; {mean} in the tables"
    listed = [f for f in every if f.typical is None]
    if any(f.tool == "dd" for f in listed):
        return "judged by the mean: dd times only the whole run, not each write (fio is not on the client)"
    if any(f.served for f in listed):
        return "judged by the time per write served: stored before nfstune kept percentiles"
    return "judged by the mean: stored before nfstune kept percentiles"


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
    second of them all: what the client-count steps of many-clients are asked on), with the p50 and p99 of all their
    writes, read from their merged histogram (each client's own are kept with its share, store.repeat_clients).
    """
    return {
        "tool": "fio",
        "bytes": result.total_bytes,
        "seconds": result.seconds,
        "mb_per_s": result.mb_per_s,
        "ops": result.total_ops,
        "ops_per_s": result.total_ops / result.seconds,
        "lat_mean_us": None,
        "lat_p50_us": result.lat_percentile_us(50),
        "lat_p99_us": result.lat_percentile_us(99),
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
            "lat_p50_us": r.lat_p50_us,
            "lat_p99_us": r.lat_p99_us,
        }
        for name, r in result.per_client.items()
    ]


def figure(workload: str, repeat: Mapping[str, Any]) -> float:
    """The figure of one repeat by its workload's unit rule, from its record (repeat_record, or a row read back from
    the store; a row from an export older than the steady state has no steady_mb_per_s). A latency workload is
    judged by it only where its group lacks percentiles (judged_by)."""
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
