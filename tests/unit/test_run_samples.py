"""The samples of the run in progress (bench.live.RunSamples): kept per run and host until the engine stores them,
from several sampler threads at once; samples between runs belong to none, except each host's first one after a
run ends, which covers that run's last second."""

from __future__ import annotations

import threading

from nfstune.bench.live import RunSamples


def test_samples_are_kept_for_the_run_in_progress_and_taken_once() -> None:
    samples = RunSamples()
    samples.add("client", 1.0, {"cpu_percent": 5.0})  # between runs: not kept
    samples.begin(7)
    samples.add("client", 2.0, {"cpu_percent": 6.0, "nfs_read_bps": 1e6})
    samples.add("server", 2.1, {"disk_write_bps": 2e6})
    samples.begin(8)
    samples.add("client", 3.0, {"cpu_percent": 7.0})
    assert samples.take() == {
        (7, "client"): [("cpu_percent", 2.0, 6.0), ("nfs_read_bps", 2.0, 1e6)],
        (7, "server"): [("disk_write_bps", 2.1, 2e6)],
        (8, "client"): [("cpu_percent", 3.0, 7.0)],
    }
    assert samples.take() == {}


def test_samples_from_several_threads_are_all_kept() -> None:
    samples = RunSamples()
    samples.begin(1)

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


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_each_hosts_first_sample_after_the_end_closes_the_run() -> None:
    clock = Clock()
    samples = RunSamples(1.0, clock)
    samples.begin(3)
    samples.add("server", 1.0, {"disk_write_bps": 1e6})
    samples.end()
    clock.now += 0.9
    samples.add("server", 2.0, {"disk_write_bps": 9e6})  # the sync write's final flush, counted after the end
    samples.add("server", 2.5, {"disk_write_bps": 5.0})  # the server's second sample after the end: no run's
    samples.begin(4)  # the next run opens before the client's closing sample came
    samples.add("client", 2.1, {"nfs_write_bps": 3e6})
    samples.add("client", 2.2, {"nfs_write_bps": 4e6})
    assert samples.wait_closed(("server", "client"))
    assert samples.take() == {
        (3, "server"): [("disk_write_bps", 1.0, 1e6), ("disk_write_bps", 2.0, 9e6)],
        (3, "client"): [("nfs_write_bps", 2.1, 3e6)],
        (4, "client"): [("nfs_write_bps", 2.2, 4e6)],
    }


def test_a_sample_later_than_one_interval_after_the_end_belongs_to_no_run() -> None:
    clock = Clock()
    samples = RunSamples(1.0, clock)
    samples.begin(3)
    samples.end()
    clock.now += 1.0 + RunSamples.SLACK_S + 0.1
    samples.add("server", 5.0, {"disk_write_bps": 1e6})
    assert samples.take() == {}
    assert not samples.wait_closed(("server",))  # its window has passed: no wait, and it says none came


def test_wait_closed_returns_when_the_closing_samples_arrive_from_sampler_threads() -> None:
    samples = RunSamples(30.0)  # a window far longer than the test: only the samples' arrival ends the wait
    samples.begin(1)
    samples.end()
    threads = [
        threading.Thread(target=samples.add, args=(role, 1.0, {"cpu_percent": 1.0})) for role in ("server", "client")
    ]
    for thread in threads:
        thread.start()
    assert samples.wait_closed(("server", "client"))
    for thread in threads:
        thread.join()
    assert set(samples.take()) == {(1, "server"), (1, "client")}
