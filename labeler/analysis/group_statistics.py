"""Two groups of reports compared on one measure, and a group's share over time. Pure: no Django.

Plain numbers in, plain dicts out (ready for JSON), standard library only.

Why not scipy here (the product has it, with scikit-learn): the job is five formulas
(quartiles, the Mann-Whitney U test, Cliff's delta, monthly counts, the Cox-Stuart sign test),
each a few lines over a sort, and the one part that is more than a formula, the exact null
distribution of U, is a product of Gaussian binomial factors counted in integer arithmetic:
exact, where scipy's counts turn to floats once they pass 2**64, and fast (8 values beside
100,000 take a fraction of a second; scipy's quadratic recurrence takes about a minute for 8
beside 20,000). The tests check every function against scipy on many random inputs, ties
included.

Definitions:

- Quartiles and median: linear interpolation between order statistics at h = (n - 1) p
  (Hyndman & Fan type 7, R's default, numpy's default "linear"). Whiskers ("low", "high"):
  Tukey's, the most extreme values within 1.5 IQR of the box.
- Mann-Whitney U (Wilcoxon rank-sum), two-sided, as scipy.stats.mannwhitneyu(a, b) with its
  defaults: U is a's statistic (#a > b plus half #a == b); exact p when one group has at most
  8 values and no value is tied, else the normal approximation with tie and continuity
  correction.
- Cliff's delta: (#a > b - #a < b) / (n_a n_b), by binary search in the sorted b, so
  O(n log n). Magnitude after Romano et al. (2006): negligible < 0.147 <= small < 0.33 <=
  medium < 0.474 <= large, on |delta|.
- Cox-Stuart trend test (Cox & Stuart 1955): the first half of the series paired with the
  second half (the middle value left out when the length is odd), tied pairs dropped, and a
  two-sided binomial (sign) test with p = 1/2 on the increases.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import date
from itertools import accumulate
from operator import sub
from statistics import fmean

# Up to this size of the smaller group (and without ties) scipy's "auto" uses the exact test.
EXACT_MAX_SIZE = 8

MAGNITUDE_THRESHOLDS = ((0.147, "negligible"), (0.33, "small"), (0.474, "medium"))

DESCRIBE_KEYS = ("n", "median", "mean", "q1", "q3", "min", "max", "low", "high")


def _numbers(values: Iterable[float], where: str) -> list[float]:
    """The values as a list; a value that is not a number (None, NaN, text) is an error."""
    numbers = list(values)
    for index, value in enumerate(numbers):
        try:
            missing = math.isnan(value)
        except TypeError:
            missing = True
        if missing:
            raise ValueError(f"{where}, value {index}: {value!r} is not a number")
    return numbers


def _quantile(ordered: Sequence[float], p: float) -> float:
    h = (len(ordered) - 1) * p
    below = math.floor(h)
    if below + 1 == len(ordered):
        return float(ordered[below])
    lower, upper = ordered[below], ordered[below + 1]
    return float(lower + (h - below) * (upper - lower))


def describe(values: Sequence[float]) -> dict:
    """n, median, mean, quartiles, extremes and box-plot whiskers; numbers None when n = 0."""
    ordered = sorted(_numbers(values, "values"))
    if not ordered:
        return dict.fromkeys(DESCRIBE_KEYS) | {"n": 0}
    q1, q3 = _quantile(ordered, 0.25), _quantile(ordered, 0.75)
    reach = 1.5 * (q3 - q1)
    return {
        "n": len(ordered),
        "median": _quantile(ordered, 0.5),
        "mean": fmean(ordered),
        "q1": q1,
        "q3": q3,
        "min": float(ordered[0]),
        "max": float(ordered[-1]),
        "low": float(ordered[bisect_left(ordered, q1 - reach)]),
        "high": float(ordered[bisect_right(ordered, q3 + reach) - 1]),
    }


def _twice_u(a: Sequence[float], b: Sequence[float]) -> int:
    """2 U of a: for each a value, #b below it plus #b at or below it (an exact integer)."""
    ordered_b = sorted(b)
    return sum(bisect_left(ordered_b, x) + bisect_right(ordered_b, x) for x in a)


