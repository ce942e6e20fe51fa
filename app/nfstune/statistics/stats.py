"""Statistics on repeated measurements: their summary, the t distribution, and Welch's test (which verdict.py uses
for two independent samples).

Values are one figure per repeat (MB/s, seconds, milliseconds), warm-up runs already discarded.

Choices, and why:
- The confidence interval is for the *mean*, with Student's t quantile, because that is what the comparison tests;
  the median is reported next to it as the robust figure to show.
- Independent samples are compared with Welch's t-test (unequal variances: two configurations rarely have the
  same spread). Quantiles and p-values come from scipy.stats.t (Welch's degrees of freedom are not whole
  numbers). Welch's t and df are computed here rather than by scipy.stats.ttest_ind, which warns ("catastrophic
  cancellation") on nearly equal values, a normal case for repeated measurements.
- verdict.py turns these into the verdicts a session shows (paired by round, corrected together).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CONFIDENCE = 0.95
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


def _t_distribution() -> Any:
    """scipy.stats.t, imported at the first verdict: scipy.stats takes 1-2 s to import on a busy machine, and the
    desktop's window, which imports this module for format_value and the verdicts' types, must not wait for it
    (issue 31; tests/ui/test_start_imports.py)."""
    from scipy import stats  # type: ignore[import-untyped]

    return stats.t


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with `df` (> 0, not necessarily whole) degrees of freedom."""
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(t):
        return 0.0
    return min(1.0, float(2 * _t_distribution().sf(abs(t), df)))


def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p (0 < p < 1)."""
    if not 0 < p < 1:
        raise ValueError(f"p must be between 0 and 1, got {p}")
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    return float(_t_distribution().ppf(p, df))


def t_quantiles(p: float, dfs: Sequence[float]) -> list[float]:
    """t_quantile(p, df) for each of `dfs`, in one call to scipy (which is slow per call, fast per element)."""
    if not 0 < p < 1:
        raise ValueError(f"p must be between 0 and 1, got {p}")
    if not all(df > 0 for df in dfs):
        raise ValueError(f"degrees of freedom must be positive, got {list(dfs)}")
    return [float(t) for t in _t_distribution().ppf(p, list(dfs))] if dfs else []


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


def format_value(value: float) -> str:
    """Three significant figures without an exponent: 25.1, 0.00123, 1234."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"
