"""How big each workload is, from the host facts and a scale (how often: the recipe's rounds, recipes/plan.py).

The seq file size rule. The classic rule (a file of at least 2x the larger host's RAM) is for when a cold read
cannot be guaranteed otherwise. nfstune guarantees it: before every read the engine syncs and drops the page
cache on BOTH hosts, and every write ends with fsync (an NFS COMMIT, so the server's disk is in the time). So
the file only has to be long enough that start-up costs (TCP ramp-up, readahead growing, the first COMMIT) are
a small part of the time, and short enough that repeats stay affordable:

    "normal": as much as the link between the hosts moves in SEQ_SECONDS (8 s: the one second of start-up and
              the five steady seconds bench/steady.py needs, with room), at least 256 MiB and at most 4 GiB:
              839 MiB at 1 GbE (8 s at the ~110 MB/s NFS gets from it), 2 GiB at 2.5 GbE, 4 GiB from 5 GbE up (a
              disk rather than the link is then the limit, and growth may double it); 1 GiB when the link's speed
              is unknown (a virtual NIC). The RAM does not enter: the caches are dropped.
    "small":  96 MiB (about 8 s on the practice lab's ~10-15 MB/s NFS: a cold read then has the five steady
              seconds bench/steady.py needs, and a write's start is a small part of it); never less than 4 MiB.

The other workloads count operations: 300 small files and 300 synchronous 4 KiB writes at "normal" (about 9 s
on an HDD-backed sync export at ~30 ms a file or a flushed write, under a second on SSD or async: growth doubles
sync-4k's count when such short runs spread), 20 and 50 at "small".

Free space: all the files of one configuration together (seq file + small files + sync-4k file) never take
more than half of the share's free space; when even the minimum does not fit, SizingError.

Growth (recipes/growth.py may double the seq file and the sync-4k count between rounds): at most GROWTH_MAX times
the planned size, the seq file at most twice the larger host's RAM (a larger file adds time without making the
read any colder: the classic 2x RAM rule), and the grown files of a configuration still within half the free
space.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from nfstune.bench.workloads import MIB, SYNC_BLOCK_BYTES, WorkloadSizes
from nfstune.errors import NfstuneError

GIB = 1024 * MIB
FS_BLOCK_BYTES = 4096  # what a small file costs at least on the server's filesystem
GROWTH_MAX = 4  # a workload's size grows at most to this multiple of the planned one
SEQ_SECONDS = 8.0  # what the sequential file should last at the link's speed ("normal")
LINK_EFFICIENCY = 0.88  # NFS over TCP moves about 110 MB/s of payload on a 1 Gbit/s (125 MB/s) link
SHORT_RUN_S = 10.0  # a run shorter than this is mostly start-up and jitter (about 1 s of start-up: bench/steady.py)
GROWTH_FACTOR = 2
# the size field of WorkloadSizes -> the workloads it makes, and what it is called
GROWS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("seq_file_bytes", ("seq-write", "seq-read"), "the sequential file"),
    ("sync_4k_count", ("sync-4k",), "sync-4k's writes"),
)


class Scale(StrEnum):
    SMALL = "small"  # unit tests and the lab demo: every repeat a few seconds
    NORMAL = "normal"  # a real NAS


@dataclass(frozen=True)
class Sizing:
    scale: Scale
    sizes: WorkloadSizes
    needed_bytes: int  # on the share, at most, during one configuration (at the planned sizes)
    limits: WorkloadSizes  # the most growth may reach (module docstring)


@dataclass(frozen=True)
class _ScaleRule:
    seq_min: int
    seq_max: int
    small_file_count: int
    small_file_bytes: int
    sync_4k_count: int


RULES = {
    # Lab figures (hdd profile, sync export, 2026-11-22): 30 small files took 5.9-8.6 s (0.20-0.29 s each,
    # create + write + close + setattr), a 4 KiB O_DSYNC write 54-72 ms, 24 MiB 1.4-2.4 s.
    Scale.SMALL: _ScaleRule(4 * MIB, 96 * MIB, 20, 4096, 50),
    # 300 files: ~9 s on an HDD-backed sync export (~30 ms a file), under a second on SSD or async; 300 sync
    # writes likewise (5-30 ms each on HDD).
    Scale.NORMAL: _ScaleRule(256 * MIB, 4 * GIB, 300, 4096, 300),
}


class SizingError(NfstuneError):
    pass


def _on_disk(size: int) -> int:
    return -(-size // FS_BLOCK_BYTES) * FS_BLOCK_BYTES


def files_bytes(sizes: WorkloadSizes) -> int:
    """What one configuration's files take on the share at these sizes (the sequential file, the small files and
    sync-4k's file together)."""
    return (
        sizes.seq_file_bytes
        + sizes.small_file_count * _on_disk(sizes.small_file_bytes)
        + (sizes.sync_4k_count * SYNC_BLOCK_BYTES)
    )


