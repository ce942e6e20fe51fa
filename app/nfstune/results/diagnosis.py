"""What limits each workload, in plain words: its figure against the ceiling that bounds it (the network or the
server's disk for sequential transfers; for synchronous writes, files and metadata the latency budget of the
network's round trip and the server disk's own synchronous write), and what could move it, with its cost. Where a
ceiling was not measured the diagnosis says so instead of guessing; where nothing measured explains a figure it says
that too. Pure: a session as results.session() gives it (ceilings.py reads its ceilings)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.bench.figure import Basis
from nfstune.results.ceilings import Ceilings
from nfstune.results.summary import WorkloadResults

LIMIT = 0.8  # a figure at this share of a ceiling or more is held by it (TCP goodput alone is ~94 % of the line)
NEAR = 0.5  # from here to LIMIT: near it, with something else costing the rest
EXPLAINED = 0.7  # a latency budget that makes this share of a figure or more explains it
ABOVE = 1.1  # a figure this far above its ceiling: the ceiling's own measurement came out low
UNWAITED = 0.5  # a synchronous write under this share of the disk's own flush was not waited for
BUSY_CPU = 90.0  # % of a host's CPUs busy, median over the run: that CPU may be what holds the figure

NETWORK = (
    "a faster link (2.5 or 10 GbE: every NIC and switch on the path)",
    "nconnect=4 or 8 (NFS 3 or 4.1+), which helps where one TCP connection cannot fill a fast link; little on 1 GbE",
)
DISK_WRITE = (
    "a faster disk or array under the export (an SSD, more disks)",
    "async, which acknowledges before the disk has the data: a server crash or power cut then loses writes the "
    "clients were told were safe",
)
DISK_READ = ("a faster disk or array under the export", "more RAM on the server, so that repeated reads come from it")
FLUSH = (
    "a disk that flushes fast: an SSD with power-loss protection, or a separate log device (SLOG) on ZFS",
    "async, which does not wait for the flush: a server crash or power cut then loses writes the clients were told "
    "were safe",
)
PATH = ("a shorter, quieter network path (wired, one switch, no VPN or Wi-Fi); NFS options do not shorten it",)
# round trips each file or operation costs at least (nfs-knowledge §3: CREATE, WRITE and COMMIT for a small file)
ROUND_TRIPS = {"small-files": 3, "file-create": 2, "file-stat": 2, "file-delete": 1, "tree-delete": 1}


@dataclass(frozen=True)
class Diagnosis:
    recipe: str
    workload: str
    label: str  # the configuration diagnosed: the recipe's baseline, where the admin starts from
    figure: float
    unit: str
    bottleneck: str | None  # "network", "server disk", "disk flush", "round trips", "CPU (server)"...; None: unknown
    share: float | None  # of the ceiling that holds it (throughput), or of the figure the latency budget explains
    text: str
    levers: tuple[str, ...] = ()


def diagnose(
    groups: Sequence[WorkloadResults],
    ceilings: Ceilings,
    *,
    files: int | None = None,
    busy: Mapping[tuple[str, str, str], Mapping[str, float]] | None = None,
) -> list[Diagnosis]:
    """One diagnosis per recipe and workload, of its baseline's median. `files`: the small-files tree's file count
    (the plan's sizes); `busy`: median CPU busy % by (recipe, workload, configuration) and host role."""
    found = []
    for group in groups:
        base = next((c for c in group.configs if c.label == group.baseline_label), None)
        if base is None or base.summary is None:
            continue
        figure = base.summary.median
        found.append(
            _diagnosis(
                group, base.label, figure, ceilings, files, (busy or {}).get((group.recipe, group.workload, base.label))
            )
        )
    return found


def _diagnosis(
    group: WorkloadResults,
    label: str,
    figure: float,
    c: Ceilings,
    files: int | None,
    busy: Mapping[str, float] | None,
) -> Diagnosis:
    def made(bottleneck: str | None, share: float | None, text: str, levers: tuple[str, ...] = ()) -> Diagnosis:
        hot = [role for role, percent in sorted((busy or {}).items()) if percent >= BUSY_CPU]
        if hot and bottleneck is None:
            role = hot[0]
            text += (
                f" The {role}'s CPU was {(busy or {})[role]:.0f} % busy during the run: its CPU may be what holds it."
            )
            bottleneck = f"CPU ({role})"
            levers = (f"a faster CPU on the {role}, or less other work there while NFS runs",)
        return Diagnosis(group.recipe, group.workload, label, figure, group.unit, bottleneck, share, text, levers)

    w = group.workload
    if w == "seq-write":
        return made(
            *_throughput(
                figure,
                "Writes",
                [
                    ("network", "the network's", c.network_to_server, "client → server", NETWORK),
                    ("server disk", "the server disk's", c.disk_write, "sequential write", DISK_WRITE),
                ],
                c,
            )
        )
    if w == "seq-read":
        return made(
            *_throughput(
                figure,
                "Reads",
                [
                    ("network", "the network's", c.network_from_server, "server → client", NETWORK),
                    ("server disk", "the server disk's", c.disk_read, "cold read", DISK_READ),
                ],
                c,
            )
        )
    if w == "sync-4k":
        return made(*_sync_write(figure, c, "A typical write (p50)" if group.basis is Basis.TYPICAL else "Each write"))
    if w in ROUND_TRIPS:
        per_ms = per_file_ms(w, figure, files)
        if per_ms is None:
            return made(None, None, "The file count of this session is not known, so no time per file is.")
        return made(*_per_file(w, per_ms, c))
    return made(None, None, f"No rule diagnoses {w} yet.")


Found = tuple[str | None, float | None, str, tuple[str, ...]]


def _throughput(
    figure: float, what: str, bounds: list[tuple[str, str, float | None, str, tuple[str, ...]]], c: Ceilings
) -> Found:
    known = [b for b in bounds if b[2] is not None]
    if not known:
        names = " or ".join(b[1].removeprefix("the ").removesuffix("'s") for b in bounds) + " ceiling"
        return None, None, f"{what} ran at {figure:.3g} MB/s; {c.missing(names)}, so nothing says what holds them.", ()
    name, whose, value, way, levers = min(known, key=lambda b: b[2] or 0.0)
    assert value is not None
    share = figure / value
    at = f"{what} ran at {percent(share)} of {whose} {value:.3g} MB/s ({way})"
    unmeasured = [b[1].removeprefix("the ").removesuffix("'s") for b in bounds if b[2] is None]
    also = f" ({c.missing(' or '.join(unmeasured) + ' ceiling')})" if unmeasured else ""
    if share > ABOVE:  # the ceiling came out low (iperf3 and the disk run once, on a link others may use)
        said = f"{what} ran at {figure:.3g} MB/s, above {whose} {value:.3g} MB/s ({way}) as measured"
        return name, share, f"{said}: that ceiling measured low this time, and the {name} is the limit{also}.", levers
    if share >= LIMIT:
        return name, share, f"{at}: the {name} is the limit; NFS settings will not raise it{also}.", levers
    if share >= NEAR:
        return None, share, f"{at}: near that limit; NFS's own costs per request take the rest{also}.", levers
    return None, share, f"{at}: nothing measured explains the rest{also}.", ()


def _sync_write(figure: float, c: Ceilings, writes: str) -> Found:
    """`writes`: what the figure is ("A typical write (p50)", or "Each write" for a mean)."""
    parts = [
        (n, v)
        for n, v in (("the network round trip", c.round_trip_ms), ("the server disk's flush", c.sync_write_ms))
        if v
    ]
    if not parts:
        return None, None, f"{writes} took {figure:.3g} ms; {c.missing('round trip or disk flush latency')}.", ()
    budget = sum(v for _, v in parts)
    said = " and ".join(f"{n} ({v:.2g} ms)" for n, v in parts)
    share = budget / figure
    flush = c.sync_write_ms
    if flush is not None and figure < UNWAITED * flush:
        # well under the disk's own flush: not waited for (a disk's flush varies, but not by half)
        return (
            None,
            share,
            f"{writes} took {figure:.3g} ms, under half the server disk's own flush ({flush:.2g} ms): the server "
            "acknowledged before its disk had the data (async, or a disk cache that ignores flushes).",
            (),
        )
    if share > 1:  # the parts, measured apart (the flush by appending writes), came out above the whole
        name = max(parts, key=lambda p: p[1])[0]
        bottleneck = "disk flush" if "disk" in name else "network latency"
        return (
            bottleneck,
            1.0,
            f"{writes} took {figure:.3g} ms, about what {said} take measured apart: {name} is the limit.",
            FLUSH if bottleneck == "disk flush" else PATH,
        )
    if share >= EXPLAINED:
        name = max(parts, key=lambda p: p[1])[0]
        bottleneck = "disk flush" if "disk" in name else "network latency"
        return (
            bottleneck,
            share,
            f"{writes} took {figure:.3g} ms, {percent(share)} of it {said}: {name} is the limit.",
            FLUSH if bottleneck == "disk flush" else PATH,
        )
    rest = "the rest is spent in the NFS server and the client"
    if c.sync_write_ms is None:
        rest = f"{c.missing('disk flush latency')}, which is likely most of the rest"
    return None, share, f"{writes} took {figure:.3g} ms; {said} explain only {percent(share)} of it: {rest}.", ()


def per_file_ms(workload: str, figure: float, files: int | None) -> float | None:
    if workload in ("small-files", "tree-delete"):
        return figure * 1000 / files if files else None
    return 1000 / figure if figure > 0 else None  # files a second


def _per_file(workload: str, per_ms: float, c: Ceilings) -> Found:
    trips = ROUND_TRIPS[workload]
    each = "file" if workload in ("small-files", "tree-delete") else "operation"
    head = f"Each {each} took {per_ms:.3g} ms"
    if c.round_trip_ms is None:
        return (
            None,
            None,
            f"{head}; {c.missing('round trip', on_server=False)}, so how many round trips it waits for is not known.",
            (),
        )
    waits = trips * c.round_trip_ms
    share = waits / per_ms
    trips_said = f"{trips} round trip{'s' if trips > 1 else ''} of {c.round_trip_ms:.2g} ms"
    if share >= EXPLAINED:
        return (
            "round trips",
            share,
            f"{head}; at least {trips_said} make {percent(share)} of it: the network's latency is the limit.",
            PATH,
        )
    if c.sync_write_ms is not None and workload != "file-stat" and per_ms >= NEAR * c.sync_write_ms:
        # a file on a sync export waits for the server's commits: how many whole flushes of its disk fit in it
        flushes = max(1, round(per_ms / c.sync_write_ms))
        made = flushes * c.sync_write_ms / per_ms
        many = f"about {flushes} flushes" if flushes > 1 else "about one flush"
        return (
            "disk flush",
            made,
            f"{head}: {many} of the server's disk ({c.sync_write_ms:.2g} ms each) make {percent(made)} of it, while "
            f"its {trips_said} make {percent(share)}: the server's synchronous commits are the limit.",
            FLUSH,
        )
    missing = f" ({c.missing('disk flush latency')})" if c.sync_write_ms is None else ""
    return (
        None,
        share,
        f"{head}; its {trips_said} explain {percent(share)} of it, and nothing measured explains the rest{missing}.",
        (),
    )


def percent(share: float) -> str:
    """'94 %', as nfstune writes every percentage."""
    return f"{share * 100:.0f} %"
