"""The comparisons of a recipe run from several clients at once (many-clients), for summary.py. Pure.

Its configurations form series, one per setting besides the client count (the export's write mode, the nfsd
thread count): "1, 2, 3 clients, sync" is one series, "1, 2, 3 clients, async" another. Each configuration is
compared with the one of the same client count in the baseline's series ("3 clients, async" with "3 clients,
sync"): a client count is not a setting, and against one client alone every difference would be the count's. The
members of the baseline's series are compared step by step instead (bench/scaling.py: 1 -> 2, 2 -> 3), and so is
every other series. All these questions join the session's one family.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.bench.scaling import Scaling, fairness, read_scaling, scaling_questions, step_key
from nfstune.statistics.verdict import Question, Verdict

Series = tuple[str, ...]


def load_of(run: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """(clients at once, nfsd threads) a run's configuration asked for; None where it did not."""
    config = run.get("config") or {}
    if not isinstance(config, Mapping):
        return None, None
    clients, threads = config.get("clients"), config.get("nfsd_threads")
    return (clients if isinstance(clients, int) else None), (threads if isinstance(threads, int) else None)


def load_text(run: Mapping[str, Any]) -> str | None:
    """'3 clients at once; 1 nfsd thread', or None for a run from one client through the one-client runner."""
    clients, threads = load_of(run)
    parts = []
    if clients is not None:
        parts.append(f"{clients} clients at once" if clients > 1 else "1 client (fio)")
    if threads is not None:
        parts.append(f"{threads} nfsd thread{'s' if threads > 1 else ''}")
    return "; ".join(parts) or None


def series_of(run: Mapping[str, Any]) -> Series:
    config = run.get("config") or {}
    export = tuple(config.get("export_set") or ()) if isinstance(config, Mapping) else ()
    threads = load_of(run)[1]
    return (",".join(export) or "export as it is", f"{threads} nfsd threads" if threads else "nfsd threads as they are")


def series_name(series: Series) -> str:
    return ", ".join(part for part in series if "as it is" not in part and "as they are" not in part) or "as it is"


def is_clients_group(runs: Mapping[str, Mapping[str, Any]]) -> bool:
    return any(load_of(run)[0] is not None for run in runs.values())


def reference(runs: Mapping[str, Mapping[str, Any]], label: str, baseline: str) -> str | None:
    """The configuration `label` is compared with: the one of its client count in the baseline's series; None for
    the baseline's own series (compared step by step) or when that count was not run in it."""
    base_series = series_of(runs[baseline])
    run = runs[label]
    if series_of(run) == base_series:
        return None
    count = load_of(run)[0]
    return next((other for other, r in runs.items() if series_of(r) == base_series and load_of(r)[0] == count), None)


def clients_order(runs: Mapping[str, Mapping[str, Any]], baseline: str) -> dict[str, tuple[int, int]]:
    """label -> (its series' place, the baseline's first, then as they ran; its client count): the order a table
    of a many-clients recipe reads best in."""
    series = list(dict.fromkeys([series_of(runs[baseline]), *(series_of(r) for r in runs.values())]))
    return {label: (series.index(series_of(run)), load_of(run)[0] or 0) for label, run in runs.items()}


def _ladders(
    runs: Mapping[str, Mapping[str, Any]], rounds: Mapping[str, Mapping[int, float]] | None = None
) -> dict[Series, dict[int, str]]:
    """series -> {client count: label}, each from 1 up to the first count missing (a step needs both ends); with
    `rounds`, also up to the first count that has no measured round (a cancelled session)."""
    found: dict[Series, dict[int, str]] = {}
    for label, run in runs.items():
        count = load_of(run)[0]
        if count is not None and (rounds is None or rounds.get(label)):
            found.setdefault(series_of(run), {})[count] = label
    ladders = {}
    for series, by_count in found.items():
        ladder: dict[int, str] = {}
        while len(ladder) + 1 in by_count:
            ladder[len(ladder) + 1] = by_count[len(ladder) + 1]
        if len(ladder) > 1:
            ladders[series] = ladder
    return ladders


def step_questions(
    recipe: str,
    workload: str,
    runs: Mapping[str, Mapping[str, Any]],
    rounds: Mapping[str, Mapping[int, float]],
    *,
    higher_is_better: bool,
    margin_percent: float,
    looks: tuple[int, int] | None = None,
) -> list[Question]:
    questions = []
    for series, ladder in _ladders(runs, rounds).items():
        aggregate = {count: rounds[label] for count, label in ladder.items()}
        questions += scaling_questions(
            workload,
            aggregate,
            higher_is_better=higher_is_better,
            series=(recipe, *series),
            margin_percent=margin_percent,
            looks=looks,
        )
    return questions


