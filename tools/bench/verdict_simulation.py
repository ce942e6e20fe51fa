"""Benchmark: how often do the stop rule and the verdicts get it wrong, when the truth is known? Simulates sessions
through the real code: a recipe built by the real model and planner (recipes.model, recipes.plan.build_plan) with
N comparisons (configurations x workloads) and a budget that lets `cap` rounds run; synthetic figures fed round by
round to the real RecipeFigures.add(), the real stop_reason() asked after every counted round with the elapsed time
and round times the budget implies (as session/engine.py's _run_recipe asks it), and the real verdicts
(statistics.verdict.judge over RecipeFigures.questions()) at the stop. Nothing of the statistics is copied here.

Each visit's figure is its configuration's true speed x exp(noise): the noise drawn per visit and workload (normal,
or Student t with 3 df scaled to the same standard deviation), a level shared by every visit of the round (which the
pairing cancels), an optional drift (a trend across the session, at each visit's moment in the round's planned
order, which the pairing does not cancel), and an optional outlier (one visit per session, in rounds 1-5, 2x slow
on all its workloads). In an effect cell the first comparison carries the effect and the others none.

Every stop rule of RULES runs on the same data of each session: "sequential" (the engine's stop_reason and verdicts
as they are: each comparison judged with the boundary of the looks rounds.min..rounds.max, statistics/sequential.py),
"present" (the rule before it, kept for comparison: the same stop_reason, every look judged as if it were the only
one: the questions without their looks), "fixed-5" (five rounds whatever the budget, judged once: KDiskMark's and
pbench-fio's default) and "skipping" ("sequential" with issue 40's item 4, as the engine runs it: after every counted
round's judgement session/skipping.runs_to_skip says which runs the later rounds leave out, settled, and their
figures are no longer added; the elapsed time counts the visits left, skipping.visits_left). A new rule is one more
entry of RULES; --rules picks some, and a cell run again with
another rule joins its earlier tallies in --raw (the same sessions). Prints progress per cell and the table; asserts
nothing. Run it niced, one job while anything else needs the other core (the full grid, 58 cells of 10,000 sessions,
took 26 minutes on a 2-core machine for present and fixed-5; --raw keeps each cell's counts, --replay writes the
document from them without a run):

    PYTHONPATH=app .venv/bin/python tools/bench/verdict_simulation.py --cells quick --sessions 500
    PYTHONPATH=app nice -n 19 .venv/bin/python tools/bench/verdict_simulation.py --cells full \
        --out docs/bench/verdict-simulation.md --raw docs/bench/verdict-simulation.jsonl
    PYTHONPATH=app .venv/bin/python tools/bench/verdict_simulation.py --replay docs/bench/verdict-simulation.jsonl \
        --out docs/bench/verdict-simulation.md
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import datetime
import fnmatch
import json
import math
import multiprocessing
import multiprocessing.pool
import os
import platform
import statistics
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import numpy as np
from scipy.stats import binomtest  # type: ignore[import-untyped]

import nfstune.statistics.verdict as verdict_module
from nfstune.bench.workloads import MIB, WorkloadSizes
from nfstune.recipes.model import WORKLOADS, Config, Recipe, Rounds
from nfstune.recipes.plan import RecipePlan, build_plan, visit_seconds
from nfstune.session.rounds import RecipeFigures, stop_reason
from nfstune.session.skipping import runs_to_skip, visits_left
from nfstune.statistics.stats import t_quantile, t_quantiles
from nfstune.statistics.verdict import Question, Verdict, judge

ROOT = Path(__file__).resolve().parents[2]
SCALE = "small"
SIZES = WorkloadSizes(seq_file_bytes=96 * MIB, small_file_count=20, small_file_bytes=4096, sync_4k_count=50)
SHIPPED_MAX = 8  # the shipped recipes' rounds.max (20 before issue 28's item 3); the plan cuts it to the budget
OUTLIER_ROUNDS = 5  # the outlier falls in one of the first rounds, which both designs measure
OUTLIER_FACTOR = 2.0
# comparisons -> (configurations besides the baseline, workloads), as the shipped recipes have them: readahead
# (2 x 1... here 1 x 1), no-wdelay (1 x 2), nconnect (2 x 2), quick-check (9 in all), many-clients (10 x 3)
SHAPES = {1: (1, 1), 2: (1, 2), 4: (2, 2), 6: (2, 3), 9: (3, 3), 30: (10, 3)}
# sync-4k first: the effect sits on a figure where lower is better (milliseconds), the others on MB/s
WORKLOAD_ORDER = ("sync-4k", "seq-read", "seq-write")
EFFECT_KEY = (WORKLOAD_ORDER[0], "config-1")  # (workload, configuration) of the comparison with the effect


# --- speed: the t quantiles the verdicts ask for, cached --------------------------------------------------------


@contextlib.contextmanager
def cached_t_quantiles() -> Iterator[None]:
    """While it lasts, bench.verdict's t_quantile and t_quantiles remember their answers: the same functions,
    called once per (p, df) (the Holm levels and whole degrees of freedom repeat in every look), so the verdicts
    are exactly those without the cache (--no-cache; tests/unit/test_verdict_simulation.py compares). scipy's
    per-call cost was about a third of each judge(); the p-values (of a continuous t) are computed as they are."""
    quantile, quantiles = t_quantile, t_quantiles  # what bench.verdict imported from bench.stats

    @cache
    def many(p: float, dfs: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(quantiles(p, list(dfs)))

    def cached_quantiles(p: float, dfs: Sequence[float]) -> list[float]:
        return list(many(p, tuple(dfs)))

    vars(verdict_module).update(t_quantile=cache(quantile), t_quantiles=cached_quantiles)
    try:
        yield
    finally:
        vars(verdict_module).update(t_quantile=quantile, t_quantiles=quantiles)


# --- the stop rules compared: each is (stop after a counted round, verdicts at the stop) --------------------------

StopRule = Callable[[RecipeFigures, int, float, Sequence[float]], str | None]  # stop_reason's signature


class JudgedOnce(RecipeFigures):
    """The questions without their looks: every look judged as if it were the session's only one (the engine's
    rule before the looks' boundary; a fixed number of rounds, for which it is right)."""

    def questions(self) -> list[Question]:
        return [replace(q, looks=None) for q in super().questions()]


