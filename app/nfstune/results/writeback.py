"""Runs that started while a host was still writing back: nfstune waits for every host's writeback before a timed
run (bench/writeback.py), up to a limit, and a run that started at the limit says so in its workload's details
wherever a session is shown (the HTML report, History, `nfstune report`). Pure."""

from __future__ import annotations

from collections.abc import Iterable

from nfstune.bench.writeback import late_sentence
from nfstune.store import StoredRun


def late_starts(runs: Iterable[StoredRun]) -> dict[tuple[str, str], list[str]]:
    """(recipe, workload) -> a sentence for each repeat whose run started with a host still writing back, in the
    order they ran: "async, round 3: the server was still writing back 420 MiB after 30 s". Empty for a session
    stored before nfstune waited."""
    found: dict[tuple[str, str], list[str]] = {}
    for run in runs:
        for repeat in run.repeats:
            late = [late_sentence(w.host, w.left_kib, w.limit_s) for w in repeat.writeback if w.limit_hit]
            if late:
                when = "warm-up" if repeat.warmup else f"round {repeat.number}"
                found.setdefault((run.recipe, run.workload), []).append(
                    f"{run.config_label}, {when}: {' and '.join(late)}"
                )
    return found


def late_heading(count: int) -> str:
    """The words before a workload's list of such runs."""
    runs = "a run" if count == 1 else f"{count} runs"
    return f"Started before the hosts had finished writing back ({runs}; the figure may be slower for it)"