def _orderings_with_u_at_most(small: int, large: int, k: int) -> int:
    """How many of the C(small + large, small) orderings of two groups give U <= k.

    The counts of U are the coefficients of the Gaussian binomial coefficient
    prod_{i=1..small} (1 - q^(large + i)) / (1 - q^i); only those up to q^k are kept.
    """
    counts = [1] + [0] * k
    for i in range(1, small + 1):
        # Dividing by (1 - q^i) is a running sum along every residue class mod i.
        for start in range(min(i, k + 1)):
            counts[start::i] = accumulate(counts[start::i])
        shift = large + i
        if shift <= k:
            counts[shift:] = map(sub, counts[shift:], counts[: k + 1 - shift])
    return sum(counts)


def _normal_two_sided_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> dict:
    """Two-sided Mann-Whitney U test: {"u", "p_value", "method", "reason"}.

    "u" is a's U. When a group is empty, the numbers are None and "reason" says which group;
    otherwise "reason" is None. All values equal gives p = 1 (no rearrangement changes U).
    """
    a, b = _numbers(a, "group a"), _numbers(b, "group b")
    n_a, n_b = len(a), len(b)
    if not n_a or not n_b:
        empty = "a" if not n_a else "b"
        return {
            "u": None,
            "p_value": None,
            "method": None,
            "reason": f"group {empty} has no values",
        }
    twice_u = _twice_u(a, b)
    u = twice_u / 2
    tie_sizes = [size for size in Counter(a + b).values() if size > 1]
    if min(n_a, n_b) <= EXACT_MAX_SIZE and not tie_sizes:
        # Without ties U is an integer; the two tails are symmetric, so count the smaller one.
        k = min(twice_u, 2 * n_a * n_b - twice_u) // 2
        tail = _orderings_with_u_at_most(min(n_a, n_b), max(n_a, n_b), k)
        p = min(1.0, 2 * tail / math.comb(n_a + n_b, n_a))
        return {"u": u, "p_value": p, "method": "exact", "reason": None}
    n = n_a + n_b
    tie_term = sum(size**3 - size for size in tie_sizes)
    variance = n_a * n_b / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    if variance == 0:
        # All values are equal: every rearrangement of the groups gives this same U.
        return {"u": u, "p_value": 1.0, "method": "asymptotic", "reason": None}
    distance = u - n_a * n_b / 2
    # Continuity correction: half a unit towards the mean, never past it.
    distance -= math.copysign(0.5, distance) if distance else 0.0
    p = min(1.0, _normal_two_sided_p(distance / math.sqrt(variance)))
    return {"u": u, "p_value": p, "method": "asymptotic", "reason": None}


def cliffs_delta(a: Sequence[float], b: Sequence[float]) -> float | None:
    """(#a > b - #a < b) / (n_a n_b), from -1 (all a below b) to 1; None if a group is empty."""
    a, b = _numbers(a, "group a"), _numbers(b, "group b")
    if not a or not b:
        return None
    pairs = len(a) * len(b)
    return (_twice_u(a, b) - pairs) / pairs


def cliffs_magnitude(delta: float | None) -> str | None:
    """negligible, small, medium or large for |delta| (Romano et al. 2006); None for None."""
    if delta is None:
        return None
    for bound, name in MAGNITUDE_THRESHOLDS:
        if abs(delta) < bound:
            return name
    return "large"


def _present(values: Iterable[float | None], where: str) -> tuple[list[float], int]:
    """The values without the Nones (reports with no value), and how many Nones there were."""
    values = list(values)
    present = [value for value in values if value is not None]
    return _numbers(present, where), len(values) - len(present)


