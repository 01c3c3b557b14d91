"""Two groups of reports compared on the mining measures, and groups' monthly shares.

`reports_compare` gives, per measure of mining.selectors.REPORT_MEASURES, both groups
described and the Mann-Whitney U test with Cliff's delta (labeler.analysis.group_statistics);
`comparison_json` is its public form, the one the API and `compare_reports --json` answer:

    {"a": {"query": QUERY, "n": N}, "b": {...},
     "measures": [{"measure": KEY, "a": {"n", "median", "mean", "q1", "q3"}, "b": {...},
                   "mann_whitney_u": U, "p_value": P, "cliffs_delta": D, "magnitude": M}]}

A report without a value for a measure (no fix, no comment) is left out of that measure,
so a measure's n may be less than its group's.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import QuerySet

from labeler.analysis.group_statistics import compare_groups, cox_stuart, monthly_series
from labeler.analysis.groups import ReportGroup
from mining.models import BugReport
from mining.selectors import REPORT_MEASURES, report_created_dates, report_measure_values

GROUP_STATISTICS = ("n", "median", "mean", "q1", "q3")
TEST_KEYS = ("mann_whitney_u", "p_value", "cliffs_delta", "magnitude")
MEASURE_LABELS = {measure.key: measure.label for measure in REPORT_MEASURES}


def reports_compare(*, a: ReportGroup, b: ReportGroup) -> dict:
    """Both groups' sizes and, per measure, labelled rows of compare_groups (with the whiskers,
    extremes, missing counts and notes the page shows)."""
    values_a = report_measure_values(reports=a.reports)
    values_b = report_measure_values(reports=b.reports)
    first = REPORT_MEASURES[0].key
    return {
        "a": {"query": a.query, "n": len(values_a[first])},
        "b": {"query": b.query, "n": len(values_b[first])},
        "measures": [
            compare_groups(values_a[measure.key], values_b[measure.key], measure=measure.key)
            | {"label": measure.label}
            for measure in REPORT_MEASURES
        ],
    }


def comparison_json(comparison: dict) -> dict:
    """The comparison in its public form (the keys in this module's docstring, no more)."""
    return {
        "a": comparison["a"],
        "b": comparison["b"],
        "measures": [
            {
                "measure": row["measure"],
                "a": {key: row["a"][key] for key in GROUP_STATISTICS},
                "b": {key: row["b"][key] for key in GROUP_STATISTICS},
                **{key: row[key] for key in TEST_KEYS},
            }
            for row in comparison["measures"]
        ],
    }


def reports_trend(*, groups: Sequence[ReportGroup], base: QuerySet[BugReport]) -> dict:
    """Reports opened per month (UTC): every group's count and share of `base`, which holds
    every group, from base's first month to its last, and the Cox-Stuart test for a trend in
    each group's counts and in its shares (months without any report left out of the shares).

    {"months": ["YYYY-MM", ...], "totals": [...], "groups": [{"name", "query", "counts",
    "shares", "counts_trend", "shares_trend"}]}
    """
    every = report_created_dates(reports=base)
    months, totals, rows = [], [], []
    for group in groups:
        series = monthly_series(report_created_dates(reports=group.reports), every)
        months = [month["month"] for month in series]
        totals = [month["total"] for month in series]
        counts = [month["count"] for month in series]
        shares = [month["share"] for month in series]
        rows.append(
            {
                "name": group.name,
                "query": group.query,
                "counts": counts,
                "shares": shares,
                "counts_trend": cox_stuart(counts),
                "shares_trend": cox_stuart([share for share in shares if share is not None]),
            }
        )
    return {"months": months, "totals": totals, "groups": rows}
