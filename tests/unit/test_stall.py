"""A workload whose mount moves nothing for a minute is said once: the server or the network stopped answering
(on the lab, a client that lost its TCP connections to the NAS sat silent for seven minutes)."""

from __future__ import annotations

from nfstune.bench.stall import StallWatch, stall_message

BUSY = {"nfs_ops_per_s": 120.0, "nfs_read_bps": 0.0, "nfs_write_bps": 4e6}
STILL = {"nfs_ops_per_s": 0.0, "nfs_read_bps": 0.0, "nfs_write_bps": 0.0}


def test_a_minute_without_traffic_is_said_once_per_workload() -> None:
    watch = StallWatch(after_s=60)
    watch.start()
    said = [t for t in range(0, 200) if watch.sample(1000.0 + t, BUSY if t < 10 else STILL)]
    assert said == [69]  # the last traffic at t=9, a minute later; never again for this workload
    watch.stop()
    assert not watch.sample(1300.0, STILL)  # no workload, nothing to say
    watch.start()  # the next workload starts its own minute
    assert [t for t in range(0, 100) if watch.sample(2000.0 + t, STILL)] == [60]


def test_traffic_resets_the_minute_and_samples_without_the_mount_say_nothing() -> None:
    watch = StallWatch(after_s=60)
    watch.start()
    for t in range(0, 300):
        series = BUSY if t % 50 == 0 else STILL  # slow, but moving: a small-files tar's pauses
        assert not watch.sample(float(t), series)
    watch.start()
    assert not any(watch.sample(float(t), {"cpu_percent": 3.0}) for t in range(0, 300))  # not mounted yet


def test_the_message_names_both_hosts_and_what_to_do() -> None:
    text = stall_message("lab client", "nas", 60)
    assert text.startswith("lab client: no NFS traffic to or from nas for 60 s")
    assert '"server nas not responding"' in text and "Cancel" in text
