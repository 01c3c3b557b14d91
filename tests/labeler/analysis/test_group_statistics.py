"""Group comparison and trend statistics on plain data, checked against scipy and by hand."""

import datetime as dt
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from labeler.analysis.group_statistics import (
    cliffs_delta,
    cliffs_magnitude,
    compare_groups,
    cox_stuart,
    describe,
    mann_whitney,
    monthly_series,
)

ROOT = Path(__file__).resolve().parents[3]

# Deterministic examples: the same inputs on every run, nothing written to disk.
EXAMPLES = settings(max_examples=300, deadline=None, database=None, derandomize=True)


def scipy_p(a, b, **options):
    return float(stats.mannwhitneyu(a, b, alternative="two-sided", **options).pvalue)


def quadratic_delta(a, b):
    """Cliff's delta by its definition, over every pair."""
    above = sum(x > y for x in a for y in b)
    below = sum(x < y for x in a for y in b)
    return (above - below) / (len(a) * len(b))


def test_importing_loads_neither_django_nor_celery_nor_scipy():
    code = (
        "import sys, labeler.analysis.group_statistics\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'django', 'celery', 'rest_framework', 'numpy', 'scipy', 'config', 'mining', "
        "'taxonomy'} or (m.startswith('labeler.') and m not in {'labeler.analysis', "
        "'labeler.analysis.group_statistics'})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


# describe


def test_describe_by_hand():
    # Type 7 on 1, 2, 3, 4: h = 3 p, so q1 = 1 + 0.75 (2 - 1) and q3 = 3 + 0.25 (4 - 3).
    assert describe([4, 2, 1, 3]) == {
        "n": 4,
        "median": 2.5,
        "mean": 2.5,
        "q1": 1.75,
        "q3": 3.25,
        "min": 1.0,
        "max": 4.0,
        "low": 1.0,
        "high": 4.0,
    }
    # 100 lies beyond q3 + 1.5 IQR = 4 + 3 = 7, so the upper whisker stops at 4.
    summary = describe([1, 2, 3, 4, 100])
    assert (summary["q1"], summary["median"], summary["q3"]) == (2.0, 3.0, 4.0)
    assert (summary["low"], summary["high"], summary["max"]) == (1.0, 4.0, 100.0)
    assert summary["mean"] == 22.0


@pytest.mark.parametrize("seed", range(40))
def test_describe_matches_numpy(seed):
    rng = random.Random(seed)
    size = rng.randint(1, 60)
    values = (
        [rng.randint(0, 10) for _ in range(size)]
        if seed % 2
        else [rng.lognormvariate(0, 2) for _ in range(size)]
    )
    summary = describe(values)
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    assert summary["n"] == size
    assert summary["q1"] == pytest.approx(q1, rel=1e-12, abs=1e-12)
    assert summary["median"] == pytest.approx(np.median(values), rel=1e-12, abs=1e-12)
    assert summary["median"] == pytest.approx(median, rel=1e-12, abs=1e-12)
    assert summary["q3"] == pytest.approx(q3, rel=1e-12, abs=1e-12)
    assert summary["mean"] == pytest.approx(np.mean(values), rel=1e-12)
    assert (summary["min"], summary["max"]) == (min(values), max(values))
    reach = 1.5 * (q3 - q1)
    inside = [v for v in values if q1 - reach <= v <= q3 + reach]
    assert (summary["low"], summary["high"]) == (min(inside), max(inside))


def test_describe_of_nothing_has_no_numbers():
    summary = describe([])
    assert summary["n"] == 0
    assert set(summary) == {"n", "median", "mean", "q1", "q3", "min", "max", "low", "high"}
    assert all(value is None for key, value in summary.items() if key != "n")


def test_describe_of_one_value():
    assert describe([7]) == dict.fromkeys(
        ("median", "mean", "q1", "q3", "min", "max", "low", "high"), 7.0
    ) | {"n": 1}


@pytest.mark.parametrize("bad", [None, math.nan, "3"])
def test_describe_names_the_value_that_is_not_a_number(bad):
    with pytest.raises(ValueError, match=r"values, value 2: .* is not a number"):
        describe([1.0, 2.0, bad])


# mann_whitney


def test_mann_whitney_textbook_example():
    # Hollander, Wolfe & Chicken (2014), Nonparametric Statistical Methods, 3rd ed., Example
    # 4.1: permeability constants of the human chorioamnion at term (x) and at 12-26 weeks
    # (y). Published: rank sum of y W = 30, exact one-sided P = .127 (R's wilcox.test gives
    # W = 35 for the same data, its U of x).
    x = [0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46]
    y = [1.15, 0.88, 0.90, 0.74, 1.21]
    result = mann_whitney(x, y)
    assert result["method"] == "exact"
    assert result["u"] == 35
    rank_sum_y = len(x) * len(y) - result["u"] + len(y) * (len(y) + 1) / 2
    assert rank_sum_y == 30
    assert round(result["p_value"] / 2, 3) == 0.127
    assert result["reason"] is None


def test_mann_whitney_with_ties_by_hand():
    # Pooled: 1a 2a 2a 2b 3a 3b 4b 4b 5b; mid-ranks 1, 3, 3, 3, 5.5, 5.5, 7.5, 7.5, 9.
    # a's rank sum 12.5, so U = 12.5 - 4*5/2 = 2.5; mean 10; tie groups 3, 2, 2 give
    # sum(t^3 - t) = 36, variance = 20/12 * (10 - 36/72) = 15.8333; with continuity
    # z = (2.5 - 10 + 0.5) / sqrt(15.8333) = -1.759186, two-sided p = 0.078546.
    result = mann_whitney([1, 2, 2, 3], [2, 3, 4, 4, 5])
    assert result["u"] == 2.5
    assert result["method"] == "asymptotic"
    assert result["p_value"] == pytest.approx(0.0785459, abs=1e-7)
    assert result["p_value"] == pytest.approx(scipy_p([1, 2, 2, 3], [2, 3, 4, 4, 5]), rel=1e-12)


def random_groups(rng, kind):
    if kind == "small, no ties":
        return [rng.random() for _ in range(rng.randint(1, 8))], [
            rng.random() + 0.3 for _ in range(rng.randint(1, 20))
        ]
    if kind == "small, ties":
        return [rng.randint(0, 4) for _ in range(rng.randint(1, 8))], [
            rng.randint(1, 5) for _ in range(rng.randint(1, 8))
        ]
    if kind == "large, ties":
        return [rng.randint(0, 30) for _ in range(rng.randint(9, 300))], [
            rng.randint(3, 40) for _ in range(rng.randint(9, 300))
        ]
    if kind == "large, no ties":
        return [rng.gauss(0, 1) for _ in range(rng.randint(9, 300))], [
            rng.gauss(0.3, 1) for _ in range(rng.randint(9, 300))
        ]
    # One tiny group beside a big one: exact, with a long null distribution.
    return [rng.expovariate(1) for _ in range(rng.randint(1, 8))], [
        rng.expovariate(2) for _ in range(rng.randint(100, 2000))
    ]


@pytest.mark.parametrize(
    "kind",
    ["small, no ties", "small, ties", "large, ties", "large, no ties", "tiny beside big"],
)
def test_mann_whitney_matches_scipy(kind):
    rng = random.Random(kind)
    for _ in range(60 if kind == "tiny beside big" else 300):
        a, b = random_groups(rng, kind)
        result = mann_whitney(a, b)
        reference = stats.mannwhitneyu(a, b, alternative="two-sided")
        assert result["u"] == reference.statistic
        assert result["p_value"] == pytest.approx(float(reference.pvalue), rel=1e-9, abs=0)
        # The method chosen is the one scipy's "auto" chose: the other gives another p.
        assert result["p_value"] == pytest.approx(
            scipy_p(a, b, method=result["method"]), rel=1e-9, abs=0
        )


@EXAMPLES
@given(
    st.lists(st.integers(0, 6) | st.floats(-50, 50), min_size=1, max_size=14),
    st.lists(st.integers(0, 6) | st.floats(-50, 50), min_size=1, max_size=14),
)
def test_mann_whitney_matches_scipy_on_generated_groups(a, b):
    result = mann_whitney(a, b)
    assert result["u"] == stats.mannwhitneyu(a, b).statistic
    assert result["p_value"] == pytest.approx(scipy_p(a, b), rel=1e-9, abs=0)


def test_mann_whitney_chooses_the_method_as_scipy_auto_does():
    rng = random.Random(3)
    eight = [rng.random() for _ in range(8)]
    nine = [rng.random() for _ in range(9)]
    fifty = [rng.random() for _ in range(50)]
    assert mann_whitney(eight, fifty)["method"] == "exact"
    assert mann_whitney(fifty, eight)["method"] == "exact"
    assert mann_whitney(nine, fifty)["method"] == "asymptotic"
    assert mann_whitney([1, 2, 3], [3, 4, 5])["method"] == "asymptotic"


def test_mann_whitney_of_an_empty_group_says_which():
    assert mann_whitney([], [1, 2]) == {
        "u": None,
        "p_value": None,
        "method": None,
        "reason": "group a has no values",
    }
    assert mann_whitney([1, 2], [])["reason"] == "group b has no values"


def test_mann_whitney_when_every_value_is_equal():
    result = mann_whitney([2, 2, 2], [2, 2])
    assert result == {"u": 3.0, "p_value": 1.0, "method": "asymptotic", "reason": None}
    assert result["p_value"] == scipy_p([2, 2, 2], [2, 2])
    assert mann_whitney([5], [5])["p_value"] == scipy_p([5], [5]) == 1.0


def test_mann_whitney_of_one_value_each():
    assert mann_whitney([1], [2]) == {"u": 0.0, "p_value": 1.0, "method": "exact", "reason": None}


def test_mann_whitney_exact_on_a_tiny_group_beside_100000_is_symmetric():
    rng = random.Random(5)
    big = [rng.random() for _ in range(100_000)]
    # U near its mean: the longest tail to count.
    tiny = [0.05 + 0.9 * i / 7 for i in range(8)]
    result = mann_whitney(tiny, big)
    assert result["method"] == "exact"
    assert 0.05 < result["p_value"] <= 1.0
    swapped = mann_whitney(big, tiny)
    assert swapped["u"] == 8 * 100_000 - result["u"]
    assert swapped["p_value"] == result["p_value"]


def test_mann_whitney_names_the_group_and_value_that_is_not_a_number():
    with pytest.raises(ValueError, match=r"group b, value 1: nan is not a number"):
        mann_whitney([1.0], [2.0, math.nan])


# cliffs_delta and its magnitude


@pytest.mark.parametrize("seed", range(200))
def test_cliffs_delta_matches_its_definition(seed):
    rng = random.Random(seed)
    span = rng.choice([3, 10, 1000])
    a = [rng.randint(0, span) for _ in range(rng.randint(1, 25))]
    b = [rng.randint(0, span) / rng.choice([1, 2]) for _ in range(rng.randint(1, 25))]
    assert cliffs_delta(a, b) == pytest.approx(quadratic_delta(a, b), abs=1e-15)


def test_cliffs_delta_at_its_extremes():
    assert cliffs_delta([5, 6], [1, 2, 3]) == 1.0
    assert cliffs_delta([1, 2, 3], [5, 6]) == -1.0
    assert cliffs_delta([1, 2, 3], [3, 2, 1]) == 0.0
    assert cliffs_delta([4, 4], [4]) == 0.0
    assert cliffs_delta([], [1]) is None
    assert cliffs_delta([1], []) is None


def test_cliffs_delta_of_100000_reports_each_agrees_with_the_count_over_all_pairs():
    rng = random.Random(7)
    a = [rng.randint(0, 5000) for _ in range(100_000)]
    b = [rng.randint(100, 5100) for _ in range(100_000)]
    delta = cliffs_delta(a, b)
    # The same figure from scipy's U, a count over all 10^10 pairs.
    u = stats.mannwhitneyu(a, b).statistic
    assert delta == pytest.approx(2 * u / 10**10 - 1, abs=1e-12)


@pytest.mark.parametrize(
    ("delta", "magnitude"),
    [
        (0.0, "negligible"),
        (0.146999, "negligible"),
        (-0.146999, "negligible"),
        (0.147, "small"),
        (-0.147, "small"),
        (0.329999, "small"),
        (0.33, "medium"),
        (-0.33, "medium"),
        (0.473999, "medium"),
        (0.474, "large"),
        (-0.474, "large"),
        (1.0, "large"),
        (-1.0, "large"),
        (None, None),
    ],
)
def test_cliffs_magnitude_at_the_thresholds(delta, magnitude):
    assert cliffs_magnitude(delta) == magnitude


# compare_groups


def test_compare_groups_leaves_out_reports_without_a_value():
    a = [3.0, None, 1.0, 8.0, None, 2.5]
    b = [None, 9.0, 12.0, 4.0, 7.5, 10.0, 11.0]
    row = compare_groups(a, b, measure="fix_days")
    present_a, present_b = [3.0, 1.0, 8.0, 2.5], [9.0, 12.0, 4.0, 7.5, 10.0, 11.0]
    assert row["measure"] == "fix_days"
    assert row["a"] == describe(present_a) | {"missing": 2}
    assert row["b"] == describe(present_b) | {"missing": 1}
    assert (row["a"]["n"], row["b"]["n"]) == (4, 6)
    assert row["mann_whitney_u"] == stats.mannwhitneyu(present_a, present_b).statistic
    assert row["p_value"] == pytest.approx(scipy_p(present_a, present_b), rel=1e-9)
    assert row["method"] == "exact"
    assert row["cliffs_delta"] == quadratic_delta(present_a, present_b)
    assert row["magnitude"] == "large"
    assert row["notes"] == []
    json.dumps(row, allow_nan=False)


def test_compare_groups_when_one_group_has_no_values():
    row = compare_groups([None, None], [1, 2, 3], measure="first_comment_hours")
    assert row["a"]["n"] == 0 and row["a"]["missing"] == 2 and row["a"]["median"] is None
    assert row["b"]["n"] == 3
    assert row["mann_whitney_u"] is None and row["p_value"] is None
    assert row["cliffs_delta"] is None and row["magnitude"] is None
    assert row["notes"] == [
        "first_comment_hours: no p-value and no Cliff's delta: group a has no values"
    ]
    json.dumps(row, allow_nan=False)


def test_compare_groups_names_the_measure_group_and_value_that_is_not_a_number():
    with pytest.raises(ValueError, match=r"fix_size, group b, value 1: nan is not a number"):
        compare_groups([1], [None, 2.0, math.nan], measure="fix_size")


# monthly_series


def test_monthly_series_fills_every_month_across_a_year_end():
    utc = dt.UTC
    dates_all = [
        dt.datetime(2023, 11, 3, tzinfo=utc),
        dt.datetime(2023, 11, 30, 23, 59, tzinfo=utc),
        dt.datetime(2023, 11, 12, tzinfo=utc),
        dt.datetime(2024, 2, 1, tzinfo=utc),
        dt.datetime(2024, 2, 29, tzinfo=utc),
    ]
    group = [dates_all[0], dates_all[3], dates_all[4]]
    assert monthly_series(group, dates_all) == [
        {"month": "2023-11", "count": 1, "total": 3, "share": 1 / 3},
        {"month": "2023-12", "count": 0, "total": 0, "share": None},
        {"month": "2024-01", "count": 0, "total": 0, "share": None},
        {"month": "2024-02", "count": 2, "total": 2, "share": 1.0},
    ]


def test_monthly_series_takes_dates_and_a_group_with_none_in_a_month():
    dates_all = [dt.date(2024, 5, 31), dt.date(2024, 6, 1), dt.date(2024, 6, 2)]
    assert monthly_series([dt.date(2024, 6, 2)], dates_all) == [
        {"month": "2024-05", "count": 0, "total": 1, "share": 0.0},
        {"month": "2024-06", "count": 1, "total": 2, "share": 0.5},
    ]
    assert monthly_series([], dates_all)[1] == {
        "month": "2024-06",
        "count": 0,
        "total": 2,
        "share": 0.0,
    }


def test_monthly_series_of_nothing_is_empty():
    assert monthly_series([], []) == []


def test_monthly_series_refuses_a_group_larger_than_all_reports():
    with pytest.raises(ValueError, match=r"month 2024-07: 2 reports in the group but 1 in all"):
        monthly_series([dt.date(2024, 7, 1), dt.date(2024, 7, 2)], [dt.date(2024, 7, 1)])


# cox_stuart


def test_cox_stuart_by_hand():
    # Twelve rising values: six pairs, all increases, p = 2 / 2^6 = 0.03125.
    rising = cox_stuart(list(range(12)))
    assert rising == {
        "n_pairs": 6,
        "ties": 0,
        "increases": 6,
        "decreases": 0,
        "p_value": 0.03125,
        "trend": "increasing",
        "reason": None,
    }
    falling = cox_stuart(list(range(12, 0, -1)))
    assert (falling["decreases"], falling["p_value"], falling["trend"]) == (
        6,
        0.03125,
        "decreasing",
    )
    # Ten values: five pairs, p = 2 / 32 = 0.0625, not below 0.05.
    assert cox_stuart(list(range(10)))["p_value"] == 0.0625
    assert cox_stuart(list(range(10)))["trend"] == "none"
    assert cox_stuart(list(range(10)), alpha=0.1)["trend"] == "increasing"


def test_cox_stuart_leaves_out_the_middle_value_and_tied_pairs():
    # Pairs (1, 2) and (5, 5): the middle 100 is not used, the tied pair is dropped.
    result = cox_stuart([1, 5, 100, 2, 5])
    assert (result["n_pairs"], result["ties"], result["increases"]) == (1, 1, 1)
    assert result["p_value"] == 1.0


@pytest.mark.parametrize("seed", range(200))
def test_cox_stuart_matches_scipy_binomtest(seed):
    rng = random.Random(seed)
    drift = rng.choice([-0.2, 0.0, 0.3])
    series = [round(drift * i + rng.gauss(0, 2)) for i in range(rng.randint(2, 120))]
    result = cox_stuart(series)
    half = len(series) // 2
    pairs = list(zip(series[:half], series[len(series) - half :], strict=True))
    increases = sum(later > earlier for earlier, later in pairs)
    decreases = sum(later < earlier for earlier, later in pairs)
    assert (result["increases"], result["decreases"]) == (increases, decreases)
    if increases + decreases == 0:
        assert result["p_value"] is None
        return
    reference = stats.binomtest(increases, increases + decreases, 0.5).pvalue
    assert result["p_value"] == pytest.approx(reference, rel=1e-9, abs=0)


@pytest.mark.parametrize(
    ("series", "reason"),
    [
        ([], "fewer than two values, so no pair"),
        ([0.4], "fewer than two values, so no pair"),
        ([3, 3, 3, 3], "no pair of values differs"),
    ],
)
def test_cox_stuart_without_a_differing_pair(series, reason):
    result = cox_stuart(series)
    assert (result["p_value"], result["trend"], result["reason"]) == (None, "none", reason)
