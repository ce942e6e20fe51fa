"""Statistics: summary and confidence interval, the t distribution (scipy), stop rule, Welch phrased for humans."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nfstune.statistics.stats import (
    format_value,
    summarize,
    t_quantile,
    t_two_sided_p,
    welch_test,
)


def test_summary_of_one_to_five() -> None:
    summary = summarize([3, 1, 5, 2, 4])
    assert (summary.n, summary.median, summary.mean, summary.min, summary.max) == (5, 3, 3, 1, 5)
    assert summary.stdev == pytest.approx(math.sqrt(2.5))  # sum of squares 10 over n-1 = 4
    assert summary.cv_percent == pytest.approx(100 * math.sqrt(2.5) / 3)  # 52.70 %
    # 3 +- t(0.975, 4) * s / sqrt(5) = 3 +- 2.776445 * 1.581139 / 2.236068 = 3 +- 1.963243
    assert summary.ci_of == "mean"
    assert summary.ci_low == pytest.approx(1.036757, abs=1e-6) and summary.ci_high == pytest.approx(4.963243, abs=1e-6)


def test_summary_of_one_value_and_of_nothing() -> None:
    one = summarize([42.0])
    assert (one.n, one.median, one.stdev, one.cv_percent, one.ci_low, one.ci_high) == (1, 42.0, 0.0, 0.0, None, None)
    with pytest.raises(ValueError, match="no values"):
        summarize([])
    with pytest.raises(ValueError, match="finite"):
        summarize([1.0, math.nan])
    assert summarize([0.0, 0.0]).cv_percent == 0.0 and summarize([-1.0, 1.0]).cv_percent == math.inf


# Student's t table, two-sided 95 % and 99 % (any statistics textbook, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2)
T_TABLE = [
    (0.975, 1, 12.706),
    (0.975, 2, 4.303),
    (0.975, 3, 3.182),
    (0.975, 4, 2.776),
    (0.975, 5, 2.571),
    (0.975, 10, 2.228),
    (0.975, 30, 2.042),
    (0.975, 120, 1.980),
    (0.995, 1, 63.657),
    (0.995, 10, 3.169),
    (0.95, 7, 1.895),
    (0.9995, 2, 31.599),
]


@pytest.mark.parametrize(("p", "df", "expected"), T_TABLE)
def test_t_quantiles_match_the_table(p: float, df: int, expected: float) -> None:
    assert round(t_quantile(p, df), 3) == expected
    assert round(t_quantile(1 - p, df), 3) == -expected
    assert t_quantile(0.975, 100000) == pytest.approx(1.95996, abs=1e-4)  # the normal quantile
    # and back: the table's t (rounded to 3 decimals) has the table's tail probability
    assert t_two_sided_p(expected, df) == pytest.approx(2 * (1 - p), rel=2e-3)


@pytest.mark.parametrize("t", [0.0, 0.1, 0.5, 1.0, 2.0, 4.303, 10.0, 100.0, 1e4])
def test_t_p_values_match_closed_forms(t: float) -> None:
    # df=1 is the Cauchy distribution; df=2 and df=4 have closed-form CDFs (Abramowitz & Stegun 26.7.3)
    assert t_two_sided_p(t, 1) == pytest.approx(1 - 2 * math.atan(t) / math.pi, rel=1e-10, abs=1e-15)
    assert t_two_sided_p(t, 2) == pytest.approx(1 - t / math.sqrt(2 + t * t), rel=1e-10, abs=1e-15)
    s = t / math.sqrt(4 + t * t)
    assert t_two_sided_p(t, 4) == pytest.approx(1 - s * (3 - s * s) / 2, rel=1e-9, abs=1e-15)


# Welch's t-test examples 1-3 of the Wikipedia article "Welch's t-test" (t, df, p given there to 2-3 figures; the
# full figures are what scipy.stats.ttest_ind(equal_var=False) prints for the same data)
WELCH_EXAMPLES = [
    (
        [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4],
        [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4],
        (-2.455356, 24.988529, 0.021378),
    ),
    (
        [17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8],
        [
            21.5,
            22.8,
            21.0,
            23.0,
            21.6,
            23.6,
            22.5,
            20.7,
            23.4,
            21.8,
            20.7,
            21.7,
            21.5,
            22.5,
            23.6,
            21.5,
            22.5,
            23.5,
            21.5,
            21.8,
        ],
        (-1.565434, 9.904741, 0.148842),
    ),
    (
        [19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0],
        [
            28.2,
            26.6,
            20.1,
            23.3,
            25.2,
            22.1,
            17.7,
            27.6,
            20.6,
            13.7,
            23.2,
            17.5,
            20.6,
            18.0,
            23.9,
            21.6,
            24.3,
            20.4,
            24.0,
            13.2,
        ],
        (-2.219241, 24.496223, 0.035972),
    ),
]


@pytest.mark.parametrize(("a", "b", "expected"), WELCH_EXAMPLES)
def test_welch_textbook_examples(a: list[float], b: list[float], expected: tuple[float, float, float]) -> None:
    test = welch_test(a, b)
    assert (test.t, test.df, test.p_value) == pytest.approx(expected, abs=1e-6)


def test_welch_by_hand() -> None:
    # means 2 and 5, both variances 1: t = -3 / sqrt(1/3 + 1/3) = -3.674235; df = (2/3)^2 / (2 * (1/3)^2 / 2) = 4
    test = welch_test([1, 2, 3], [4, 5, 6])
    assert test.t == pytest.approx(-3.674235, abs=1e-6) and test.df == pytest.approx(4)
    s = 3.674235 / math.sqrt(4 + 3.674235**2)
    assert test.p_value == pytest.approx(1 - s * (3 - s * s) / 2, abs=1e-6)  # 0.021312
    assert welch_test([5, 5], [5, 5]).p_value == 1.0 and welch_test([5, 5], [6, 6]).p_value == 0.0
    with pytest.raises(ValueError, match="at least 2 values"):
        welch_test([1], [2, 3])


def test_format_value_keeps_three_figures() -> None:
    assert [format_value(v) for v in (25.1, 0.00123, 1234.4, 117.7, 0.0, 9.87)] == [
        "25.1",
        "0.00123",
        "1234",
        "118",
        "0",
        "9.87",
    ]


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
measurement = st.floats(min_value=0.01, max_value=1e6, allow_nan=False)
samples = st.lists(measurement, min_size=2, max_size=12)


@given(st.lists(finite, min_size=1, max_size=20))
def test_cv_is_never_negative_and_the_interval_holds_the_mean(values: list[float]) -> None:
    summary = summarize(values)
    assert summary.cv_percent >= 0
    assert summary.min <= summary.median <= summary.max
    if summary.ci_low is not None and summary.ci_high is not None:
        assert summary.ci_low <= summary.mean <= summary.ci_high


@given(samples, st.floats(min_value=1e-3, max_value=1e3))
def test_scaling_keeps_the_cv(values: list[float], factor: float) -> None:
    assert summarize([v * factor for v in values]).cv_percent == pytest.approx(
        summarize(values).cv_percent, rel=1e-6, abs=1e-9
    )