@dataclass(frozen=True)
class Rule:
    stop: StopRule  # after every counted round: why it stops, or None for another round
    verdicts: Callable[[RecipeFigures], list[Verdict]]  # at the stop: one verdict per question, in order
    figures: type[RecipeFigures] = RecipeFigures  # what holds the figures and asks the questions
    # a settled comparison's runs leave the later rounds (session/skipping.py): `stop` must then be stop_reason,
    # given the round's one judgement, as the engine gives it
    skips: bool = False


def judged(figures: RecipeFigures) -> list[Verdict]:
    """The verdicts a session shows for a recipe run alone: all its questions, one family (results.summary)."""
    return judge(figures.questions())


def fixed_rounds(rounds: int) -> StopRule:
    def stop(figures: RecipeFigures, rounds_done: int, elapsed_s: float, round_times: Sequence[float]) -> str | None:
        return f"a fixed {rounds} rounds" if rounds_done >= rounds else None

    return stop


RULES: dict[str, Rule] = {
    "present": Rule(stop_reason, judged, JudgedOnce),
    "fixed-5": Rule(fixed_rounds(5), judged, JudgedOnce),
    "sequential": Rule(stop_reason, judged),
    "skipping": Rule(stop_reason, judged, skips=True),
}


# --- the cells ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    name: str
    comparisons: int
    cap: int  # the rounds the recipe's budget lets run (rounds.max when larger than the shipped 20)
    noise: float  # per visit and workload: standard deviation of the log figure (0.05: "5 %")
    effect: float = 1.0  # the first comparison's true speed ratio (1.0: A/A); > 1 faster
    round_sd: float = 0.05  # a level shared by every visit of a round (the pairing cancels it)
    drift: float = 0.0  # log-level trend per round, at each visit's moment in the round's order
    outlier: bool = False  # one visit per session, in rounds 1-5, OUTLIER_FACTOR slow on all its workloads
    tails: str = "normal"  # "t3": Student t, 3 df, scaled to the same standard deviation
    # the share of visits OUTLIER_FACTOR slow on all their workloads, each visit on its own (a scrub, a backup)
    contamination: float = 0.0
    # each configuration's own level carried from round to round: AR(1) with this phi, not shared, with the same
    # standard deviation as the noise it replaces (visits that leak into the next visit of the same configuration)
    serial: float = 0.0
    block: str = "A/A"
    max_rounds: int = SHIPPED_MAX  # the recipe's rounds.max: the last look (at least cap)

    @property
    def label(self) -> str:
        truth = "A/A" if self.effect == 1 else f"{_effect_text(self.effect)}"
        extra = [
            *([f"drift {self.drift * 100:g} %/round"] if self.drift else []),
            *(["one visit 2x slow"] if self.outlier else []),
            *(["t3 tails"] if self.tails == "t3" else []),
            *([f"{self.contamination * 100:g} % of visits 2x slow"] if self.contamination else []),
            *([f"AR(1) phi {self.serial:g} per configuration"] if self.serial else []),
        ]
        # "-max" in the name: a cell of issue 28's item 2, whose boundary ran to rounds.max past the budget's cap
        # (the engine no longer does; kept in the raw file and the tables as that step's record)
        shown = "-max" in self.name or self.max_rounds != SHIPPED_MAX
        cap = f"{self.cap} (max {self.max_rounds})" if shown else f"{self.cap}"
        return f"{truth} | {self.comparisons} | {cap} | {self.noise * 100:.3g} %" + (
            f" | {', '.join(extra)}" if self.block == "disturbances" else ""
        )


def _effect_text(ratio: float) -> str:
    if ratio >= 2:
        return f"{ratio:g}x faster"
    if ratio <= 0.5:
        return f"{1 / ratio:g}x slower"
    return f"{abs(ratio - 1) * 100:.0f} % {'faster' if ratio > 1 else 'slower'}"


def _effect_id(ratio: float) -> str:
    if ratio >= 2:
        return f"+{ratio:g}x"
    if ratio <= 0.5:
        return f"-{1 / ratio:g}x"
    return f"{'+' if ratio > 1 else '-'}{abs(ratio - 1) * 100:.0f}"