def step_labels(
    recipe: str, workload: str, runs: Mapping[str, Mapping[str, Any]], rounds: Mapping[str, Mapping[int, float]]
) -> dict[tuple[str, ...], tuple[str, str]]:
    """The key of each step step_questions asks -> (the configuration with a client fewer, the one with it)."""
    return {
        step_key(workload, count - 1, (recipe, *series)): (ladder[count - 1], label)
        for series, ladder in _ladders(runs, rounds).items()
        for count, label in ladder.items()
        if count > 1
    }


def step_verdicts(
    recipe: str, workload: str, runs: Mapping[str, Mapping[str, Any]], verdicts: Mapping[tuple[str, ...], Verdict]
) -> dict[str, Verdict]:
    """label -> the verdict of the step that added its client (k-1 -> k) in its series."""
    found = {}
    for series, ladder in _ladders(runs).items():
        for count, label in ladder.items():
            verdict = verdicts.get(step_key(workload, count - 1, (recipe, *series)))
            if count > 1 and verdict is not None:
                found[label] = verdict
    return found


@dataclass(frozen=True)
class ClientFigures:
    """One configuration run from several clients: what each client got (median MB/s over the rounds) and how
    evenly (bench/scaling.fairness: median, lowest, highest of slowest/fastest)."""

    label: str
    clients: int
    per_client: dict[str, float]
    fairness: tuple[float, float, float] | None
    ops_per_s: float | None  # all the clients' operations per second together, median over the rounds


@dataclass(frozen=True)
class SeriesScaling:
    recipe: str
    workload: str
    series: str
    scaling: Scaling
    configs: list[ClientFigures]


def client_figures(label: str, run: Mapping[str, Any]) -> ClientFigures:
    per_round: dict[int, dict[str, float]] = {}
    ops = []
    for rep in run["repeats"]:
        if rep["warmup"] or not rep.get("clients"):
            continue
        per_round[int(rep["number"])] = {c["client"]: float(c["mb_per_s"]) for c in rep["clients"]}
        if rep.get("ops_per_s") is not None and not str(run["workload"]).startswith("seq-"):
            ops.append(float(rep["ops_per_s"]))  # where MB/s says little (4 KiB writes): how many they served
    names = list(dict.fromkeys(name for rates in per_round.values() for name in rates))
    per_client = {n: statistics.median([r[n] for r in per_round.values() if n in r]) for n in names}
    return ClientFigures(
        label, load_of(run)[0] or 1, per_client, fairness(per_round), statistics.median(ops) if ops else None
    )


def series_scaling(
    recipe: str,
    workload: str,
    unit: str,
    runs: Mapping[str, Mapping[str, Any]],
    rounds: Mapping[str, Mapping[int, float]],
    verdicts: Mapping[tuple[str, ...], Verdict],
) -> list[SeriesScaling]:
    found = []
    for series, ladder in _ladders(runs, rounds).items():
        medians = {count: statistics.median(rounds[label].values()) for count, label in ladder.items()}
        if unit == "ms":  # sync-4k's time per write served, said as what the NAS did: writes a second
            medians, unit = {count: 1000 / ms for count, ms in medians.items()}, "writes/s"
        scaling = read_scaling(workload, list(ladder), verdicts, unit, medians, (recipe, *series))
        figures = [client_figures(label, runs[label]) for label in ladder.values()]
        found.append(SeriesScaling(recipe, workload, series_name(series), scaling, figures))
    return found


def scaling_lines(found: Sequence[SeriesScaling]) -> list[str]:
    """The text report's section: per workload and series the scaling verdict, then each count's clients."""
    lines = []
    for item in found:
        lines.append(f"  {item.workload}, {item.series}: {item.scaling.text.split(': ', 1)[-1]}")
        if item.scaling.settle:
            lines.append(f"    to settle it: {item.scaling.settle}")
        for c in item.configs:
            shares = ", ".join(f"{name} {rate:.3g}" for name, rate in c.per_client.items())
            even = ""
            if c.fairness is not None:
                even = f"; slowest/fastest {c.fairness[0]:.2f} ({c.fairness[1]:.2f}-{c.fairness[2]:.2f})"
            ops = f"; {c.ops_per_s:.3g} ops/s together" if c.ops_per_s is not None else ""
            lines.append(f"    {c.label}: each client MB/s: {shares}{even}{ops}")
    return lines
