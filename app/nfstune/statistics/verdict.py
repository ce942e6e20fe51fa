"""The verdict on a configuration against the baseline: faster, slower, no difference that matters, or not settled.

Paired (a session run in rounds): each round gives a speed ratio r = other/baseline (baseline/other for figures where
lower is better), so r > 1 means the configuration is faster, and drift between rounds, which both visits of a round
share, cancels. The estimate is the geometric mean of r; its CI is the t interval on log r (df = n - 1).
Unpaired (an old session, two sessions): Welch's test on the log figures; the estimate is the ratio of geometric means.
Blocks changed by hand (statistics/blocks.py): Student's pooled t on the log block figures, the same estimate.

All questions given to one judge() call are one family, corrected with Holm (1979): sort the raw p ascending; step k
(1-based, of m) rejects when p_(k) <= alpha/(m-k+1) and every earlier step rejected. A t test rejects at level a
exactly when its (1 - a) interval excludes 1, so each comparison's CI is drawn at the level of its step: a rejected
one's CI excludes 1, the one where Holm stops has p above its level, so its CI holds 1, and every comparison after
that step is drawn at the stopping step's level, which its p (no smaller) also fails. The CI shown and the verdict
thus always agree.

Then: the corrected CI lies inside [1/(1+m), 1+m] -> "same" (an equivalence test with margin m), even when it
also excludes 1: a certain 2 % within a 5 % margin is a difference that does not matter, and an admin acts on
that, not on its sign (it also keeps a tiny real effect from flipping between "faster" and "same" from one session
to the next); else the CI excludes 1 -> "faster"/"slower" ("unreliable" when the two should measure the same);
otherwise "not settled", with an estimate of the rounds that would settle it. A question with fewer than 2
pairs is "not settled", untested, and not counted in the family.

Looks (a session's stop rule, session/rounds.py). A session that looks after every round from rounds.min to
rounds.max and stops once every comparison is settled would call noise an effect far more often than alpha if each
look were a fixed-design test (docs/bench/verdict-simulation.md: 11-24 % with one comparison). A paired question
with `looks` = (first, last) is therefore judged as a group-sequential design with a Pocock-type boundary on the
nominal p scale (Pocock 1977; Jennison & Turnbull 2000, "Group Sequential Methods with Applications to Clinical
Trials", ch. 2-3), calibrated by simulation for t tests (statistics/sequential.py): its p-value is the chance that some
look's nominal p would be that small (valid at whichever look the session stopped), Holm runs on those, and its
interval at a Holm level L is the t interval at the nominal level whose intervals cover the truth at every look
at once with chance 1 - L: a finite-horizon confidence sequence. Why this and not an anytime-valid confidence
sequence (Howard et al. 2021): those hold over infinitely many looks and are far wider at 6 rounds than one that
holds only over the looks the recipe can take; and every verdict (faster, slower, "same", unreliable) comes from one
interval whose coverage holds at whatever look the session stops, so the rules above stay as they are. The estimate
of the rounds that would settle it uses the same boundary and never goes past `last`. Questions without looks
(two sessions compared, unpaired ones) and those with one look (rounds.min = rounds.max) are judged once, as above.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from nfstune.statistics.robust import MIN_ROUNDS, far_visits, paired
from nfstune.statistics.sequential import Boundary, boundary
from nfstune.statistics.serial import MIN_ROUNDS as CHECKED_FROM
from nfstune.statistics.serial import Serial, carry_over
from nfstune.statistics.stats import (
    TIMES_FROM,
    format_factor,
    format_percent,
    format_value,
    t_quantile,
    t_quantiles,
    t_two_sided_p,
    welch_test,
)

Kind = Literal["faster", "slower", "same", "not settled", "unreliable"]

MIN_PAIRS = 2
MOST_ROUNDS_ADVISED = 30  # beyond this, more rounds are not a practical way to settle a comparison
LARGEST_FACTOR_SHOWN = 1000.0  # a CI of two rounds in a large family can reach 1e7: say ">1000x"


@dataclass(frozen=True)
class Question:
    key: tuple[str, ...]  # the caller's key, e.g. (recipe, workload, label)
    baseline: Mapping[int, float]  # round -> the baseline's figure in that round (figures in their own unit)
    other: Mapping[int, float]  # round -> the configuration's figure
    higher_is_better: bool
    names: tuple[str, str]  # (baseline label, configuration label), used in the texts
    margin_percent: float = 5.0
    expect_same: bool = False
    why_same: str = ""  # shown in the "unreliable" text: "the kernel ignores no_wdelay on v3/v4"
    paired: bool = True  # False: independent samples (an old session, two sessions): Welch on log values
    # (first, last): the rounds after which the session may stop on it (the recipe's rounds.min and rounds.max),
    # judged with the boundary over those looks; None: judged once (a fixed design). Paired questions only.
    looks: tuple[int, int] | None = None
    # > 0: the figures are blocks changed by hand (statistics/blocks.py), this many in all, not rounds
    blocks: int = 0


@dataclass(frozen=True)
class Verdict:
    key: tuple[str, ...]
    kind: Kind
    ratio: float | None  # speed of the configuration relative to the baseline; None below 2 pairs
    ci: tuple[float, float] | None  # of that ratio, at the Holm-corrected level
    family: int  # comparisons corrected together
    n: int  # pairs (paired) or the smaller sample (unpaired)
    p_value: float | None  # before the Holm correction; with looks, the chance of so small a p at any of them
    text: str  # one sentence
    settle: str | None  # for "not settled": what would settle it
    rounds_needed: int | None  # estimate of the total rounds that would settle it (None: more rounds won't)
    set_aside: int | None = None  # the round counted at its neighbour's ratio: far from the others (robust.py)
    # visits far from the rest of their configuration: (configuration's label, round, figure / its median)
    far: tuple[tuple[str, int, float], ...] = ()
    carry_over: Serial | None = None  # the family's rounds found to carry over (serial.py): its interval widened
    blocks: int = 0  # > 0: judged from this many blocks changed by hand (statistics/blocks.py)

    @property
    def effect(self) -> bool:
        return self.kind in ("faster", "slower")

    @property
    def settled(self) -> bool:
        return self.kind != "not settled"


@dataclass(frozen=True)
class _Estimate:
    log_ratio: float  # log of the speed ratio: > 0 when the configuration is faster
    se: float  # its standard error
    df: float
    n: int
    p_value: float
    spread: float  # se * sqrt(n): what the standard error would be divided by sqrt(n') with n' rounds
    df_per_round: float  # df = df_per_round * (n - 1): 1 paired; Welch's ratio (1 to 2) unpaired
    # the looks' boundary (statistics/sequential.py), also that of a single look from robust.MIN_ROUNDS rounds on
    # (where the statistic is not Student's t); None: one look, Student's t or Welch's
    boundary: Boundary | None = None
    set_aside: int | None = None  # the round counted at its neighbour's value (robust.py)
    counted: tuple[float, ...] = ()  # paired: the log ratios in round order as counted

    def nominal(self, level: float) -> float:
        """The level of a single look's interval that holds at `level` over all the looks."""
        return level if self.boundary is None else self.boundary.nominal_level(level)

    def critical(self, n: int, df: float, nominal: float) -> float:
        """How many standard errors an interval reaches at the nominal level with n rounds (df: Welch's)."""
        if self.boundary is None:
            return t_quantile(1 - nominal / 2, df)
        return self.boundary.critical(n, nominal)

    def ci(self, alpha: float) -> tuple[float, float]:
        if self.se == 0:
            return _exp(self.log_ratio), _exp(self.log_ratio)
        half = self.critical(self.n, self.df, self.nominal(alpha)) * self.se
        return _exp(self.log_ratio - half), _exp(self.log_ratio + half)