def _cell(block: str, m: int, cap: int, noise: float, effect: float = 1.0, **extra: object) -> Cell:
    truth = "aa" if effect == 1 else f"fx{_effect_id(effect)}"
    tags = "".join(f"-{k}" for k, v in (("drift", extra.get("drift")), ("outlier", extra.get("outlier"))) if v) + (
        "-t3" if extra.get("tails") == "t3" else ""
    )
    tags += f"-max{extra['max_rounds']}" if extra.get("max_rounds", SHIPPED_MAX) != SHIPPED_MAX else ""
    tags += f"-c{float(extra['contamination']) * 100:g}" if extra.get("contamination") else ""  # type: ignore[arg-type]
    tags += f"-ar{extra['serial']:g}" if extra.get("serial") else ""
    name = f"{truth}-m{m}-cap{cap}-n{noise * 100:g}{tags}"
    return Cell(name, m, cap, noise, effect, block=block, **extra)  # type: ignore[arg-type]


EFFECTS = (1.03, 0.97, 1.10, 0.90, 1.30, 0.70, 3.0, 1 / 3)


def full_grid() -> list[Cell]:
    """The issue's axes, not their cross-product (docs/bench/verdict-simulation.md says why), in the order they run:
    the headline cells first, so that a run stopped early has them. A/A: 1 comparison over every cap and noise;
    2, 4, 9 and 30 at the caps the shipped budgets impose on recipes of that size. Effects: size x direction at 5 %
    and 15 % noise for 1 comparison within 6 rounds, at 15 % within 20; 10 % both ways among 9 comparisons.
    Disturbances (drift, an outlier, heavy tails) as rows of their own, A/A and a 10 % effect."""
    cells: list[Cell] = []
    for cap in (6, 10, 20):
        for noise in (0.05, 0.15):
            cells.append(_cell("A/A", 1, cap, noise))
    cells += [
        _cell("A/A", 2, 10, 0.15),
        _cell("A/A", 9, 6, 0.15),
        _cell("A/A", 30, 3, 0.15),
        _cell("effects", 1, 6, 0.05, 1.10),
        _cell("effects", 1, 6, 0.05, 0.90),
        _cell("effects", 9, 6, 0.05, 1.10),
        _cell("effects", 9, 6, 0.05, 0.90),
        _cell("A/A", 4, 10, 0.15),
    ]
    for noise in (0.05, 0.15):
        cells += [_cell("effects", 1, 6, noise, e) for e in EFFECTS if (noise, e) not in ((0.05, 1.10), (0.05, 0.90))]
    for m, cap in ((1, 6), (1, 20)):
        for effect in (1.0, 1.10):
            for extra in ({"drift": 0.02}, {"outlier": True}, {"tails": "t3"}):
                cells.append(_cell("disturbances", m, cap, 0.05, effect, **extra))
    cells += [_cell("effects", 1, 20, 0.15, e) for e in EFFECTS]
    for cap in (6, 10, 20):
        for noise in (0.01, 0.30):
            cells.append(_cell("A/A", 1, cap, noise))
    cells += [
        _cell("A/A", 2, 6, 0.15),
        _cell("A/A", 2, 20, 0.15),
        _cell("A/A", 2, 10, 0.05),
        _cell("A/A", 9, 4, 0.15),
    ]
    return cells


# per visit: a round's speed ratio (two visits) then spreads 5 %, the noise the power goal of issue 28 names
ROUND_RATIO_5 = 0.05 / math.sqrt(2)


def goals_grid() -> list[Cell]:
    """Issue 28's goals for a stop rule over the looks: at least 80 % power for a 10 % effect at 5 % noise on a
    round's ratio within 6 rounds, and the false positives, at the last rounds the budgets hold (the plan cuts
    rounds.max to them: 6 is quick-check's and block-size's at the normal scale, 8 the shipped maximum); among 6
    comparisons (quick-check, block-size, sync-vs-async, transport) and 9 (quick-check before issue 28)."""
    cells = []
    for cap in (6, 8, 10, 20):
        cells += [_cell("effects", 1, cap, ROUND_RATIO_5, e) for e in (1.10, 0.90)]
        cells += [_cell("A/A", 1, cap, 0.05), _cell("A/A", 1, cap, 0.15)]
    for comparisons in (6, 9):
        cells += [_cell("effects", comparisons, 6, ROUND_RATIO_5, e) for e in (1.10, 0.90)]
    cells += [_cell("A/A", 6, 6, 0.15), _cell("effects", 6, 6, 0.05, 1.30), _cell("effects", 6, 6, 0.05, 3.0)]
    return cells


def more_grid() -> list[Cell]:
    """Cells beyond the full grid, run after it while time allowed: the other caps of 4 and 9 comparisons, more
    effect sizes among 9 comparisons, 9 comparisons disturbed, and 30 comparisons within 6 rounds."""
    cells = [_cell("A/A", 4, 6, 0.15), _cell("A/A", 4, 20, 0.15), _cell("A/A", 9, 10, 0.15)]
    cells += [_cell("effects", 9, 6, 0.05, e) for e in (1.30, 0.70, 3.0, 1 / 3, 1.03, 0.97)]
    cells += [_cell("effects", 9, 6, 0.15, e) for e in (1.10, 0.90, 1.30, 0.70)]
    for effect in (1.0, 1.10):
        for extra in ({"drift": 0.02}, {"outlier": True}, {"tails": "t3"}):
            cells.append(_cell("disturbances", 9, 6, 0.05, effect, **extra))
    cells.append(_cell("A/A", 30, 6, 0.15))
    return cells


