"""mining.serializers: report_reading is ReportDetailSerializer's representation, read in one
query (two with fix links)."""

import datetime as dt
import json

import pytest

from mining import selectors
from mining.models import BugReport
from mining.serializers import ReportDetailSerializer, report_reading
from tests.labeler.ui_factories import HOSTILE_BODY, report_with_fix
from tests.mining import factories

pytestmark = pytest.mark.django_db


def serialized(report_id: int) -> dict:
    """The reference: the serializer over the ORM's objects, as JSON."""
    return json.loads(
        json.dumps(ReportDetailSerializer(selectors.report_for_reading(report_id)).data)
    )


def rich_report() -> BugReport:
    report = factories.BugReportFactory(
        body=HOSTILE_BODY,
        labels=["type:bug", "ünïcode"],
        state="closed",
        state_reason="not_planned",
        milestone="2.1",
        reactions={"+1": 3, "total_count": 3},
        comment_count=2,
        created_at=dt.datetime(2022, 3, 1, 8, 30, 15, 123456, tzinfo=dt.UTC),
        is_performance_candidate=True,
        candidate_rules={"performance": ["keyword:slow"]},
        fix_hours=12.5,
        commenter_count=2,
    )
    factories.CommentFactory(
        report=report,
        github_id=2_345_678_901_234,  # as large as GitHub's comment ids are now
        body="Also on **2.1** <b onclick=x()>bold</b>",
        created_at=dt.datetime(2022, 3, 2, 9, 0, 0, 654321, tzinfo=dt.UTC),
        updated_at=dt.datetime(2022, 3, 3, 9, 0, tzinfo=dt.UTC),
    )
    factories.CommentFactory(
        report=report, created_at=dt.datetime(2022, 3, 1, 9, tzinfo=dt.UTC), updated_at=None
    )
    return report


def test_report_reading_is_the_serializers_representation_in_two_queries_with_fixes(
    django_assert_num_queries,
):
    report = rich_report()
    report_with_fix(report)

    with django_assert_num_queries(2):
        got = report_reading(report_id=report.pk)

    expected = serialized(report.pk)
    assert json.loads(json.dumps(got)) == expected
    assert list(got) == list(expected)
    assert "<script" not in got["body_html"] and "&lt;script&gt;" in got["body_html"]
    assert [c["github_id"] for c in got["comments"]][1] == 2_345_678_901_234
    assert len(got["fix_links"]) == 2


def test_report_reading_without_fixes_or_comments_is_one_query(django_assert_num_queries):
    report = factories.BugReportFactory(closed_at=None, updated_at=None, body="")

    with django_assert_num_queries(1):
        got = report_reading(report_id=report.pk)

    assert json.loads(json.dumps(got)) == serialized(report.pk)
    assert (got["comments"], got["fix_links"], got["closed_at"]) == ([], [], None)


def test_report_reading_of_no_report_says_which():
    with pytest.raises(BugReport.DoesNotExist, match="no report 999999"):
        report_reading(report_id=999_999)
