"""Which recipes are worth running next, from what limits each workload (results/diagnosis.py): a figure held by
the network or the disk gains nothing from NFS settings, so those recipes are not offered for it; one that nothing
measured explains, or that waits on the disk's flush, has a recipe that can tell more. Pure."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from nfstune.results.diagnosis import Diagnosis

FAST_LINK_MB_S = 250.0  # above ~2 GbE one TCP connection may not fill the link: nconnect is worth a look


def worth_running(diagnoses: Sequence[Diagnosis], ran: Collection[str], most: int = 3) -> list[tuple[str, str]]:
    """(recipe id, why) for the recipes that could move what was diagnosed, first the likeliest; none already
    `ran` in this session."""
    found: dict[str, str] = {}
    for d in diagnoses:
        for recipe, why in _for(d):
            found.setdefault(recipe, why)
    return [(recipe, why) for recipe, why in found.items() if recipe not in ran][:most]


def _for(d: Diagnosis) -> list[tuple[str, str]]:
    w, held = d.workload, d.bottleneck
    if w in ("seq-read", "seq-write") and held == "network":
        if d.share is not None and d.figure / d.share >= FAST_LINK_MB_S:
            return [("nconnect", f"{w} is held by a fast network: more TCP connections may fill it")]
        return []  # a gigabit link held: only a faster link moves it
    if w == "seq-read" and held is None:
        return [
            ("readahead", "reads run below the ceilings: the client's read-ahead is the usual lever"),
            ("block-size", "and what block size the hosts negotiate"),
        ]
    if w == "seq-write" and held is None:
        return [("block-size", "writes run below the ceilings: the block size the hosts negotiate is one lever")]
    if held == "disk flush":
        return [
            (
                "sync-vs-async",
                f"{w} waits for the server disk's flush: it shows what async would gain, and its risk, before "
                "you decide anything",
            )
        ]
    if held == "round trips":
        return [("nfs-versions", f"{w} waits on round trips: NFS versions differ in how many each file needs")]
    if held is None and w in ("small-files", "sync-4k", "file-create", "file-stat", "file-delete", "tree-delete"):
        return [("quick-check", f"nothing measured explains {w}: quick-check compares the settings that usually do")]
    return []
