"""Two groups of reports compared on the measures, and their monthly shares: a worked example
by hand, the statistics module on the same data, and scipy."""

import datetime as dt
import random

import numpy as np
import pytest
from scipy import stats

from labeler.analysis.comparison import comparison_json, reports_compare, reports_trend
from labeler.analysis.group_statistics import compare_groups, cox_stuart
from labeler.analysis.groups import report_group, report_groups
from mining.selectors import REPORT_MEASURES
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db

MEASURE_KEYS = [
    "time_to_fix_days",
    "fix_size_lines",
    "time_to_first_comment_hours",
    "comments",
    "commenters",
    "participants",
]
GROUP_KEYS = {"n", "median", "mean", "q1", "q3"}
ROW_KEYS = {"measure", "a", "b", "mann_whitney_u", "p_value", "cliffs_delta", "magnitude"}


def report(repository, **fields):
    return BugReportFactory(repository=RepositoryFactory(full_name=repository), **fields)


@pytest.fixture
def worked_example():
    """a: three fixes of 1, 2, 3 lines; b: four of 4 to 7 lines and one report without a fix."""
    for size, days in ((1, 1), (2, 2), (3, 3)):
        report("octo/a", has_fix=True, fix_size=size, fix_hours=24.0 * days, comment_count=1)
    for size, days in ((4, 1), (5, 2), (6, 3), (7, 4)):
        report("octo/b", has_fix=True, fix_size=size, fix_hours=24.0 * days, comment_count=1)
    report("octo/b", fix_size=None, fix_hours=None, state="open", closed_at=None, comment_count=1)


def compare(a, b):
    first, second = report_groups(queries={"a": a, "b": b})
    return reports_compare(a=first, b=second)


def test_the_worked_example_by_hand(worked_example):
    result = comparison_json(compare("repository=octo/a", "repository=octo/b"))

    assert set(result) == {"a", "b", "measures"}
    assert result["a"] == {"query": "repository=octo/a", "n": 3}
    assert result["b"] == {"query": "repository=octo/b", "n": 5}
    assert [row["measure"] for row in result["measures"]] == MEASURE_KEYS
    for row in result["measures"]:
        assert set(row) == ROW_KEYS
        assert set(row["a"]) == set(row["b"]) == GROUP_KEYS
    size = result["measures"][1]
    # Every a below every b: U = 0; with 3 and 4 values and no tie the exact p is twice the
    # one ordering of 7 in C(7, 3) = 35 that puts the three lowest in a: 2/35.
    assert size["a"] == {"n": 3, "median": 2.0, "mean": 2.0, "q1": 1.5, "q3": 2.5}
    # b's report without a fix is left out of the measure, and its n says so.
    assert size["b"] == {"n": 4, "median": 5.5, "mean": 5.5, "q1": 4.75, "q3": 6.25}
    assert size["mann_whitney_u"] == 0.0
    assert size["p_value"] == pytest.approx(2 / 35)
    assert size["cliffs_delta"] == -1.0 and size["magnitude"] == "large"
    days = result["measures"][0]
    # 1, 2, 3 days against 1, 2, 3, 4: a > b in 3 pairs, a < b in 6, ties in 3.
    assert days["a"]["median"] == 2.0 and days["b"]["median"] == 2.5
    assert days["mann_whitney_u"] == 4.5
    assert days["cliffs_delta"] == pytest.approx((3 - 6) / 12)
    assert days["magnitude"] == "small"
    comments = result["measures"][3]
    assert comments["a"]["n"] == 3 and comments["b"]["n"] == 5
    assert comments["cliffs_delta"] == 0.0 and comments["p_value"] == 1.0
    # No report has a first comment: nothing to test.
    first_comment = result["measures"][2]
    assert first_comment["a"]["n"] == first_comment["b"]["n"] == 0
    assert first_comment["p_value"] is None and first_comment["magnitude"] is None


@pytest.fixture
def random_reports():
    rng = random.Random(11)
    for repository, scale in (("octo/fast", 10), ("octo/slow", 25)):
        for _ in range(60):
            fixed = rng.random() < 0.8
            report(
                repository,
                has_fix=fixed,
                fix_size=rng.randint(1, 20 * scale) if fixed else None,
                fix_hours=rng.expovariate(1 / (scale * 24)),
                first_comment_hours=rng.choice([None, rng.expovariate(1 / scale)]),
                comment_count=rng.randint(0, scale),
                commenter_count=rng.randint(0, 5),
                participant_count=rng.randint(1, 6),
            )