def robust_grid() -> list[Cell]:
    """Issue 40's cells: the noise of a real NAS beside the Gaussian noise the boundary is calibrated on. 1 and 2
    comparisons over the shipped looks 3-8, 6 (quick-check's) within the 6 rounds its budget holds; noise 5 % and
    15 % per visit; A/A and a 10 % effect (at 5 %), each clean, with t3 tails, with 5 % of visits 2x slow, with one
    visit 2x slow, and with visits that leak into the same configuration's next (AR(1), phi 0.6)."""
    disturbances: list[dict[str, object]] = [
        {},
        {"tails": "t3"},
        {"contamination": 0.05},
        {"outlier": True},
        {"serial": 0.6},
    ]
    cells = []
    for m, cap in ((1, 8), (2, 8), (6, 6)):
        for effect, noises in ((1.0, (0.05, 0.15)), (1.10, (0.05,))):
            for noise in noises:
                for extra in disturbances:
                    cell = _cell("disturbances", m, cap, noise, effect, **extra)
                    # the clean row's own name: the A/A and effects tables hold cells of the same truth and noise
                    cells.append(cell if extra else replace(cell, name=f"{cell.name}-clean"))
    return cells


def quick_grid() -> list[Cell]:
    return [
        _cell("A/A", 1, 6, 0.10),
        _cell("A/A", 2, 10, 0.10),
        _cell("effects", 1, 6, 0.01, 3.0),
        _cell("effects", 1, 6, 0.05, 1.10),
        _cell("disturbances", 1, 6, 0.05, 1.0, outlier=True),
    ]


def select_cells(spec: str) -> list[Cell]:
    """A preset (quick, full, more), a block of the full grid (aa, effects, disturbances), or cell names (fnmatch
    patterns), comma-separated."""
    full = full_grid()
    blocks = {"aa": "A/A", "effects": "effects", "disturbances": "disturbances"}
    chosen: list[Cell] = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        if part == "quick":
            found = quick_grid()
        elif part == "full":
            found = full
        elif part == "more":
            found = more_grid()
        elif part == "robust":
            found = robust_grid()
        elif part == "goals":
            found = goals_grid()
        elif part in blocks:
            found = [c for c in full if c.block == blocks[part]]
        else:
            every = [*full, *goals_grid(), *more_grid(), *quick_grid(), *robust_grid()]
            found = [c for c in every if fnmatch.fnmatchcase(c.name, part)]
        if not found:
            raise SystemExit(f"--cells: {part!r} names no cell (e.g. quick, full, aa, effects, aa-m9-*)")
        chosen += [c for c in found if c not in chosen]
    return chosen


# --- the recipe, through the real model and planner --------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    item: RecipePlan
    warmup_s: float
    round_s: float
    workloads: tuple[str, ...]
    labels: tuple[str, ...]  # baseline first


def _plan(comparisons: int, cap: int, budget_s: float | None, max_rounds: int = SHIPPED_MAX) -> RecipePlan:
    others, workloads = SHAPES[comparisons]
    labels = ["baseline", *(f"config-{k}" for k in range(1, others + 1))]
    most = max(cap, max_rounds)
    budget = {SCALE: budget_s / 60} if budget_s is not None else {SCALE: 24 * 60.0}
    recipe = Recipe(
        id=f"sim-{comparisons}",
        title="simulated",
        summary="synthetic figures of known truth",
        why="tools/bench/verdict_simulation.py",
        changes_host="client",
        configs=tuple(Config(label) for label in labels),
        workloads=WORKLOAD_ORDER[:workloads],
        baseline="baseline",
        rounds=Rounds(min=3, max=most, warmup=1, margin_percent=5.0, budget_minutes=budget),
    )
    plan = build_plan(
        [recipe],
        {},
        scale=SCALE,
        seed=1,
        sizes=SIZES,
        fio_available=True,
        share="/export",
        server_address="nas",
        scratch_name=".nfstune-sim",
    )
    return plan.recipes[0]


@cache
def setup(comparisons: int, cap: int, max_rounds: int = SHIPPED_MAX) -> Setup:
    """The recipe's plan, with a budget that fits `cap` rounds at the plan's own pace and not one more (the
    engine stops when elapsed + the slowest recent round > budget); at caps of rounds.max and more, it caps."""
    first = _plan(comparisons, cap, None, max_rounds)
    warmup_s = sum(visit_seconds(v, SCALE) for v in first.visits if v.warmup)
    round_s = first.round_s(SCALE)
    budget_s = warmup_s + (cap + 0.5) * round_s
    item = _plan(comparisons, cap, budget_s, max_rounds) if cap < first.rounds.max else first
    labels = tuple(c.label for c in item.configs)
    return Setup(item, warmup_s, round_s, item.recipe.workloads, labels)


# --- one session -------------------------------------------------------------------------------------------------

Round = list[tuple[str, str, float]]  # (workload, configuration, figure) of each visit of a round