def compare_groups(a: Sequence[float | None], b: Sequence[float | None], *, measure: str) -> dict:
    """One row of the comparison: both groups described, the U test and Cliff's delta.

    None stands for a report without a value (no fix, no comment): it is left out, the
    group's "n" counts the values used and "missing" the reports left out. "notes" lists
    what could not be computed, and why.
    """
    present_a, missing_a = _present(a, f"{measure}, group a")
    present_b, missing_b = _present(b, f"{measure}, group b")
    test = mann_whitney(present_a, present_b)
    delta = cliffs_delta(present_a, present_b)
    notes = []
    if test["reason"] is not None:
        missing = "" if delta is not None else " and no Cliff's delta"
        notes.append(f"{measure}: no p-value{missing}: {test['reason']}")
    return {
        "measure": measure,
        "a": describe(present_a) | {"missing": missing_a},
        "b": describe(present_b) | {"missing": missing_b},
        "mann_whitney_u": test["u"],
        "p_value": test["p_value"],
        "method": test["method"],
        "cliffs_delta": delta,
        "magnitude": cliffs_magnitude(delta),
        "notes": notes,
    }


def _month(day: date) -> tuple[int, int]:
    return day.year, day.month


def monthly_series(dates_in_group: Sequence[date], dates_all: Sequence[date]) -> list[dict]:
    """Reports per calendar month: the group's count, the total and the group's share.

    Every month from the first to the last is listed, empty ones with zeros (share None when
    the month has no report at all). A datetime counts in its own month as given: convert
    aware datetimes to one time zone first. The group must be part of all the reports.
    """
    in_group = Counter(map(_month, dates_in_group))
    in_all = Counter(map(_month, dates_all))
    for year, month in sorted(in_group):
        if in_group[year, month] > in_all[year, month]:
            raise ValueError(
                f"month {year:04d}-{month:02d}: {in_group[year, month]} reports in the group "
                f"but {in_all[year, month]} in all; the group must be part of all the reports"
            )
    if not in_all:
        return []
    year, month = min(in_all)
    last = max(in_all)
    series = []
    while (year, month) <= last:
        count, total = in_group[year, month], in_all[year, month]
        series.append(
            {
                "month": f"{year:04d}-{month:02d}",
                "count": count,
                "total": total,
                "share": count / total if total else None,
            }
        )
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return series


def _sign_test_p(successes: int, trials: int) -> float:
    """Two-sided binomial test with p = 1/2: twice the smaller tail, at most 1 (exact)."""
    smaller = min(successes, trials - successes)
    tail = sum(math.comb(trials, i) for i in range(smaller + 1))
    return min(1.0, 2 * tail / 2**trials)


def cox_stuart(values: Sequence[float], *, alpha: float = 0.05) -> dict:
    """Cox-Stuart sign test for a trend in a series (e.g. monthly shares), two-sided.

    "n_pairs" counts the untied pairs the test uses, "ties" the pairs left out. "trend" is
    "increasing" or "decreasing" when p < alpha, else "none"; p is None (and "reason" says
    why) when no pair differs.
    """
    values = _numbers(values, "series")
    half = len(values) // 2
    later_start = len(values) - half
    increases = decreases = 0
    for earlier, later in zip(values[:half], values[later_start:], strict=True):
        increases += later > earlier
        decreases += later < earlier
    n_pairs = increases + decreases
    result = {
        "n_pairs": n_pairs,
        "ties": half - n_pairs,
        "increases": increases,
        "decreases": decreases,
        "p_value": None,
        "trend": "none",
        "reason": None,
    }
    if not n_pairs:
        result["reason"] = (
            "no pair of values differs" if half else "fewer than two values, so no pair"
        )
        return result
    p = _sign_test_p(increases, n_pairs)
    result["p_value"] = p
    if p < alpha:
        result["trend"] = "increasing" if increases > decreases else "decreasing"
    return result
