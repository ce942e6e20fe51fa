"""The samples of the run in progress (bench.live.RunSamples): kept per run and host until the engine stores them,
from several sampler threads at once; samples between runs belong to none."""

from __future__ import annotations

import threading

from nfstune.bench.live import RunSamples


def test_samples_are_kept_for_the_run_in_progress_and_taken_once() -> None:
    samples = RunSamples()
    samples.add("client", 1.0, {"cpu_percent": 5.0})  # between runs: not kept
    samples.run_id = 7
    samples.add("client", 2.0, {"cpu_percent": 6.0, "nfs_read_bps": 1e6})
    samples.add("server", 2.1, {"disk_write_bps": 2e6})
    samples.run_id = 8
    samples.add("client", 3.0, {"cpu_percent": 7.0})
    assert samples.take() == {
        (7, "client"): [("cpu_percent", 2.0, 6.0), ("nfs_read_bps", 2.0, 1e6)],
        (7, "server"): [("disk_write_bps", 2.1, 2e6)],
        (8, "client"): [("cpu_percent", 3.0, 7.0)],
    }
    assert samples.take() == {}


def test_samples_from_several_threads_are_all_kept() -> None:
    samples = RunSamples()
    samples.run_id = 1

    def feed(role: str) -> None:
        for t in range(2000):
            samples.add(role, float(t), {"cpu_percent": 1.0, "net_rx_bps": 2.0})

    threads = [threading.Thread(target=feed, args=(role,)) for role in ("server", "client")]
    for thread in threads:
        thread.start()
    taken: dict[tuple[int, str], list[tuple[str, float, float]]] = {}
    while any(thread.is_alive() for thread in threads):
        for key, rows in samples.take().items():
            taken.setdefault(key, []).extend(rows)
    for thread in threads:
        thread.join()
    for key, rows in samples.take().items():
        taken.setdefault(key, []).extend(rows)
    assert {key: len(rows) for key, rows in taken.items()} == {(1, "server"): 4000, (1, "client"): 4000}