def session_data(cell: Cell, s: Setup, rng: np.random.Generator, rounds: int) -> list[Round]:
    """The figures of rounds 1..`rounds`, each visit's at its moment in the plan's order of that round."""
    n_configs, n_workloads = len(s.labels), len(s.workloads)
    if cell.tails == "t3":
        noise = rng.standard_t(3, size=(rounds, n_configs, n_workloads)) * (cell.noise / math.sqrt(3))
    else:
        noise = rng.normal(0.0, cell.noise, size=(rounds, n_configs, n_workloads))
    if cell.serial:  # stationary AR(1) across rounds: the first round drawn at the process's own spread
        phi = cell.serial
        for number in range(1, rounds):
            noise[number] = phi * noise[number - 1] + math.sqrt(1 - phi * phi) * noise[number]
    shared = rng.normal(0.0, cell.round_sd, size=(rounds, n_workloads))
    log_speed = noise + shared[:, None, :]
    log_speed[:, 1, 0] += math.log(cell.effect)
    if cell.outlier:
        log_speed[rng.integers(0, min(OUTLIER_ROUNDS, rounds)), rng.integers(0, n_configs), :] -= math.log(
            OUTLIER_FACTOR
        )
    if cell.contamination:
        slow = rng.random(size=(rounds, n_configs)) < cell.contamination
        log_speed[slow] -= math.log(OUTLIER_FACTOR)
    index = {label: k for k, label in enumerate(s.labels)}
    lower = [not WORKLOADS[w].higher_is_better for w in s.workloads]
    data: list[Round] = []
    for number in range(1, rounds + 1):
        order = s.item.order(number)
        found: Round = []
        for position, label in enumerate(order):
            k = index[label]
            moment = number - 1 + position / len(order)
            for j, workload in enumerate(s.workloads):
                value = math.exp(log_speed[number - 1, k, j] + cell.drift * moment)
                found.append((workload, label, 1 / value if lower[j] else value))
        data.append(found)
    return data


def run_session(s: Setup, data: Sequence[Round], rule: Rule) -> tuple[int, float, list[Verdict]]:
    """The engine's loop over the counted rounds (session/recipe_rounds.py), fed `data`: the rounds done at the
    stop, the plan's seconds of the visits made (warm-up included) and the verdicts then. Every visit takes the
    plan's time, so the budget check sees the cap; with `rule.skips`, a round is the visits it still makes."""
    figures = rule.figures(s.item)
    round_times: list[float] = []
    skipped: frozenset[tuple[str, str]] = frozenset()  # (workload, configuration) settled, not measured
    elapsed = s.warmup_s
    number = 0
    for number in range(1, s.item.rounds.max + 1):
        for workload, label, value in data[number - 1]:
            if (workload, label) not in skipped:
                figures.add(workload, label, number, value)
        round_s = sum(visit_seconds(v, SCALE) for v in visits_left(s.item, number, skipped))
        round_times.append(round_s)
        elapsed += round_s
        if rule.skips:
            judgement = figures.judge()
            if stop_reason(figures, number, elapsed, round_times, judgement) is not None:
                break
            skipped = runs_to_skip(judgement, s.item, number)
        elif rule.stop(figures, number, elapsed, round_times) is not None:
            break
    return number, elapsed, rule.verdicts(figures)