def measure_values(measure, repository):
    from mining.models import BugReport

    column = BugReport.objects.filter(repository__full_name=repository).values_list(
        measure.field, flat=True
    )
    return [None if value is None else value / measure.per for value in column]


def test_every_measure_is_the_statistics_module_on_the_same_values_and_agrees_with_scipy(
    random_reports,
):
    result = compare("repository=octo/fast", "repository=octo/slow")

    for measure, row in zip(REPORT_MEASURES, result["measures"], strict=True):
        fast, slow = measure_values(measure, "octo/fast"), measure_values(measure, "octo/slow")
        expected = compare_groups(fast, slow, measure=measure.key)
        assert row == expected | {"label": measure.label}
        present_fast = [v for v in fast if v is not None]
        present_slow = [v for v in slow if v is not None]
        scipy_test = stats.mannwhitneyu(present_fast, present_slow, alternative="two-sided")
        assert row["mann_whitney_u"] == pytest.approx(scipy_test.statistic)
        assert row["p_value"] == pytest.approx(scipy_test.pvalue, rel=1e-9)
        assert row["a"]["median"] == pytest.approx(float(np.median(present_fast)))
        assert row["b"]["q1"] == pytest.approx(float(np.quantile(present_slow, 0.25)))
    assert result["measures"][0]["a"]["n"] == 60  # every report is closed
    assert result["measures"][1]["a"]["missing"] > 0  # some have no fix


def test_a_comparison_reads_each_group_in_one_query(random_reports, django_assert_num_queries):
    a, b = report_groups(queries={"a": "repository=octo/fast", "b": "has_fix=true"})

    with django_assert_num_queries(2):
        reports_compare(a=a, b=b)


def test_monthly_shares_of_groups_within_a_base_and_their_trend():
    def opened(year, month, repository, candidate=False):
        report(
            repository,
            created_at=dt.datetime(year, month, 3, tzinfo=dt.UTC),
            is_performance_candidate=candidate,
        )

    # octo/x: 2 reports a month from January to June 2022, performance candidates rising.
    for month, candidates in zip(range(1, 7), (0, 0, 1, 1, 2, 2), strict=True):
        for number in range(2):
            opened(2022, month, "octo/x", candidate=number < candidates)
    opened(2021, 6, "octo/other", candidate=True)  # outside the base

    base = report_group(name="of", query="repository=octo/x")
    group = report_group(name="perf", query="candidate=performance", within=base.reports)
    trend = reports_trend(groups=[group], base=base.reports)

    assert trend["months"] == [f"2022-0{m}" for m in range(1, 7)]
    assert trend["totals"] == [2] * 6
    (perf,) = trend["groups"]
    assert perf["name"] == "perf" and perf["query"] == "candidate=performance"
    assert perf["counts"] == [0, 0, 1, 1, 2, 2]
    assert perf["shares"] == [0, 0, 0.5, 0.5, 1, 1]
    # Pairs (Jan, Apr), (Feb, May), (Mar, Jun): three rises, p = 2 / 2**3.
    assert perf["shares_trend"] == cox_stuart([0, 0, 0.5, 0.5, 1, 1])
    assert perf["shares_trend"]["increases"] == 3 and perf["shares_trend"]["p_value"] == 0.25
    assert perf["counts_trend"] == cox_stuart([0, 0, 1, 1, 2, 2])
    assert stats.binomtest(3, 3).pvalue == pytest.approx(perf["shares_trend"]["p_value"])


def test_a_month_without_any_report_has_no_share_and_is_left_out_of_its_test():
    for month in (1, 3, 4):
        report("octo/x", created_at=dt.datetime(2022, month, 3, tzinfo=dt.UTC), has_fix=True)

    base = report_group(name="of", query="")
    group = report_group(name="fixed", query="has_fix=true", within=base.reports)
    trend = reports_trend(groups=[group], base=base.reports)

    assert trend["totals"] == [1, 0, 1, 1]
    assert trend["groups"][0]["shares"] == [1.0, None, 1.0, 1.0]
    assert trend["groups"][0]["shares_trend"] == cox_stuart([1.0, 1.0, 1.0])
