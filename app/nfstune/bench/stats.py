"""Statistics on repeated measurements: summary, stop rule, and a two-configuration comparison in plain words.

Values are one figure per repeat (MB/s, seconds, milliseconds), warm-up runs already discarded.

Choices, and why:
- The confidence interval is for the *mean*, with Student's t quantile, because that is what the comparison tests;
  the median is reported next to it as the robust figure to show.
- Comparisons use Welch's t-test (unequal variances: two configurations rarely have the same spread). Quantiles
  and p-values come from scipy.stats.t (Welch's degrees of freedom are not whole numbers). Welch's t and df are
  computed here rather than by scipy.stats.ttest_ind, which warns ("catastrophic cancellation") on nearly equal
  values, a normal case for repeated measurements.
- verdict.py holds the session's paired comparisons (the verdicts); compare() below is the older unpaired phrasing.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats as _scipy_stats  # type: ignore[import-untyped]

CONFIDENCE = 0.95
ALPHA = 0.05
TIMES_FROM = 2.0  # from a factor of 2 up, "4.3x faster" reads better than "330 % faster"


@dataclass(frozen=True)
class Summary:
    values: tuple[float, ...]
    n: int
    median: float
    mean: float
    min: float
    max: float
    stdev: float  # sample standard deviation (n - 1); 0.0 for a single value
    cv_percent: float  # stdev / |mean| in percent; inf when the mean is 0 but the values differ
    ci_low: float | None  # 95 % confidence interval of the mean (t distribution); None below 2 values
    ci_high: float | None
    ci_of: str = "mean"


def summarize(values: Sequence[float]) -> Summary:
    data = _checked(values, "values")
    mean = statistics.fmean(data)
    stdev = statistics.stdev(data) if len(data) > 1 else 0.0
    ci_low = ci_high = None
    if len(data) > 1:
        half_width = t_quantile(1 - (1 - CONFIDENCE) / 2, len(data) - 1) * stdev / math.sqrt(len(data))
        ci_low, ci_high = mean - half_width, mean + half_width
    return Summary(
        values=data,
        n=len(data),
        median=statistics.median(data),
        mean=mean,
        min=min(data),
        max=max(data),
        stdev=stdev,
        cv_percent=_cv_percent(mean, stdev),
        ci_low=ci_low,
        ci_high=ci_high,
    )


def _cv_percent(mean: float, stdev: float) -> float:
    if stdev == 0:
        return 0.0
    return math.inf if mean == 0 else 100 * stdev / abs(mean)


def _checked(values: Sequence[float], what: str) -> tuple[float, ...]:
    data = tuple(float(v) for v in values)
    if not data:
        raise ValueError(f"{what}: no values")
    if not all(math.isfinite(v) for v in data):
        raise ValueError(f"{what}: not all values are finite: {data}")
    return data


def should_stop(values: Sequence[float], *, min_repeats: int, max_repeats: int, cv_target: float) -> tuple[bool, str]:
    """Whether to stop repeating: n >= min_repeats and CV <= cv_target (percent), or n >= max_repeats.

    `values` are the measured repeats with the warm-ups already discarded."""
    if not 1 <= min_repeats <= max_repeats:
        raise ValueError(f"need 1 <= min_repeats <= max_repeats, got {min_repeats} and {max_repeats}")
    n = len(values)
    if n == 0:
        return False, f"0 of at least {min_repeats} repeats done"
    cv = summarize(values).cv_percent
    if n >= min_repeats and cv <= cv_target:
        return True, f"stable: CV {cv:.1f} % <= {cv_target:g} % after {n} repeats"
    if n >= max_repeats:
        return (
            True,
            f"stopped at the maximum of {max_repeats} repeats: CV {cv:.1f} % is above the {cv_target:g} % target",
        )
    if n < min_repeats:
        return False, f"{n} of at least {min_repeats} repeats done"
    return False, f"CV {cv:.1f} % > {cv_target:g} % after {n} repeats: repeating (at most {max_repeats})"


# --- the t distribution (scipy.stats.t, wrapped so that the rest of nfstune sees plain floats) --------------------


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with `df` (> 0, not necessarily whole) degrees of freedom."""
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(t):
        return 0.0
    return min(1.0, float(2 * _scipy_stats.t.sf(abs(t), df)))