# --- the tally ---------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    sessions: int = 0
    false_positive: int = 0  # sessions with any faster/slower where the truth is no difference
    opposite: int = 0  # the effect comparison's verdict has the wrong sign
    same: int = 0  # the effect comparison came out "no difference that matters"
    right: int = 0  # the effect comparison came out faster/slower in the right direction
    not_settled: int = 0  # the effect comparison (A/A: any comparison) not settled at the stop
    all_settled: int = 0  # sessions that stopped with every comparison settled
    seconds: float = 0.0  # the plan's seconds of the visits made, warm-up included, summed over the sessions
    rounds: list[int] = field(default_factory=list)

    def merge(self, other: Tally) -> None:
        for name in (
            "sessions",
            "false_positive",
            "opposite",
            "same",
            "right",
            "not_settled",
            "all_settled",
            "seconds",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.rounds += other.rounds


def tally_session(tally: Tally, cell: Cell, rounds: int, seconds: float, verdicts: Sequence[Verdict]) -> None:
    tally.sessions += 1
    tally.seconds += seconds
    tally.rounds.append(rounds)
    nulls = verdicts if cell.effect == 1 else [v for v in verdicts if v.key[1:] != EFFECT_KEY]
    tally.false_positive += any(v.effect for v in nulls)
    tally.all_settled += all(v.settled for v in verdicts)
    if cell.effect == 1:
        tally.not_settled += any(not v.settled for v in verdicts)
        return
    (verdict,) = [v for v in verdicts if v.key[1:] == EFFECT_KEY]
    right = "faster" if cell.effect > 1 else "slower"
    tally.right += verdict.kind == right
    tally.opposite += verdict.effect and verdict.kind != right
    tally.same += verdict.kind == "same"
    tally.not_settled += verdict.kind == "not settled"


def simulate(cell: Cell, first: int, count: int, seed: int, rules: Sequence[str]) -> dict[str, Tally]:
    """Sessions first..first+count-1 of the cell, each rule on the same data; session k's data depend only on
    (seed, the cell's name, k), so a cell's figures do not change with --jobs or with the other cells run."""
    s = setup(cell.comparisons, cell.cap, cell.max_rounds)
    tallies = {name: Tally() for name in rules}
    rounds = s.item.rounds.max
    for k in range(first, first + count):
        rng = np.random.default_rng([seed, zlib.crc32(cell.name.encode()), k])
        data = session_data(cell, s, rng, rounds)
        for name in rules:
            done, seconds, verdicts = run_session(s, data, RULES[name])
            tally_session(tallies[name], cell, done, seconds, verdicts)
    return tallies


def _simulate_chunk(args: tuple[Cell, int, int, int, tuple[str, ...]]) -> dict[str, Tally]:
    return simulate(*args)


def run_cell(
    cell: Cell, sessions: int, seed: int, rules: Sequence[str], pool: multiprocessing.pool.Pool | None
) -> dict[str, Tally]:
    if pool is None:
        return simulate(cell, 0, sessions, seed, rules)
    chunk = max(50, sessions // 40)
    tasks = [(cell, first, min(chunk, sessions - first), seed, tuple(rules)) for first in range(0, sessions, chunk)]
    total = {name: Tally() for name in rules}
    for part in pool.imap_unordered(_simulate_chunk, tasks):
        for name, tally in part.items():
            total[name].merge(tally)
    return total


# --- the table ---------------------------------------------------------------------------------------------------


def rate(k: int, n: int) -> str:
    """k of n in percent with its exact (Clopper-Pearson) binomial 95 % interval."""
    if n == 0:
        return "-"
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    return f"{100 * k / n:.1f} ({100 * ci.low:.1f}-{100 * ci.high:.1f})"


def p90(values: Sequence[int]) -> int:
    return int(np.percentile(values, 90, method="higher")) if values else 0


COLUMNS = {
    "A/A": "| truth | comparisons | cap | noise | rule | false positive, % of sessions | all settled, % "
    "| not settled, % | rounds mean | rounds p90 |",
    "effects": '| truth | comparisons | cap | noise | rule | right verdict (power), % | "same", % | not settled, % '
    "| opposite sign | false positive among the others, % | rounds mean | rounds p90 |",
    "disturbances": "| truth | comparisons | cap | noise | disturbance | rule | false positive, % | right verdict, % "
    '| "same", % | opposite sign | rounds mean | rounds p90 |',
}


def row(cell: Cell, rule: str, t: Tally) -> str:
    n = t.sessions
    mean = f"{statistics.fmean(t.rounds):.1f}" if t.rounds else "-"
    head = f"| {cell.label} | {rule} |"
    if cell.block == "A/A":
        return f"{head} {rate(t.false_positive, n)} | {rate(t.all_settled, n)} | {rate(t.not_settled, n)} | {mean} " + (
            f"| {p90(t.rounds)} |"
        )
    others = rate(t.false_positive, n) if cell.comparisons > 1 else "-"
    opposite = f"{t.opposite} ({rate(t.opposite, n).split(' ', 1)[1].strip('()')})"
    if cell.block == "effects":
        return (
            f"{head} {rate(t.right, n)} | {rate(t.same, n)} | {rate(t.not_settled, n)} | {opposite} | {others} "
            f"| {mean} | {p90(t.rounds)} |"
        )
    fp = rate(t.false_positive, n) if cell.effect == 1 or cell.comparisons > 1 else "-"
    power = rate(t.right, n) if cell.effect != 1 else "-"
    same = rate(t.same, n) if cell.effect != 1 else "-"
    opposite = opposite if cell.effect != 1 else "-"
    return f"{head} {fp} | {power} | {same} | {opposite} | {mean} | {p90(t.rounds)} |"


def _order(cell: Cell) -> tuple[float, ...]:
    """Rows by comparisons, cap, noise, disturbance, then the effect's size (faster before slower)."""
    disturbance = (cell.drift, cell.outlier, cell.tails == "t3", cell.contamination, cell.serial)
    return (cell.comparisons, cell.cap, cell.noise, *disturbance, abs(math.log(cell.effect)), -cell.effect)


def tables(results: Sequence[tuple[Cell, dict[str, Tally]]]) -> str:
    lines: list[str] = []
    ordered = sorted(results, key=lambda r: _order(r[0]))
    for block, columns in COLUMNS.items():
        rows = [
            row(cell, rule, found[rule])
            for cell, found in ordered
            if cell.block == block
            for rule in sorted(found, key=lambda r: list(RULES).index(r) if r in RULES else len(RULES))
        ]
        if not rows:
            continue
        width = columns.count("|") - 1
        lines += ["", f"### {block}", "", columns, "|" + "---|" * width, *rows]
    return "\n".join(lines)


# --- the run -----------------------------------------------------------------------------------------------------


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "app", "tools"], capture_output=True)
        return out.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")
    except OSError:
        return "unknown"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )


def shipped_caps() -> list[str]:
    """The rounds each shipped recipe's budget lets run at the plan's own pace (the practice lab's), per scale."""
    from nfstune import paths
    from nfstune.recipes.loader import load_recipes

    recipes, _ = load_recipes([paths.recipes_dir()])
    lines = ["| recipe | comparisons | rounds min-max | small: round, budget, cap | normal: round, budget, cap |"]
    lines.append("|---|---|---|---|---|")
    for recipe in sorted(recipes, key=lambda r: r.id):
        cells = []
        for scale in ("small", "normal"):
            plan = build_plan(
                [recipe],
                {},
                scale=scale,
                seed=1,
                sizes=SIZES,
                fio_available=True,
                share="/export",
                server_address="nas",
                scratch_name=".nfstune-sim",
            )
            item = plan.recipes[0]
            each = item.round_s(scale)
            warm = sum(visit_seconds(v, scale) for v in item.visits if v.warmup)
            cap = next((n for n in range(1, item.rounds.max) if warm + (n + 1) * each > item.budget_s), item.rounds.max)
            cells.append(f"{each / 60:.1f} min, {item.budget_s / 60:.0f} min, {max(cap, item.rounds.min)}")
        m = sum(len(c.workloads or recipe.workloads) for c in recipe.configs if c.label != recipe.baseline)
        lines.append(f"| {recipe.id} | {m} | {recipe.rounds.min}-{recipe.rounds.max} | {cells[0]} | {cells[1]} |")
    return lines


