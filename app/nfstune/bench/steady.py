"""The steady rate of a sequential transfer: what it moves per second once start-up is over.

Bytes over total time mixes the start (open, the first RPCs, TCP and read-ahead ramping up) into the figure, and
on a short file the start is most of it: in the lab (hdd profile) 16 MiB runs gave 6-9 MB/s where a 1 GiB dd
wrote at 17.3 MB/s. The tools report cumulative bytes about once a second (fio's status documents, dd's
status=progress), not always on time when the CPU is busy. So the cumulative curve is resampled into one-second
bins (linear between reports), the bins of the first `skip_s` seconds are left out, and the median of the rest is
the steady rate. The last point is the run's end with its total.

Only reads get one. A write's bytes come back from write() as soon as they are in the client's page cache; the
tools then sit in the final fsync, printing nothing, while the data crosses the network and reaches the server's
disk. Measured in the lab (hdd profile, 128 MiB with fio): 12 s of writing, then 12 s of fsync. Per-second
figures of such a run say how fast the cache filled, not how fast data becomes safe; the figure a write is judged
by stays bytes over the whole time up to the end of the fsync, with a file long enough that the start is a small
part of it.
"""

from __future__ import annotations

import bisect
import statistics
from collections.abc import Sequence

SKIP_S = 1.0  # start-up left out
MIN_BINS = 5  # fewer steady seconds than this: the run was too short to tell


def steady_mb_per_s(
    points: Sequence[tuple[float, int]], *, skip_s: float = SKIP_S, min_bins: int = MIN_BINS
) -> float | None:
    """`points`: (seconds since the start, bytes moved so far), in time order, the run's end and total last.
    None when fewer than `min_bins` whole seconds follow the start-up."""
    curve = sorted((t, b) for t, b in points if t >= 0)
    if not curve:
        return None
    if curve[0][0] > 0:
        curve.insert(0, (0.0, 0))
    times = [t for t, _ in curve]
    end = times[-1]
    edges = []
    t = skip_s
    while t + 1.0 <= end + 1e-9:
        edges.append(t)
        t += 1.0
    if len(edges) < min_bins:
        return None
    rates = [(_bytes_at(curve, times, start + 1.0) - _bytes_at(curve, times, start)) / 1e6 for start in edges]
    return float(statistics.median(rates))


def _bytes_at(curve: Sequence[tuple[float, int]], times: Sequence[float], t: float) -> float:
    i = bisect.bisect_left(times, t)
    if i == 0:
        return float(curve[0][1])
    if i >= len(curve):
        return float(curve[-1][1])
    (t0, b0), (t1, b1) = curve[i - 1], curve[i]
    if t1 == t0:
        return float(b1)
    return b0 + (b1 - b0) * (t - t0) / (t1 - t0)
