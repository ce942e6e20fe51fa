"""What a many-clients session says about the server's nfsd thread count, and the nfs.conf edit that follows. Pure.

The recipe runs its largest client counts once more with many more threads than a NAS's default (8, or 16 from
nfs-utils 2.8.2). Against the same count with the server's own threads, that answers "were the threads the
limit?" by measurement, with the verdict rules of every other comparison: /proc/fs/nfsd/pool_stats cannot say it
on current kernels (docs/research/many-clients.md). Only a comparison that was faster on some workload and slower
on none recommends the larger count; "no difference that matters" says the threads are enough, and an unsettled
one says what would settle it.

The count goes to [nfsd] threads= of the server's own nfs.conf (nfs/nfs_conf.py edits the value's characters
only): rpc.nfsd and nfsdctl read it when the NFS server starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.errors import ConfigError
from nfstune.nfs.nfs_conf import NFS_CONF, threads_text
from nfstune.results.summary import WorkloadResults
from nfstune.statistics.verdict import Verdict
from nfstune.store import StoredRun
from nfstune.words import count

TAKES_EFFECT = "rpc.nfsd reads it when the NFS server starts: `systemctl restart nfs-server` (clients wait a moment)"


@dataclass(frozen=True)
class ThreadsFinding:
    threads: int  # the count the recipe ran
    clients: int  # with this many clients at once
    label: str  # its configuration
    verdicts: Mapping[str, Verdict]  # workload -> against the same client count with the server's own threads


@dataclass(frozen=True)
class ThreadsAdvice:
    """A recommended thread count (`file` edited into `after`), or, with `file` None, what the session says
    instead (in `note`)."""

    note: str
    file: str | None = None
    before: str | None = None  # the file's whole text now; None when it does not exist
    after: str | None = None  # the file's whole text as recommended
    line: str | None = None  # the line that sets threads, as recommended
    threads: int | None = None  # the count recommended (None: none is)

    @property
    def changed_lines(self) -> tuple[list[str], list[str]]:
        """(lines only in the file now, lines only in the recommended one): the diff the admin reads."""
        old = (self.before or "").splitlines()
        new = (self.after or "").splitlines()
        return [line for line in old if line not in new], [line for line in new if line not in old]


def threads_finding(groups: Sequence[WorkloadResults], runs: Sequence[StoredRun]) -> ThreadsFinding | None:
    """The configuration of the most clients that ran with its own nfsd thread count, and its verdicts."""
    loads = {(r.recipe, r.config_label): (r.config.clients, r.config.nfsd_threads) for r in runs}
    best: tuple[int, int, str, str] | None = None  # (clients, threads, recipe, label)
    for (recipe, label), (clients, threads) in loads.items():
        if clients is not None and threads is not None and (best is None or clients > best[0]):
            best = (clients, threads, recipe, label)
    if best is None:
        return None
    clients, threads, recipe, label = best
    verdicts = {}
    for group in groups:
        if group.recipe != recipe:
            continue
        config = next((c for c in group.configs if c.label == label), None)
        if config is not None and config.verdict is not None:
            verdicts[group.workload] = config.verdict
    return ThreadsFinding(threads, clients, label, verdicts) if verdicts else None


def threads_advice(
    finding: ThreadsFinding, own_threads: int | None, nfs_conf: Mapping[str, str] | None
) -> ThreadsAdvice:
    """`own_threads`: the count the server ran otherwise (its probe); `nfs_conf`: its nfs.conf files, path ->
    text, in nfs-utils' reading order (None: not read)."""
    own = f"the server's own {own_threads}" if own_threads else "the server's own count"
    quoted = "; ".join(f"{workload}: {v.text}" for workload, v in finding.verdicts.items())
    kinds = {v.kind for v in finding.verdicts.values()}
    if "slower" in kinds or "unreliable" in kinds:
        return ThreadsAdvice(f"nfsd threads: {_threads(finding.threads)} did not help ({quoted}): keep {own}.")
    if kinds == {"same"}:
        return ThreadsAdvice(
            f"nfsd threads: with {finding.clients} clients at once, {_threads(finding.threads)} made no difference "
            f"that matters against {own} ({quoted}): the threads are not this NAS's limit for this load."
        )
    if "faster" not in kinds:
        settle = next((v.settle for v in finding.verdicts.values() if v.settle), "")
        return ThreadsAdvice(
            f"nfsd threads: not settled whether {_threads(finding.threads)} make a difference with "
            f"{finding.clients} clients at once ({quoted}). {settle}".strip()
        )
    note = (
        f"nfsd threads: with {finding.clients} clients at once, {_threads(finding.threads)} were faster than {own} "
        f"({quoted}). {TAKES_EFFECT}."
    )
    if nfs_conf is None:
        return ThreadsAdvice(note + f" Set [nfsd] threads={finding.threads} in {NFS_CONF}.")
    return _edit(finding.threads, nfs_conf, note)


def _threads(threads: int) -> str:
    return count(threads, "thread")


def _edit(threads: int, files: Mapping[str, str], note: str) -> ThreadsAdvice:
    """The file whose threads= nfs-utils reads (else /etc/nfs.conf) with the count set in place."""
    try:
        path, before, after = threads_text(files, threads)
    except ConfigError as error:
        return ThreadsAdvice(f"{note} Set [nfsd] threads={threads} by hand: {error}")
    line = next((ln for ln in after.splitlines() if ln not in (before or "").splitlines()), f"threads={threads}")
    return ThreadsAdvice(note, path, before, after, line.strip(), threads)