HAND_WRITTEN = "<!-- written by hand below this line: kept when the script rewrites the tables above -->"


Run = tuple[dict[str, object], int]  # a run's meta (its command, commit, ...) and the cells it finished


def document(results: Sequence[tuple[Cell, dict[str, Tally]]], runs: Sequence[Run], kept: str) -> str:
    partial = [f"{done} of {meta['planned']} cells" for meta, done in runs if done < int(str(meta["planned"]))]
    status = f"PARTIAL ({'; '.join(partial)})" if partial else "complete"
    names = [c.name for c, _ in results]
    said = [
        f"`{meta['command']}` ({done} cells of {meta['sessions']} sessions, seed {meta['seed']}, {meta['jobs']} "
        f"job(s), niceness {meta.get('niceness', 0)}; commit {meta['commit']}; wall time "
        f"{float(str(meta['wall_s'])) / 60:.1f} min; written {meta['written']} UTC)"
        for meta, done in runs
    ]
    machines = sorted({str(meta["machine"]) for meta, _ in runs})
    lines = [
        "# The verdicts and the stop rule, simulated: known truth, many sessions",
        "",
        f"Status: {status}. {'Commands' if len(said) > 1 else 'Command'}: {'; then '.join(said)}. "
        f"Machine: {', '.join(machines)}.",
        "",
        "What runs is the real code: a recipe built by recipes.model and recipes.plan.build_plan with N comparisons "
        "(configurations x workloads, shaped as the shipped recipes of that size) and a budget that lets `cap` "
        "rounds run at the plan's own pace; each round's synthetic figures go to RecipeFigures.add(); after every "
        "counted round stop_reason() is asked with the elapsed time and round times that pace implies, as "
        "session/engine.py's _run_recipe asks it; at the stop the verdicts are judge(figures.questions()). Each "
        "visit's figure: its true speed x exp(noise), the noise per visit and workload with the standard deviation "
        "of the `noise` column (on the log figure; a round's speed ratio thus spreads about 1.4 times that), plus a "
        "level shared by every visit of the round (5 %, which the pairing cancels). In an effect cell the first "
        "comparison (sync-4k, where lower is better) carries the effect, every other none. Rules on the same data "
        "of each session: **present** = the rule before issue 28's item 2: stop_reason after every round (from "
        "round 3, the shipped minimum), every look judged as if it were the only one, the verdicts at the stop; "
        "**fixed-5** = the first 5 rounds judged once (KDiskMark's and pbench-fio's default of 5 runs; it ignores "
        "the budget, so at a cap below 5 it measures rounds the budget would not allow); **sequential** = the "
        "engine now: the same stop_reason, each comparison judged with the boundary of the looks rounds.min to "
        "rounds.max (statistics/sequential.py; the `cap` column says `(max N)` where rounds.max is not the shipped "
        "20). "
        "Margin 5 % (every shipped recipe's).",
        "",
        "Columns: rates in % of sessions with their exact (Clopper-Pearson) binomial 95 % interval. *False "
        "positive*: any faster/slower where the truth is no difference (A/A: any of the N; effect cells: any of the "
        "N - 1 others), the family-wise error the 5 % promises to bound. *Right verdict*: the effect comparison "
        'faster/slower in the true direction (power). *Same*: it came out "no difference that matters" (wrong '
        "for an effect beyond the 5 % margin; for 3 % it is the designed answer). *Opposite sign*: sessions whose "
        "effect comparison came out in the wrong direction. *Rounds*: rounds measured at the stop.",
        "",
        "## The round caps the shipped budgets impose",
        "",
        "At the plan's own pace (the practice lab's), warm-up included: a recipe stops when another round would not "
        "fit in its budget. These pick the caps of the grid: the more comparisons a recipe has, the fewer rounds "
        "its budget allows.",
        "",
        *shipped_caps(),
        "",
        "## Results",
        tables(results),
        "",
        f"Cells run, in this order ({len(names)}): {', '.join(names)}.",
        "",
        HAND_WRITTEN,
    ]
    return "\n".join(lines) + "\n" + kept


def kept_text(path: Path | None) -> str:
    """What was written by hand below HAND_WRITTEN in the document at `path`."""
    if path is None or not path.exists():
        return ""
    text = path.read_text()
    return text.split(HAND_WRITTEN + "\n", 1)[1] if HAND_WRITTEN + "\n" in text else ""


def save_raw(path: Path, cell: Cell, found: dict[str, Tally], meta: dict[str, object]) -> None:
    record = {
        "cell": dataclasses.asdict(cell),
        "meta": meta,
        "tallies": {
            name: {**{k: v for k, v in dataclasses.asdict(t).items() if k != "rounds"}, "rounds": _histogram(t.rounds)}
            for name, t in found.items()
        },
    }
    with path.open("a") as out:
        out.write(json.dumps(record, sort_keys=True) + "\n")


