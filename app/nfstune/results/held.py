"""Whether an applied recommendation held: each workload behind it measured again on the applied settings, compared
with what its session measured for the configuration it recommended. Pure.

The session predicted a gain g (the recommended configuration against its baseline, as a speed ratio above 1). The
check's figures come from another time than the session's, so the comparison is unpaired: Welch's interval on the
log figures (statistics/verdict.judge with paired=False), the workloads checked one family (Holm), as every other
comparison nfstune makes. It is decided against the geometric midpoint between the two levels the session saw, the
baseline's (no gain) and the recommended one's: held when the whole interval of now/then lies above that midpoint
(1/sqrt(g) of the recommended level), did not hold when it lies below it, else not settled. A difference of the
predicted size is then half of log g away from the line on either side, which is what the rounds are chosen for
(rounds_for). A workload whose gain was not itself an effect in the session has nothing to check."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from nfstune.statistics.stats import format_value, t_quantile
from nfstune.statistics.verdict import Question, format_change, judge
from nfstune.words import plural

Word = Literal["held", "did not hold", "not settled", "nothing to check"]
ALPHA = 0.05
MOST_ROUNDS = 30  # beyond this a check is not a practical way to settle it (verdict.MOST_ROUNDS_ADVISED)


@dataclass(frozen=True)
class Then:
    """What the session measured for one workload behind its recommendation."""

    recipe: str
    workload: str
    label: str  # the configuration it recommended
    baseline_label: str
    unit: str
    higher_is_better: bool
    recommended: Mapping[int, float]  # round -> the recommended configuration's figure
    baseline: Mapping[int, float]  # round -> the baseline's
    verdict: str  # the session's verdict on recommended against baseline ("faster", "not settled", ...)
    gain: float | None  # its speed ratio (above 1: faster); None below two rounds

    @property
    def checkable(self) -> bool:
        """A gain that was an effect in the session, with figures enough to compare with."""
        return self.verdict == "faster" and self.gain is not None and self.gain > 1 and len(self.recommended) >= 2

    @property
    def midpoint(self) -> float:
        """The line the check decides against, as a speed ratio now/then: halfway (geometrically) from the
        recommended level down to the baseline's."""
        assert self.gain is not None
        return 1 / math.sqrt(self.gain)


@dataclass(frozen=True)
class Held:
    workload: str
    word: Word
    text: str  # one sentence, the interval and what it was decided against
    ratio: float | None = None  # speed now against then (above 1: faster now)
    ci: tuple[float, float] | None = None  # of that ratio, Holm-corrected, unpaired
    gain: float | None = None  # what the session predicted
    midpoint: float | None = None
    more_rounds: int | None = None  # "not settled": the check's rounds that would settle it (None: none would)
    then_level: float | None = None  # geometric means in the workload's unit
    now_level: float | None = None
    baseline_level: float | None = None

    @property
    def slower(self) -> bool:
        """Measured at the baseline's level or below it: the change bought nothing, or cost."""
        return (
            self.word == "did not hold"
            and self.ratio is not None
            and self.gain is not None
            and (self.ratio <= 1 / self.gain)
        )


@dataclass(frozen=True)
class CheckOutcome:
    word: Word  # the check's headline
    workloads: tuple[Held, ...]
    family: int  # workloads decided together (Holm)

    @property
    def slower(self) -> bool:
        return any(h.slower for h in self.workloads)

    @property
    def headline(self) -> str:
        """The word, with how many workloads said what when they differ: "not settled (1 held, 1 not settled)"."""
        counts = {w: sum(h.word == w for h in self.workloads) for w in ("held", "did not hold", "not settled")}
        said = ", ".join(f"{n} {w}" for w, n in counts.items() if n)
        return f"{self.word} ({said})" if sum(1 for n in counts.values() if n) > 1 else self.word


