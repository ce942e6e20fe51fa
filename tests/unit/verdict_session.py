"""A quick-check session stored through the real store, whose comparisons come out faster, slower, no difference
that matters, not settled and an expected-the-same one, with its ceilings measured: what the verdict plot and the
limit bars are tested on, and shown in the screenshots."""

from __future__ import annotations

from nfstune.store import Results
from tests.unit.trend_sessions import EXPORT, MOUNT, Run, store_session

BASE_READ = (100.0, 101.0, 99.0, 100.5, 99.5, 100.0)
BASE_SYNC = (4.0, 4.2, 3.9, 4.1, 4.0, 4.05)
BASE_FILES = (2.0, 2.05, 1.98, 2.02, 2.0, 2.01)


def _times(values: tuple[float, ...], factor: float, wobble: tuple[float, ...] = (0,) * 6) -> tuple[float, ...]:
    return tuple(v * factor * (1 + w) for v, w in zip(values, wobble, strict=True))


NOISE = (0.12, -0.15, 0.1, -0.13, 0.14, -0.11)  # far wider than the margin, centred near nothing
CALM = (0.002, -0.003, 0.001, 0.0, -0.002, 0.003)
# what each configuration had in force, as the lab's /proc/mounts and exportfs -s would show it: different from the
# baseline's, or the comparison would be an A/A check
BASE_MOUNT = MOUNT.replace("rsize=131072,wsize=131072", "rsize=1048576,wsize=1048576")
ASYNC = {"export": EXPORT.replace("sync,wdelay", "async,wdelay"), "config": {"export_set": ["async"]}}

RUNS = [
    Run("quick-check", "baseline", "seq-read", BASE_READ, negotiated=BASE_MOUNT),
    Run("quick-check", "baseline", "sync-4k", BASE_SYNC, negotiated=BASE_MOUNT),
    Run("quick-check", "baseline", "small-files", BASE_FILES, negotiated=BASE_MOUNT),
    Run("quick-check", "async", "sync-4k", _times(BASE_SYNC, 0.12, CALM), negotiated=BASE_MOUNT, **ASYNC),
    Run("quick-check", "async", "small-files", _times(BASE_FILES, 0.4, CALM), negotiated=BASE_MOUNT, **ASYNC),
    Run(
        "quick-check",
        "vers=3",
        "seq-read",
        _times(BASE_READ, 0.8, CALM),
        negotiated=BASE_MOUNT.replace("vers=4.2", "vers=3"),
        config={"mount": "vers=3"},
    ),
    Run("quick-check", "rsize=128K", "seq-read", _times(BASE_READ, 1.0, NOISE), config={"mount": "rsize=128K"}),
    Run(
        "quick-check",
        "no_wdelay",
        "sync-4k",
        _times(BASE_SYNC, 1.0, CALM),
        export=EXPORT.replace("wdelay", "no_wdelay"),
        negotiated=BASE_MOUNT,
        config={"export_set": ["no_wdelay"]},
    ),
]
CEILINGS = {("network", "to-server"): 112.0, ("network", "from-server"): 117.0, ("disk", "write"): 160.0}
LATENCIES = {"round-trip": 0.45, "sync-write": 3.2}


def store_verdict_session(results: Results) -> int:
    sid = store_session(results, RUNS)
    for (kind, direction), speed in CEILINGS.items():
        results.add_baseline(
            sid, kind=kind, direction=direction, mb_per_s=speed, seconds=10.0, size=int(speed * 10e6), raw="{}"
        )
    for kind, ms in LATENCIES.items():
        tool = "ping" if kind == "round-trip" else "dd"
        results.add_latency(
            sid, kind=kind, tool=tool, mean_ms=ms, median_ms=ms, min_ms=ms, max_ms=ms, count=10, raw_output=""
        )
    return sid
