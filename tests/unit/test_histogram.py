"""sync-4k's percentiles read from fio's json+ latency histogram, on fio 3.33's real output: one fio on this
machine's disk, the lab's, and two fio servers driven by one front end (tests/captures/bench/README.md)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from nfstune.bench.fio import FioStreamParser
from nfstune.bench.fio_clients import ClientJob, parse_front_end
from nfstune.bench.histogram import histogram_of, merged, percentile_ns
from nfstune.bench.workloads import WorkloadId

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
LOOPBACK_JOBS = [ClientJob("client", "127.0.0.1,8765", "client.fio"), ClientJob("client2", "127.0.0.1,8766", "c2.fio")]
WRITES = 50  # each loopback job's sync-4k count


def documents(name: str) -> list[dict[str, object]]:
    """Every JSON document of a capture (one fio's stream, or the front end's one)."""
    text = (CAPTURES / name).read_bytes().decode().partition("--- stderr\n")[0]
    decoder, found, at = json.JSONDecoder(), [], text.find("{")
    while at != -1:
        document, end = decoder.raw_decode(text, at)
        found.append(document)
        at = text.find("{", end)
    return found


def loopback_clients() -> tuple[str, str]:
    text = (CAPTURES / "fio-clients-sync-4k-loopback.out").read_text()
    stdout, _, rest = text.partition("--- stderr\n")
    return stdout, rest.rpartition("--- exit ")[0]


@pytest.mark.parametrize("name", ["fio-sync-4k.out", "fio-sync-4k-loopback.out", "fio-clients-sync-4k-loopback.out"])
def test_the_percentiles_read_from_the_bins_are_fios_own(name: str) -> None:
    """fio prints its p50 and p99 (--percentile_list=50:99) beside the bins: the rule here reads the same."""
    jobs = [job for d in documents(name) for job in (d.get("jobs") or d.get("client_stats") or [])]  # type: ignore[attr-defined]
    checked = 0
    for job in jobs:
        lat = job["write"]["lat_ns"]
        if "percentile" not in lat:  # the front end's "All clients": neither percentiles nor bins
            assert "bins" not in lat
            continue
        histogram = histogram_of(job["write"])
        assert histogram is not None and sum(histogram.values()) == lat["N"]
        assert percentile_ns(histogram, 50) == lat["percentile"]["50.000000"]
        assert percentile_ns(histogram, 99) == lat["percentile"]["99.000000"]
        checked += 1
    assert checked >= 1


def test_one_clients_run_keeps_its_histogram_and_its_percentiles_come_from_it() -> None:
    parser = FioStreamParser(WorkloadId.SYNC_4K, WRITES * 4096)
    parser.feed((CAPTURES / "fio-sync-4k-loopback.out").read_text().partition("--- stderr\n")[0])
    result = parser.result()
    assert result.lat_histogram is not None and sum(result.lat_histogram.values()) == WRITES
    assert result.lat_p50_us == percentile_ns(result.lat_histogram, 50) / 1000  # type: ignore[operator]
    assert result.lat_p50_us is not None and result.lat_p99_us is not None
    assert result.lat_p50_us <= result.lat_p99_us


def test_several_clients_percentiles_are_read_from_their_merged_histogram_not_averaged() -> None:
    """Two clients of very different latency (one on a disk, one on tmpfs): the typical write of all 100 is a fast
    one, which the average of the two clients' p50s (half the slow client's) is not."""
    stdout, stderr = loopback_clients()
    result = parse_front_end(WorkloadId.SYNC_4K, LOOPBACK_JOBS, stdout, stderr, WRITES * 4096)
    slow, fast = result.per_client["client"], result.per_client["client2"]
    assert slow.lat_p50_us is not None and fast.lat_p50_us is not None
    assert slow.lat_p50_us > 100 * fast.lat_p99_us  # type: ignore[operator]
    together = result.lat_histogram
    assert together is not None and sum(together.values()) == 2 * WRITES
    p50 = result.lat_percentile_us(50)
    # the 50th of 100 writes is the fast client's slowest: within the fast client's range
    assert p50 is not None and p50 <= fast.lat_p99_us * 1.01  # type: ignore[operator]
    averaged = statistics.mean([slow.lat_p50_us, fast.lat_p50_us])
    assert averaged > 50 * p50
    # the p99 of them all is among the slow client's writes, and not the average of the two p99s either
    p99 = result.lat_percentile_us(99)
    assert p99 is not None and slow.lat_p50_us <= p99 <= slow.lat_p99_us  # type: ignore[operator]
    assert p99 != pytest.approx(statistics.mean([slow.lat_p99_us, fast.lat_p99_us]), rel=0.05)  # type: ignore[list-item]


def test_merging_sums_each_bins_counts() -> None:
    assert merged([{1000: 2, 2000: 1}, {2000: 3, 5000: 1}, {}]) == {1000: 2, 2000: 4, 5000: 1}
    # 7 writes: the 4th (p50) falls in the 2000 ns bin, the 7th (p99) in the 5000 ns one
    both = merged([{1000: 2, 2000: 1}, {2000: 3, 5000: 1}])
    assert (percentile_ns(both, 50), percentile_ns(both, 99)) == (2000, 5000)
    assert percentile_ns({}, 50) is None


def test_plain_json_has_no_histogram() -> None:
    assert histogram_of({"lat_ns": {"N": 3, "mean": 1.0, "percentile": {"50.000000": 1}}}) is None