def _histogram(rounds: Sequence[int]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(collections.Counter(rounds).items())}


def load_raw(path: Path) -> tuple[list[tuple[Cell, dict[str, Tally]]], list[Run]]:
    """The cells of a --raw file, and its runs (one per command, in order: its last meta, its cells). A cell run
    again with other rules (the same sessions: they depend on the seed, the cell and the session's number only)
    is one cell with every rule's tally; a rule run twice keeps the later tally, and the cell its later fields."""
    results: dict[str, tuple[Cell, dict[str, Tally]]] = {}
    metas: dict[str, dict[str, object]] = {}
    counts: collections.Counter[str] = collections.Counter()
    for line in path.read_text().splitlines():
        record = json.loads(line)
        tallies = {}
        for name, fields in record["tallies"].items():
            rounds = [int(k) for k, v in fields.pop("rounds").items() for _ in range(v)]
            tallies[name] = Tally(**fields, rounds=rounds)
        cell = Cell(**record["cell"])
        # the newest record's cell: a cell run again after the engine changed is shown as it runs now
        results[cell.name] = (cell, {**results.get(cell.name, (cell, {}))[1], **tallies})
        command = str(record["meta"]["command"])
        metas[command] = record["meta"]
        counts[command] += 1
    return list(results.values()), [(meta, counts[command]) for command, meta in metas.items()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=10000, help="simulated sessions per cell")
    parser.add_argument("--cells", default="quick", help="quick, full, more, aa, effects, disturbances, or cell names")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--rules", default=",".join(RULES), help=f"comma-separated, of {', '.join(RULES)}")
    parser.add_argument("--out", type=Path, help="write the Markdown document here (rewritten after every cell)")
    parser.add_argument("--raw", type=Path, help="append each cell's counts here as a JSON line")
    parser.add_argument("--replay", type=Path, help="write --out and print the tables from a --raw file; no run")
    parser.add_argument("--list", action="store_true", help="list the cells and exit")
    parser.add_argument(
        "--rule-as",
        action="append",
        default=[],
        metavar="RULE=NAME",
        help="keep RULE's tallies under NAME (e.g. sequential=t-before, run on an older tree's app/ to compare)",
    )
    parser.add_argument("--no-cache", action="store_true", help="do not cache the t quantiles (same figures, slower)")
    args = parser.parse_args(argv)
    if args.replay:
        stored, runs = load_raw(args.replay)
        if args.out:
            args.out.write_text(document(stored, runs, kept_text(args.out)))
        print(tables(stored))
        return 0
    cells = select_cells(args.cells)
    renamed = dict(part.split("=", 1) for part in args.rule_as)
    rules = [r for r in args.rules.split(",") if r]
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise SystemExit(f"--rules: unknown {unknown}; known: {list(RULES)}")
    if args.list:
        for cell in cells:
            print(cell.name)
        return 0
    started = time.monotonic()
    meta: dict[str, object] = {
        "command": " ".join(["tools/bench/verdict_simulation.py", *(argv if argv is not None else sys.argv[1:])]),
        "sessions": args.sessions,
        "seed": args.seed,
        "jobs": args.jobs,
        "commit": git_commit(),
        "machine": machine(),
        "planned": len(cells),
        "niceness": os.nice(0),
    }
    kept = kept_text(args.out)
    results: list[tuple[Cell, dict[str, Tally]]] = []
    speed = contextlib.nullcontext() if args.no_cache else cached_t_quantiles()
    with speed, contextlib.ExitStack() as stack:
        pool = None
        if args.jobs > 1:  # forked inside the cache, so that the workers have it too
            pool = stack.enter_context(multiprocessing.get_context("fork").Pool(args.jobs))
        for index, cell in enumerate(cells, start=1):
            cell_start = time.monotonic()
            found = run_cell(cell, args.sessions, args.seed, rules, pool)
            found = {renamed.get(name, name): tally for name, tally in found.items()}
            results.append((cell, found))
            summary = "; ".join(_progress(cell, name, t) for name, t in found.items())
            print(f"[{index}/{len(cells)}] {cell.name}: {time.monotonic() - cell_start:.1f} s: {summary}", flush=True)
            meta["wall_s"] = time.monotonic() - started
            meta["written"] = f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M}"
            if args.raw:
                save_raw(args.raw, cell, found, meta)
            if args.out:
                args.out.write_text(document(results, [(meta, len(results))], kept))
    print(tables(results))
    print(f"\n{len(cells)} cells, {args.sessions} sessions each, {(time.monotonic() - started) / 60:.1f} min")
    return 0


def _progress(cell: Cell, rule: str, t: Tally) -> str:
    n = max(t.sessions, 1)
    mean = statistics.fmean(t.rounds) if t.rounds else 0.0
    took = f"{mean:.1f} rounds, {t.seconds / n / 60:.1f} min"
    if cell.effect == 1:
        return f"{rule} FP {100 * t.false_positive / n:.1f} %, {took}"
    return f"{rule} right {100 * t.right / n:.1f} %, opposite {t.opposite}, {took}"


if __name__ == "__main__":
    sys.exit(main())
