"""A stored session as figures: per recipe and workload, each configuration's summary and what it means against
the recipe's baseline; and two sessions side by side. Pure (no Qt, no I/O): the history page, the text report and
the HTML report all read the same figures from here.

Values are the stored metric of every repeat that is not a warm-up (engine.stored_value), so the figures here are
exactly those the engine measured and the stop rule judged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from nfstune.bench.stats import Summary, compare, summarize
from nfstune.engine import stored_value
from nfstune.recipes.model import WORKLOADS

# what /proc/mounts says that a recipe can change; the rest of its option list is noise next to the requested ones
NEGOTIATED_KEYS = ("vers", "rsize", "wsize", "nconnect")
# the two sides of compare_sessions(), as they appear in its texts ("B is 12 % faster than A")
SIDE_NAMES = ("A", "B")


@dataclass(frozen=True)
class ConfigResult:
    label: str
    values: list[float]  # one figure per measured repeat, warm-ups left out
    summary: Summary | None  # None when no repeat completed
    requested: str  # mount options nfstune asked for ("" = the defaults)
    negotiated: str  # the mount's options as /proc/mounts showed them ("" when not read back)
    export_options: str | None  # the export's options during the run (server-side recipes)
    verdict: str | None  # compare() text against the baseline; None for the baseline itself or when not comparable
    significant: bool | None  # whether that difference is significant; None when there is no verdict
    status: str | None  # the run's status ("completed", "failed", ...); None while it runs


@dataclass(frozen=True)
class WorkloadResults:
    recipe: str
    workload: str
    unit: str
    higher_is_better: bool
    configs: list[ConfigResult]  # the baseline first, then the others in the order they ran
    baseline_label: str  # the configuration the others' verdicts compare with


@dataclass(frozen=True)
class ComparisonRow:
    recipe: str
    workload: str
    config_label: str
    unit: str
    median_a: float | None  # None: not measured in session A
    median_b: float | None
    change_percent: float | None  # of the median, B against A; None when a side is missing or A's median is 0
    text: str  # in words: "B is 12 % faster than A (...)", "no measurable difference (...)", "only in A"
    significant: bool | None = None  # None when the two could not be compared


def measured_values(run: Mapping[str, Any]) -> list[float]:
    return [stored_value(run["workload"], r) for r in run["repeats"] if not r["warmup"]]


def summarize_session(session: Mapping[str, Any], baselines: Mapping[str, str] | None = None) -> list[WorkloadResults]:
    """Per recipe and workload (in the order they ran), each configuration's figures and its verdict against the
    baseline: the configuration named in `baselines[recipe]` when it ran that workload, else the first one that
    did (what `nfstune report` has always compared with). A configuration that ran twice counts with its last run.
    """
    runs_by_key: dict[tuple[str, str], dict[str, Mapping[str, Any]]] = {}
    for run in session["runs"]:
        runs_by_key.setdefault((run["recipe"], run["workload"]), {})[run["config_label"]] = run
    # options belong to the configuration, not to the workload: the last run of a configuration tells them
    options: dict[tuple[str, str], Mapping[str, Any]] = {(r["recipe"], r["config_label"]): r for r in session["runs"]}
    found = []
    for (recipe, workload), runs in runs_by_key.items():
        w = WORKLOADS[workload]
        values = {label: measured_values(run) for label, run in runs.items()}
        wanted = (baselines or {}).get(recipe)
        baseline = wanted if wanted in runs else next(iter(runs))
        configs = []
        for label, run in runs.items():
            verdict, significant = None, None
            if label != baseline and values[baseline] and values[label]:
                c = compare(
                    values[baseline], values[label], higher_is_better=w.higher_is_better, names=(baseline, label),
                    unit=w.unit,
                )  # fmt: skip
                verdict, significant = c.text, c.significant
            opts = options[(recipe, label)]
            result = ConfigResult(
                label=label, values=values[label], summary=summarize(values[label]) if values[label] else None,
                requested=opts["requested_options"] or "", negotiated=opts["negotiated_options"] or "",
                export_options=opts["export_options"], verdict=verdict, significant=significant, status=run["status"],
            )  # fmt: skip
            configs.append(result)
        if baseline != next(iter(runs)):  # the baseline leads, as in every table of results
            configs.sort(key=lambda c: c.label != baseline)
        found.append(WorkloadResults(recipe, workload, w.unit, w.higher_is_better, configs, baseline))
    return found


def negotiated_essentials(negotiated: str, keys: Sequence[str] = NEGOTIATED_KEYS) -> str:
    """The options of /proc/mounts' list that a recipe can change, in the kernel's order: 'vers=4.2,rsize=8192'."""
    chosen = {o.split("=")[0]: o for o in negotiated.split(",") if o.split("=")[0] in keys}
    return ",".join(chosen.values())


def negotiated_view(requested: str, negotiated: str) -> str:
    """'requested rsize=8192 · negotiated vers=4.2,rsize=8192,wsize=8192': what was asked for next to what the
    client and server agreed, which is what actually ran."""
    essentials = negotiated_essentials(negotiated)
    asked = f"requested {requested or '(defaults)'}"
    return f"{asked} · negotiated {essentials}" if essentials else asked


def results_text(session: Mapping[str, Any], baselines: Mapping[str, str] | None = None) -> str:
    """The session's results as `nfstune report` prints them: per recipe and workload each configuration's median,
    spread, n and CV, its verdict against the baseline, and the requested and negotiated options."""
    lines = [f"\nsession {session['id']}: {session['status']}"]
    for group in summarize_session(session, baselines):
        better = "higher" if group.higher_is_better else "lower"
        lines.append(f"\n{group.recipe} / {group.workload} ({group.unit}, {better} is better)")
        for c in group.configs:
            s = c.summary
            if s is None:
                lines.append(f"  {c.label:14} no completed repeats")
                continue
            line = f"  {c.label:14} median {s.median:8.3g}  min {s.min:8.3g}  max {s.max:8.3g}  n={s.n}"
            line += f"  CV {s.cv_percent:4.1f} %"
            if c.verdict is not None:
                line += f"\n  {'':14} {c.verdict}"
            lines.append(line)
            essentials = negotiated_essentials(c.negotiated)
            if essentials:
                lines.append(f"  {'':14} requested {c.requested or '(defaults)'}; negotiated {essentials}")
    return "\n".join(lines)


def compare_sessions(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[ComparisonRow]:
    """Each (recipe, workload, configuration) measured in either session: both medians, the change of B against A,
    and whether that change is real (Welch's test, as against a baseline). Rows follow A's order, then B's own."""
    side_a = _by_config(summarize_session(a))
    side_b = _by_config(summarize_session(b))
    rows = []
    for key in [*side_a, *(k for k in side_b if k not in side_a)]:
        recipe, workload, label = key
        found_a, found_b = side_a.get(key), side_b.get(key)
        median_a = found_a.summary.median if found_a and found_a.summary else None
        median_b = found_b.summary.median if found_b and found_b.summary else None
        change = None
        if median_a is not None and median_b is not None and median_a != 0:
            change = 100 * (median_b - median_a) / median_a
        text, significant = _difference_text(found_a, found_b, workload)
        rows.append(ComparisonRow(recipe, workload, label, WORKLOADS[workload].unit, median_a, median_b, change,
                                  text, significant))  # fmt: skip
    return rows


def _by_config(groups: list[WorkloadResults]) -> dict[tuple[str, str, str], ConfigResult]:
    return {(g.recipe, g.workload, c.label): c for g in groups for c in g.configs}


def _difference_text(a: ConfigResult | None, b: ConfigResult | None, workload: str) -> tuple[str, bool | None]:
    name_a, name_b = SIDE_NAMES
    if a is None or b is None:
        return f"only in {name_a if b is None else name_b}", None
    if not a.values or not b.values:
        missing = [name for name, c in ((name_a, a), (name_b, b)) if not c.values]
        return f"no completed repeats in {' and '.join(missing)}", None
    w = WORKLOADS[workload]
    # with fewer than 2 repeats on a side compare() says so itself, and never calls that significant
    c = compare(a.values, b.values, higher_is_better=w.higher_is_better, names=SIDE_NAMES, unit=w.unit)
    return c.text, (c.significant if c.test is not None else None)


@dataclass(frozen=True)
class Agreement:
    """One configuration measured twice in a session (under two labels or recipes): do the two runs agree?"""

    workload: str
    unit: str
    in_force: str  # what was actually in force: export options, negotiated mount options, read-ahead
    first: str  # "recipe: label"
    second: str
    median_first: float
    median_second: float
    difference_percent: float  # of the second median against the first
    cv_percent: float  # the larger of the two runs' CVs
    agrees: bool  # the difference is within that CV

    @property
    def text(self) -> str:
        verdict = "agree within" if self.agrees else "differ by more than"
        return (
            f"{self.workload}: {self.first} {self.median_first:.3g} {self.unit} and {self.second} "
            f"{self.median_second:.3g} {self.unit} ran the same configuration ({self.in_force}): "
            f"{abs(self.difference_percent):.1f} % apart, they {verdict} their CV ({self.cv_percent:.1f} %)"
        )


def _in_force(run: Mapping[str, Any]) -> str:
    config = run.get("config") or {}
    ahead = config.get("read_ahead_kb") if isinstance(config, Mapping) else None
    parts = [
        f"export {run['export_options'] or '(as it was)'}",
        f"mount {negotiated_essentials(run['negotiated_options'] or '')}",
    ]
    if ahead is not None:
        parts.append(f"read_ahead_kb={ahead}")
    return "; ".join(parts)


def repeat_agreement(session: Mapping[str, Any]) -> list[Agreement]:
    """Runs of one workload with the same settings in force (the export's options as exportfs showed them, the
    negotiated vers/rsize/wsize/nconnect, read-ahead) under different labels: a check of the measurement itself.
    Two runs of the same configuration should agree within their spread; when they do not, the host was busy
    with something else, and every difference of that size in the session is suspect."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for run in session["runs"]:
        if run["negotiated_options"] and len(measured_values(run)) >= 2:
            groups.setdefault((run["workload"], _in_force(run)), []).append(run)
    found = []
    for (workload, in_force), runs in groups.items():
        for first, second in pairwise(runs):
            a, b = summarize(measured_values(first)), summarize(measured_values(second))
            if a.median == 0:
                continue
            difference = 100 * (b.median - a.median) / a.median
            cv = max(a.cv_percent, b.cv_percent)
            found.append(
                Agreement(
                    workload, WORKLOADS[workload].unit, in_force, f"{first['recipe']}: {first['config_label']}",
                    f"{second['recipe']}: {second['config_label']}", a.median, b.median, difference, cv,
                    abs(difference) <= cv,
                )
            )  # fmt: skip
    return found