def seq_bytes_for_link(link_mbps: int | None) -> int:
    """The "normal" sequential file for a link of this speed (Mbit/s; None: unknown): module docstring."""
    rule = RULES[Scale.NORMAL]
    if not link_mbps or link_mbps <= 0:
        return GIB
    wanted = int(link_mbps * 1e6 / 8 * LINK_EFFICIENCY * SEQ_SECONDS)
    return min(max(wanted, rule.seq_min), rule.seq_max) // MIB * MIB


def plan_sizes(
    client_ram_bytes: int,
    server_ram_bytes: int,
    share_free_bytes: int,
    scale: Scale | str,
    link_mbps: int | None = None,
) -> Sizing:
    scale = Scale(scale)
    if min(client_ram_bytes, server_ram_bytes) <= 0 or share_free_bytes < 0:
        raise ValueError(
            f"RAM must be positive and free space not negative: {client_ram_bytes=}, "
            f"{server_ram_bytes=}, {share_free_bytes=}"
        )
    rule = RULES[scale]
    others = rule.small_file_count * _on_disk(rule.small_file_bytes) + rule.sync_4k_count * SYNC_BLOCK_BYTES
    budget = share_free_bytes // 2  # never more than half of the free space
    wanted = seq_bytes_for_link(link_mbps) if scale is Scale.NORMAL else rule.seq_max
    seq = min(wanted, budget - others) // MIB * MIB
    if seq < rule.seq_min:
        raise SizingError(
            f"the share has {share_free_bytes / MIB:.0f} MiB free; nfstune needs "
            f"{(rule.seq_min + others) / MIB:.0f} MiB for its test files and never uses more than half the free "
            "space: free some space on the share or choose another one"
        )
    sizes = WorkloadSizes(seq, rule.small_file_count, rule.small_file_bytes, rule.sync_4k_count)
    limits = growth_limits(sizes, max(client_ram_bytes, server_ram_bytes), share_free_bytes)
    return Sizing(scale, sizes, seq + others, limits)


def default_sizes(scale: Scale | str, link_mbps: int | None = None) -> WorkloadSizes:
    """The sizes when the hosts' RAM or free space is not known (they were not probed, or a plan is only shown):
    the rule's, with room to spare on the share."""
    rule = RULES[Scale(scale)]
    seq = rule.seq_max if Scale(scale) is Scale.SMALL else seq_bytes_for_link(link_mbps)
    return WorkloadSizes(seq, rule.small_file_count, rule.small_file_bytes, rule.sync_4k_count)


def growth_limits(sizes: WorkloadSizes, larger_ram_bytes: int | None, share_free_bytes: int | None) -> WorkloadSizes:
    """The largest sizes growth may reach from `sizes` (module docstring); an unknown RAM or free space does not
    limit. Never below `sizes`: what was planned always fits."""
    sync_4k = sizes.sync_4k_count * GROWTH_MAX
    seq = sizes.seq_file_bytes * GROWTH_MAX
    if larger_ram_bytes:
        seq = min(seq, 2 * larger_ram_bytes)
    if share_free_bytes is not None:
        small = sizes.small_file_count * _on_disk(sizes.small_file_bytes)
        seq = min(seq, share_free_bytes // 2 - small - sync_4k * SYNC_BLOCK_BYTES)
    seq = max(seq // MIB * MIB, sizes.seq_file_bytes)
    return WorkloadSizes(seq, sizes.small_file_count, sizes.small_file_bytes, sync_4k)


def growth_rule_text(rounds_min: int, spread_percent: float, limits: WorkloadSizes | None, sizes: WorkloadSizes) -> str:
    """The rule as the plan prints it."""
    cap = ""
    if limits is not None:
        cap = f" (at most {size_text(limits, 'seq_file_bytes')} and {size_text(limits, 'sync_4k_count')})"
    return (
        f"When a workload's runs take under {SHORT_RUN_S:.0f} s and its per-round ratios spread more than "
        f"{spread_percent:g} %, the sequential file ({size_text(sizes, 'seq_file_bytes')}) or sync-4k's count "
        f"({size_text(sizes, 'sync_4k_count')}) doubles for the rounds after{cap}, as long as {rounds_min} more "
        "rounds at the larger size fit in the budget. Every configuration of a round runs the same sizes, so each "
        "round's ratios stay paired; small-files keeps its tree (its figure is the time of the whole untar)."
    )


def size_text(sizes: WorkloadSizes, name: str) -> str:
    if name == "seq_file_bytes":
        return f"{sizes.seq_file_bytes // MIB} MiB"
    return f"{sizes.sync_4k_count} writes"
