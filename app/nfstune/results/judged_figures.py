"""A group's figures by configuration and round, on the one basis bench.figure.judged_by chooses for the group: what
the stop rule (session/rounds.py) and every view of a stored session (summary.py, trend.py, compare.py) judge and
show. A group is one recipe's runs of one workload in a session (the configurations a comparison puts side by
side), or the runs a trend or a comparison of two sessions sets beside each other. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nfstune.bench.figure import (
    Basis,
    RepeatFigures,
    basis_words,
    judged_by,
    judged_figure,
    repeat_figures,
    tail_figure,
)

Rounds = dict[int, float]  # round -> figure


def run_figures(run: Mapping[str, Any]) -> dict[int, RepeatFigures]:
    """Round -> the figures of that round's repeat, warm-ups left out. In a session with a plan the repeat's number is
    its round; in an older one a counter."""
    return {int(r["number"]): repeat_figures(run["workload"], r) for r in run["repeats"] if not r["warmup"]}


@dataclass(frozen=True)
class GroupFigures:
    """A group's figures by label (a configuration, or whatever names its members) and round."""

    basis: Basis
    words: str | None  # what it is judged by, in the views' words (bench.figure.basis_words); None: one figure
    judged: dict[str, Rounds]  # what its verdicts and the stop rule judge
    own: dict[str, Rounds]  # by the workload's unit rule: the mean for sync-4k (the tables' "mean"; the client steps)
    tail: dict[str, Rounds]  # the p99 of a latency workload judged by its typical operation; else empty
    mean_name: str = "mean"  # what `own` is called beside the typical write: from several clients, time served

    @property
    def latency(self) -> bool:
        """Judged by something other than its own figure: its tables show the mean beside it."""
        return self.basis is not Basis.OWN


def group_figures(workload: str, members: Mapping[str, Mapping[int, RepeatFigures]]) -> GroupFigures:
    every = [f for rounds in members.values() for f in rounds.values()]
    basis = judged_by(workload, every)
    tail: dict[str, Rounds] = {}
    if basis is Basis.TYPICAL:
        for label, rounds in members.items():
            tail[label] = {n: t for n, f in rounds.items() if (t := tail_figure(f, basis)) is not None}
    return GroupFigures(
        basis,
        basis_words(basis, every),
        {label: {n: judged_figure(f, basis) for n, f in rounds.items()} for label, rounds in members.items()},
        {label: {n: f.value for n, f in rounds.items()} for label, rounds in members.items()},
        tail,
        "time per write served" if every and all(f.served for f in every) else "mean",
    )
