"""The steady rate of a sequential transfer, from synthetic curves whose rate is known and from captured runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.bench.fallback import DdStreamParser
from nfstune.bench.fio import FioStreamParser
from nfstune.bench.steady import steady_mb_per_s
from nfstune.bench.workloads import WorkloadId

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"


def curve(rates_mb: list[float], step_s: float = 1.0) -> list[tuple[float, int]]:
    """Cumulative (seconds, bytes) of a transfer moving rates_mb[i] MB in its i-th step."""
    points, total, t = [], 0.0, 0.0
    for rate in rates_mb:
        t += step_s
        total += rate * 1e6 * step_s
        points.append((t, int(total)))
    return points


def test_a_slow_start_is_left_out() -> None:
    # 2 MB/s for the first second (open, ramp-up), then 10 MB/s for 8 s: bytes over time would say 9.1
    assert steady_mb_per_s(curve([2, *[10] * 8])) == pytest.approx(10, rel=1e-6)


def test_a_write_that_ends_in_a_long_flush_counts_the_flush() -> None:
    # a cache fills at 40 MB/s for 2 s, the server drains at 6 MB/s for 8 s, then 3 s of fsync move nothing more:
    # the median second is the drain, not the burst
    assert steady_mb_per_s(curve([40, 40, *[6] * 8, 0, 0, 0])) == pytest.approx(6, rel=1e-6)


def test_reports_that_come_late_are_spread_over_their_seconds() -> None:
    # a busy CPU: reports every 2.5 s of a steady 8 MB/s (after a 1 s start at 1 MB/s)
    points = [(1.0, 1_000_000)] + [(1.0 + 2.5 * i, 1_000_000 + int(8e6 * 2.5 * i)) for i in range(1, 5)]
    assert steady_mb_per_s(points) == pytest.approx(8, rel=1e-6)


def test_too_short_to_tell() -> None:
    assert steady_mb_per_s(curve([5, 5, 5, 5])) is None
    assert steady_mb_per_s([]) is None


@pytest.mark.parametrize(
    ("name", "workload", "parser"),
    [
        ("fio-seq-read.out", WorkloadId.SEQ_READ, FioStreamParser),
        ("fio-seq-read-64mib-busy.out", WorkloadId.SEQ_READ, FioStreamParser),
        ("dd-seq-read.out", WorkloadId.SEQ_READ, DdStreamParser),
    ],
)
def test_captured_runs_give_a_rate_between_their_slowest_and_fastest_second(
    name: str, workload: WorkloadId, parser: type[FioStreamParser] | type[DdStreamParser]
) -> None:
    p = parser(workload)
    steps = p.feed((CAPTURES / name).read_text())
    result = p.result()
    rates = [s.interval_bytes / 1e6 for s in steps[1:] if s.interval_bytes]
    if result.seconds < 6:  # shorter than start-up and the steady window
        assert result.steady_mb_per_s is None
        return
    assert result.steady_mb_per_s is not None
    assert min(rates) <= result.steady_mb_per_s <= max(rates)


@pytest.mark.parametrize(
    ("name", "workload"), [("fio-sync-4k.out", WorkloadId.SYNC_4K), ("fio-seq-write.out", WorkloadId.SEQ_WRITE)]
)
def test_only_reads_have_a_steady_rate(name: str, workload: WorkloadId) -> None:
    # a write is judged by its durable rate (to the end of its fsync), see bench/steady.py
    p = FioStreamParser(workload)
    p.feed((CAPTURES / name).read_text())
    assert p.result().steady_mb_per_s is None