def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p (0 < p < 1)."""
    if not 0 < p < 1:
        raise ValueError(f"p must be between 0 and 1, got {p}")
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    return float(_scipy_stats.t.ppf(p, df))


def t_quantiles(p: float, dfs: Sequence[float]) -> list[float]:
    """t_quantile(p, df) for each of `dfs`, in one call to scipy (which is slow per call, fast per element)."""
    if not 0 < p < 1:
        raise ValueError(f"p must be between 0 and 1, got {p}")
    if not all(df > 0 for df in dfs):
        raise ValueError(f"degrees of freedom must be positive, got {list(dfs)}")
    return [float(t) for t in _scipy_stats.t.ppf(p, list(dfs))] if dfs else []


@dataclass(frozen=True)
class WelchTest:
    t: float
    df: float
    p_value: float


def welch_test(a: Sequence[float], b: Sequence[float]) -> WelchTest:
    """Welch's unequal-variance t-test of mean(a) == mean(b), two-sided. Each sample needs 2 or more values."""
    sa, sb = summarize(a), summarize(b)
    if sa.n < 2 or sb.n < 2:
        raise ValueError(f"Welch's test needs at least 2 values per sample, got {sa.n} and {sb.n}")
    va, vb = sa.stdev**2 / sa.n, sb.stdev**2 / sb.n
    difference = sa.mean - sb.mean
    if va + vb == 0:  # both samples constant: the difference (if any) is certain
        return WelchTest(
            0.0 if difference == 0 else math.copysign(math.inf, difference), math.inf, float(difference == 0)
        )
    t = difference / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (sa.n - 1) + vb**2 / (sb.n - 1))
    return WelchTest(t, df, t_two_sided_p(t, df))


# --- comparison in words ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    names: tuple[str, str]
    a: Summary
    b: Summary
    higher_is_better: bool
    relative_difference: float | None  # (mean B - mean A) / mean A, of the metric itself; None if mean A is 0
    speedup: float | None  # how many times faster B is than A (< 1: A is faster); None if undefined
    test: WelchTest | None  # None when a sample has fewer than 2 values
    significant: bool
    faster: str | None  # the name of the faster configuration when the difference is significant
    text: str


def compare(
    a_values: Sequence[float],
    b_values: Sequence[float],
    *,
    higher_is_better: bool,
    names: tuple[str, str] = ("A", "B"),
    unit: str = "",
    alpha: float = ALPHA,
) -> Comparison:
    """Compare B with A on one metric. Values must be >= 0 (throughput, seconds, latency).

    "Faster" is about speed: for a lower-is-better metric (seconds) B is 2x faster when it takes half the time.
    Figures are means, because Welch's test compares means."""
    sa, sb = summarize(a_values), summarize(b_values)
    if min(sa.min, sb.min) < 0:
        raise ValueError("compare() takes non-negative measurements")
    name_a, name_b = names
    relative = (sb.mean - sa.mean) / sa.mean if sa.mean else None
    better, worse = (sb.mean, sa.mean) if higher_is_better else (sa.mean, sb.mean)
    speedup = better / worse if worse else None
    if sa.n < 2 or sb.n < 2:
        text = f"not enough repeats to compare ({name_a} n={sa.n}, {name_b} n={sb.n})"
        return Comparison(names, sa, sb, higher_is_better, relative, speedup, None, False, None, text)
    test = welch_test(sa.values, sb.values)
    significant = test.p_value < alpha and sa.mean != sb.mean
    if not significant:
        suffix = f" {unit}" if unit else ""
        text = (
            f"no measurable difference ({name_a} {format_value(sa.mean)}{suffix}, "
            f"{name_b} {format_value(sb.mean)}{suffix}; {format_p(test.p_value)})"
        )
        return Comparison(names, sa, sb, higher_is_better, relative, speedup, test, False, None, text)
    b_wins = (sb.mean > sa.mean) == higher_is_better
    winner, loser = (name_b, name_a) if b_wins else (name_a, name_b)
    # computed from the two means directly (not as 1/speedup) so that swapping A and B gives the same figure
    high, low = max(sa.mean, sb.mean), min(sa.mean, sb.mean)
    factor = high / low if low else None
    text = f"{winner} is {format_factor(factor)}faster than {loser} (significant, {format_p(test.p_value)})"
    return Comparison(names, sa, sb, higher_is_better, relative, speedup, test, True, winner, text)


def format_factor(factor: float | None) -> str:
    """'4.3x ', '12 % ', '0.4 % ' (with the trailing space), or '' when no factor can be given."""
    if factor is None or math.isinf(factor):
        return ""
    if factor >= TIMES_FROM:
        return f"{factor:.1f}x " if factor < 10 else f"{factor:.0f}x "
    return format_percent((factor - 1) * 100) + " "


def format_percent(percent: float) -> str:
    """'12 %', '4.3 %', '<0.1 %' for a non-negative percentage."""
    if percent >= 10:
        return f"{percent:.0f} %"
    return f"{percent:.1f} %" if percent >= 0.05 else "<0.1 %"


def format_p(p: float) -> str:
    return "p<0.001" if p < 0.001 else f"p={p:.2g}"


def format_value(value: float) -> str:
    """Three significant figures without an exponent: 25.1, 0.00123, 1234."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"