def speed_ratios(baseline: Mapping[int, float], other: Mapping[int, float], higher_is_better: bool) -> dict[int, float]:
    """Per round measured in both: how many times faster the configuration was than the baseline (> 1: faster)."""
    _check_figures(baseline, "baseline")
    _check_figures(other, "other")
    rounds = sorted(baseline.keys() & other.keys())
    if higher_is_better:
        return {r: other[r] / baseline[r] for r in rounds}
    return {r: baseline[r] / other[r] for r in rounds}


def _check_figures(figures: Mapping[int, float], whose: str) -> None:
    for number, value in figures.items():
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{whose}: round {number}: the figure {value!r} is not a positive number")


def judge(questions: Sequence[Question], alpha: float = 0.05) -> list[Verdict]:
    """One verdict per question, in the same order; all questions form one family (Holm)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    estimates = [_estimate(q) for q in questions]
    # the comparisons with rounds enough for the check are those it judged, and those it widens: one that settled
    # in fewer and left the rounds keeps its verdict
    checked = [i for i, e in enumerate(estimates) if e is not None and len(e.counted) >= CHECKED_FROM]
    serial = carry_over([estimates[i].counted for i in checked])  # type: ignore[union-attr]
    if serial is not None and serial.found:
        estimates = [_widened(e, serial.factor) if i in checked and e else e for i, e in enumerate(estimates)]
    else:
        serial = None
    tested = [i for i, e in enumerate(estimates) if e is not None]
    levels, rejected = _holm([e.p_value for e in estimates if e is not None], alpha)
    level_of = dict(zip(tested, levels, strict=True))
    rejected_of = dict(zip(tested, rejected, strict=True))
    verdicts = []
    for i, (question, estimate) in enumerate(zip(questions, estimates, strict=True)):
        if estimate is None:
            verdicts.append(_too_few(question, len(tested)))
        else:
            verdict = _verdict(question, estimate, level_of[i], rejected_of[i], len(tested), alpha)
            if serial is not None and i in checked:
                text = f"{verdict.text}; widened {serial.factor:.1f}x: the rounds carry over into each other"
                verdict = dataclasses.replace(verdict, text=text, carry_over=serial)
            verdicts.append(verdict)
    return verdicts


def _widened(estimate: _Estimate, factor: float) -> _Estimate:
    """The estimate with its standard error (and the spread the rounds needed are worked out from) `factor` times
    as large, its p-value again from that."""
    se = estimate.se * factor
    if estimate.boundary is None:
        p = _p_value(estimate.log_ratio, se, estimate.df)
    else:
        p = _sequential_p(estimate.log_ratio, se, estimate.n, estimate.boundary)
    return dataclasses.replace(estimate, se=se, spread=estimate.spread * factor, p_value=p)


def _estimate(question: Question) -> _Estimate | None:
    what = " / ".join(question.key)
    if not (math.isfinite(question.margin_percent) and question.margin_percent >= 0):
        raise ValueError(f"{what}: the margin must be a percentage >= 0, got {question.margin_percent!r}")
    _check_figures(question.baseline, f"{what}: {question.names[0]}")
    _check_figures(question.other, f"{what}: {question.names[1]}")
    if question.paired:
        ratios = speed_ratios(question.baseline, question.other, question.higher_is_better)
        n = len(ratios)
        if n < MIN_PAIRS:
            return None
        rounds = paired({r: math.log(v) for r, v in ratios.items()})
        mean, se, df = rounds.estimate, rounds.se, n - 1.0
        spread = se * math.sqrt(n)
        first, last = question.looks or (n, n)
        last = max(last, n)  # a stored session with more rounds than its recipe allows now
        if max(first, MIN_PAIRS) >= last and n < MIN_ROUNDS:  # one look of Student's t: the fixed design, exactly
            return _Estimate(mean, se, df, n, _p_value(mean, se, df), spread, 1.0, None, rounds.aside, rounds.counted)
        looks = boundary(max(first, MIN_PAIRS), last) if max(first, MIN_PAIRS) < last else boundary(n, n)
        p = _sequential_p(mean, se, n, looks)
        return _Estimate(mean, se, df, n, p, spread, 1.0, looks, rounds.aside, rounds.counted)
    base = [math.log(v) for v in question.baseline.values()]
    other = [math.log(v) for v in question.other.values()]
    n = min(len(base), len(other))
    if n < MIN_PAIRS:
        return None
    difference = statistics.fmean(other) - statistics.fmean(base)
    log_ratio = difference if question.higher_is_better else -difference
    var_base, var_other = statistics.variance(base), statistics.variance(other)
    if question.blocks:  # blocks changed by hand: Student's pooled t (statistics/blocks.py says why)
        df = len(base) + len(other) - 2.0
        pooled = ((len(base) - 1) * var_base + (len(other) - 1) * var_other) / df
        se = math.sqrt(pooled * (1 / len(base) + 1 / len(other)))
        # n blocks of each: se = sqrt(2 pooled / n), df = 2 (n - 1)
        return _Estimate(log_ratio, se, df, n, _p_value(log_ratio, se, df), math.sqrt(2 * pooled), 2.0)
    welch = welch_test(other, base)
    se = math.sqrt(var_base / len(base) + var_other / len(other))
    total = var_base + var_other
    df_per_round = total**2 / (var_base**2 + var_other**2) if total > 0 else 1.0
    return _Estimate(log_ratio, se, welch.df, n, welch.p_value, math.sqrt(total), df_per_round)


def _sequential_p(mean: float, se: float, n: int, looks: Boundary) -> float:
    """The chance, with no difference, of a statistic this far from 0 at some look (at this one, for one look)."""
    if se == 0:
        return 1.0 if mean == 0 else 0.0
    return looks.sequential_p(looks.nominal_p(abs(mean) / se, n))


def _p_value(mean: float, se: float, df: float) -> float:
    if se == 0:  # every round gave the same ratio: certain, whatever it is
        return 1.0 if mean == 0 else 0.0
    return t_two_sided_p(mean / se, df)


def _holm(p_values: Sequence[float], alpha: float) -> tuple[list[float], list[bool]]:
    """Per comparison: the level its CI is drawn at, and whether Holm rejects it (see the module's docstring)."""
    m = len(p_values)
    levels, rejected = [0.0] * m, [False] * m
    stopped_at: float | None = None
    for step, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        if stopped_at is not None:
            levels[i] = stopped_at
            continue
        levels[i] = alpha / (m - step)
        if p_values[i] <= levels[i]:
            rejected[i] = True
        else:
            stopped_at = levels[i]
    return levels, rejected


def _verdict(
    question: Question, estimate: _Estimate, level: float, rejected: bool, family: int, alpha: float
) -> Verdict:
    base, other = question.names
    ratio = _exp(estimate.log_ratio)
    ci = estimate.ci(level)
    ci_text = _ci_text(ci, alpha, question.paired)
    if ci[0] != ci[1]:
        corrected = [f"{family} comparisons"] if family > 1 else []
        if estimate.boundary is not None and estimate.boundary.first < estimate.boundary.last:
            looks = estimate.boundary
            corrected.append(f"stopping at any of rounds {looks.first}-{looks.last}")
        if corrected:
            ci_text += f", corrected for {' and '.join(corrected)}"
    margin = 1 + question.margin_percent / 100
    settle: str | None = None
    rounds_needed: int | None = None
    kind: Kind
    if 1 / margin <= ci[0] and ci[1] <= margin:
        kind = "same"
        text = f"{other}: no difference that matters against {base} (within ±{question.margin_percent:g} %; {ci_text})"
    elif rejected and question.expect_same:
        kind = "unreliable"
        why = f" ({question.why_same})" if question.why_same else ""
        text = (
            f"{other} should measure the same as {base}{why} but came out {format_change(ratio)} ({ci_text}): "
            "the measurement is not reliable on these hosts, so no effect is shown for it"
        )
    elif rejected:
        kind = "faster" if estimate.log_ratio > 0 else "slower"
        text = f"{other} is {format_change(ratio)} than {base} ({ci_text})"
    else:
        kind = "not settled"
        text = f"{other} against {base}: not settled ({format_change(ratio)} so far; {ci_text})"
        rounds_needed = _rounds_needed(estimate, level, math.log(margin))
        if rounds_needed is None and estimate.boundary is not None and estimate.boundary.last < MOST_ROUNDS_ADVISED:
            settle = (
                f"even {estimate.boundary.last} rounds, the most the recipe runs, would not settle it: "
                "larger files or a quieter network would"
            )
        elif rounds_needed is None:
            settle = "more rounds alone would not settle it soon: larger files or a quieter network would"
        else:
            more = rounds_needed - estimate.n
            settle = f"about {more} more round{'' if more == 1 else 's'} would settle it"
        if question.blocks and settle is not None:  # the unit is a block of each, not a round
            settle = settle.replace(" rounds", " blocks of each").replace(" round ", " block of each ")
    far = _far(question)
    text += _notes(question, estimate.set_aside, far) + _by_hand(question)
    return Verdict(
        question.key,
        kind,
        ratio,
        ci,
        family,
        estimate.n,
        estimate.p_value,
        text,
        settle,
        rounds_needed,
        estimate.set_aside,
        far,
        blocks=question.blocks,
    )


def _far(question: Question) -> tuple[tuple[str, int, float], ...]:
    base, other = question.names
    return tuple(
        (name, number, factor)
        for name, figures in ((base, question.baseline), (other, question.other))
        for number, factor in far_visits(figures).items()
    )


def _notes(question: Question, set_aside: int | None, far: Sequence[tuple[str, int, float]]) -> str:
    """What the verdict's sentence adds about rounds far from the rest: never left out silently."""
    notes = [
        f"round {number} of {name} measured {format_value(factor)}x its usual figure" for name, number, factor in far
    ]
    if set_aside is not None:
        notes.append(f"round {set_aside}'s ratio, far from the others', counted at its nearest neighbour's")
    return "".join(f"; {note}" for note in notes)


def _rounds_needed(estimate: _Estimate, level: float, log_margin: float) -> int | None:
    """The fewest rounds in all whose CI, with the spread seen so far, would exclude 1 or fit in the margin (with
    looks: drawn with their boundary, and no more rounds than the last look)."""
    effect = abs(estimate.log_ratio)
    most = MOST_ROUNDS_ADVISED if estimate.boundary is None else min(MOST_ROUNDS_ADVISED, estimate.boundary.last)
    candidates = range(estimate.n + 1, most + 1)
    nominal = estimate.nominal(level)
    quantiles = t_quantiles(1 - nominal / 2, [estimate.df_per_round * (rounds - 1) for rounds in candidates])
    looks = estimate.boundary
    if looks is not None:  # the boundary's own quantiles for the looks it holds, Student's t's beyond them
        quantiles = [
            looks.critical(rounds, nominal) if looks.first <= rounds <= looks.last else quantile
            for rounds, quantile in zip(candidates, quantiles, strict=True)
        ]
    for rounds, quantile in zip(candidates, quantiles, strict=True):
        half = quantile * estimate.spread / math.sqrt(rounds)
        if half < effect or effect + half <= log_margin:
            return rounds
    return None


def _too_few(question: Question, family: int) -> Verdict:
    base, other = question.names
    if question.paired:
        n = len(question.baseline.keys() & question.other.keys())
        measured = "no round" if n == 0 else f"only {n} round"
        why = f"{measured} with both measured; at least {MIN_PAIRS} are needed"
        settle = f"at least {MIN_PAIRS} rounds in which both are measured"
    else:
        n = min(len(question.baseline), len(question.other))
        why = (
            f"{base} measured {len(question.baseline)} and {other} {len(question.other)} times; "
            f"at least {MIN_PAIRS} of each are needed"
        )
        settle = f"at least {MIN_PAIRS} measurements of each"
    text = f"{other} against {base}: not settled ({why})" + _by_hand(question)
    if question.blocks:
        settle = f"at least {MIN_PAIRS} blocks of each"
    return Verdict(question.key, "not settled", None, None, family, n, None, text, settle, None, blocks=question.blocks)


def by_hand_words(blocks: int) -> str:
    """What a verdict from blocks changed by hand (statistics/blocks.py) says of where it came from."""
    return f"by hand: from {blocks} blocks changed by hand, not interleaved visits"


def _by_hand(question: Question) -> str:
    return f"; {by_hand_words(question.blocks)}" if question.blocks else ""


def format_change(ratio: float) -> str:
    """A speed ratio in words: 1.23 -> '23 % faster', 0.8 -> '20 % slower', 4.1 -> '4.1x faster'."""
    amount, direction = _change(ratio)
    return f"{amount} {direction}" if direction else amount


def _change(ratio: float) -> tuple[str, str]:
    if not ratio >= 0:
        raise ValueError(f"a speed ratio is >= 0, got {ratio!r}")
    if ratio == 1:
        return "no change", ""
    direction = "faster" if ratio > 1 else "slower"
    factor = ratio if ratio > 1 else (1 / ratio if ratio else math.inf)
    if factor > LARGEST_FACTOR_SHOWN:
        return f">{LARGEST_FACTOR_SHOWN:.0f}x", direction
    if factor >= TIMES_FROM:
        return format_factor(factor).strip(), direction
    # slower in percent of the speed lost: 0.8 is 20 % slower (not 25 %), as 1.25 is 25 % faster
    return format_percent(abs(ratio - 1) * 100), direction


def _ci_text(ci: tuple[float, float], alpha: float, paired: bool) -> str:
    low, high = ci
    if low == high:
        return "every round gave the same ratio" if paired else "no spread in the figures"
    label = f"{100 * (1 - alpha):g} % CI"
    (low_amount, low_direction), (high_amount, high_direction) = _change(low), _change(high)
    if low_direction == high_direction == "faster":
        return f"{label} {low_amount} to {high_amount} faster"
    if low_direction == high_direction == "slower":  # the smaller slowdown first, as in "10 % to 30 % slower"
        return f"{label} {high_amount} to {low_amount} slower"
    return f"{label} {format_change(low)} to {format_change(high)}"


def _exp(x: float) -> float:
    return math.inf if x > 709 else math.exp(x)  # math.exp raises OverflowError above ~709.78
