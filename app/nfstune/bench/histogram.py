"""fio's latency histogram (json+ "bins": latency in ns -> writes that took it) and the percentiles read from it.

A percentile is read as fio reads its own (stat.c, calc_clat_percentiles): the value of the first bin at which the
count so far reaches p % of all. On fio 3.33's real output (tests/captures/bench) this gives exactly the
percentiles fio prints. Several clients' histograms are merged by summing each bin's count, and a percentile is
read from the merged histogram: the p50 of all the writes the clients made. The mean of the clients' p50s is not
that (a fast client and a slow one: the typical write is the fast client's, the average lies between them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Histogram = Mapping[int, int]  # latency (ns, the bin's value as fio prints it) -> operations


def histogram_of(stats: Mapping[str, Any]) -> dict[int, int] | None:
    """The whole call's latency histogram of one direction of a json+ job (its `lat_ns`, which
    --lat_percentiles=1 fills; else `clat_ns`, the same for psync); None when fio printed none (plain json)."""
    for key in ("lat_ns", "clat_ns"):
        bins = (stats.get(key) or {}).get("bins")
        if isinstance(bins, Mapping) and bins:
            found = {int(ns): _count(n) for ns, n in bins.items()}
            return {ns: n for ns, n in found.items() if n > 0}
    return None


def merged(histograms: Iterable[Histogram]) -> dict[int, int]:
    """One histogram of every operation of them all: each bin's counts summed."""
    found: dict[int, int] = {}
    for histogram in histograms:
        for ns, n in histogram.items():
            found[ns] = found.get(ns, 0) + n
    return found


def percentile_ns(histogram: Histogram, percent: float) -> int | None:
    """The bin value below or at which `percent` % of the operations fell, as fio reads it; None when empty."""
    total = sum(histogram.values())
    if total <= 0:
        return None
    so_far = 0
    for ns in sorted(histogram):
        so_far += histogram[ns]
        if so_far >= percent / 100 * total:
            return ns
    return max(histogram)  # not reached: the float product rounds above the total only at 100 %


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"a histogram count that is not an integer: {value!r:.40}")
    return value