def geometric_mean(values: Sequence[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def decide(thens: Sequence[Then], now: Mapping[str, Sequence[float]], alpha: float = ALPHA) -> CheckOutcome:
    """`now`: workload -> the check's figures (warm-ups left out). The checkable workloads with two figures or
    more are one family."""
    asked: list[tuple[Then, Question]] = []
    found: dict[str, Held] = {}
    for then in thens:
        figures = list(now.get(then.workload, ()))
        if not then.checkable:
            found[then.workload] = Held(
                then.workload,
                "nothing to check",
                f"{then.workload}: nothing to check: the session measured no gain for it ({then.verdict})",
                gain=then.gain,
            )
        elif len(figures) < 2:
            found[then.workload] = Held(
                then.workload, "not settled", f"{then.workload}: fewer than two figures measured now", gain=then.gain
            )
        else:
            m = then.midpoint
            # the session's figures moved to the midpoint's level: the test of "now = midpoint" is judge's "1"
            line = {r: v * m if then.higher_is_better else v / m for r, v in then.recommended.items()}
            question = Question(
                (then.recipe, then.workload, then.label),
                baseline=line,
                other=dict(enumerate(figures, 1)),
                higher_is_better=then.higher_is_better,
                names=(f"the line halfway to session's baseline ({then.workload})", "now"),
                margin_percent=0.0,
                paired=False,
            )
            asked.append((then, question))
    verdicts = judge([q for _, q in asked], alpha) if asked else []
    for (then, _q), verdict in zip(asked, verdicts, strict=True):
        found[then.workload] = _held(
            then, list(now[then.workload]), verdict.kind, verdict.ratio, verdict.ci, len(asked), alpha
        )
    ordered = tuple(found[t.workload] for t in thens)
    return CheckOutcome(_headline(ordered), ordered, len(asked))


def _held(
    then: Then,
    figures: list[float],
    kind: str,
    ratio: float | None,
    ci: tuple[float, float] | None,
    family: int,
    alpha: float,
) -> Held:
    m, gain = then.midpoint, then.gain
    assert gain is not None
    now_ratio = ratio * m if ratio is not None else None
    now_ci = (ci[0] * m, ci[1] * m) if ci is not None else None
    word: Word = "held" if kind == "faster" else "did not hold" if kind == "slower" else "not settled"
    levels = {
        "then_level": geometric_mean(list(then.recommended.values())),
        "now_level": geometric_mean(figures),
        "baseline_level": geometric_mean(list(then.baseline.values())) if len(then.baseline) else None,
    }
    corrected = f", corrected for {family} workloads" if family > 1 else ""
    interval = (
        f"{format_value(now_ci[0])}-{format_value(now_ci[1])}x the speed of then"
        if now_ci is not None
        else "no interval"
    )
    said = (
        f"{then.workload}: {levels['now_level']:.3g} {then.unit} now against {levels['then_level']:.3g} then "
        f"({interval}, {100 * (1 - alpha):.0f} % unpaired interval, from two times{corrected}); "
        f"the session predicted {format_change(gain)} than its baseline, so it holds above "
        f"{format_value(m)}x (halfway to no gain)"
    )
    more = None
    if word == "not settled":
        more = more_rounds(then, figures, alpha / family)
        said += ": " + (
            f"about {more} more {plural(more, 'round')} of the check would settle it"
            if more is not None
            else "more rounds of the check alone would not settle it (the session's own figures spread too much)"
        )
    else:
        said += f": {word}"
    return Held(then.workload, word, said, now_ratio, now_ci, gain, m, more, **levels)


def _headline(found: Sequence[Held]) -> Word:
    words = {h.word for h in found}
    for word in ("did not hold", "not settled", "held"):
        if word in words:
            return word
    return "nothing to check"


def _logs(values: Sequence[float]) -> list[float]:
    return [math.log(v) for v in values]


def _half_width(then_logs: Sequence[float], now_var: float, rounds: int, level: float) -> float:
    """Welch's half-width on log figures with `rounds` figures now of variance `now_var`."""
    var_then = statistics.variance(then_logs) / len(then_logs)
    var_now = now_var / rounds
    total = var_then + var_now
    if total == 0:
        return 0.0
    df = total**2 / (var_then**2 / (len(then_logs) - 1) + var_now**2 / max(rounds - 1, 1))
    return t_quantile(1 - level / 2, max(df, 1.0)) * math.sqrt(total)


def rounds_for(then: Then, budget_rounds: int, family: int, alpha: float = ALPHA) -> int | None:
    """The fewest rounds (at least 3, at most `budget_rounds`) whose interval, if now spreads as then did, settles a
    difference of the predicted size: half of log g from the line, at the family's strictest Holm level. None: the
    budget cannot (the caller says so and runs the budget)."""
    if not then.checkable:
        return None
    logs = _logs(list(then.recommended.values()))
    distance = math.log(then.gain or 1.0) / 2
    for rounds in range(3, max(budget_rounds, 3) + 1):
        if _half_width(logs, statistics.variance(logs), rounds, alpha / max(family, 1)) < distance:
            return rounds
    return None


def more_rounds(then: Then, figures: Sequence[float], level: float) -> int | None:
    """Rounds more than `figures` that would settle the comparison with the spread seen so far (None: none up to
    MOST_ROUNDS would)."""
    then_logs, now_logs = _logs(list(then.recommended.values())), _logs(figures)
    now_mean = statistics.fmean(now_logs)
    line = statistics.fmean(then_logs) + (
        -math.log(then.gain or 1.0) / 2 if then.higher_is_better else math.log(then.gain or 1.0) / 2
    )
    distance = abs(now_mean - line)
    now_var = statistics.variance(now_logs)
    for rounds in range(len(figures) + 1, MOST_ROUNDS + 1):
        if _half_width(then_logs, now_var, rounds, level) < distance:
            return rounds - len(figures)
    return None
