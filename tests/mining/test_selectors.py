import datetime as dt

import pytest

from mining import selectors
from mining.models import BugReport
from tests.mining import factories

pytestmark = pytest.mark.django_db


def test_report_for_labelling_gives_plain_values_and_comments_oldest_first_in_one_query(
    django_assert_num_queries,
):
    report = factories.BugReportFactory(labels=["perf", "ünïcode"], author_login="alice")
    t0 = dt.datetime(2022, 2, 1, 9, 0, tzinfo=dt.UTC)
    later = factories.CommentFactory(report=report, created_at=t0 + dt.timedelta(hours=1))
    earlier = factories.CommentFactory(report=report, created_at=t0)
    factories.BugReportFactory(repository=report.repository)  # another report's comments
    factories.CommentFactory()

    with django_assert_num_queries(1):
        got = selectors.report_for_labelling(report_id=report.pk)

    assert got["id"] == report.pk and got["repository"] == report.repository.full_name
    assert got["labels"] == ["perf", "ünïcode"] and got["author_login"] == "alice"
    assert [c["body"] for c in got["comments"]] == [earlier.body, later.body]
    assert got["comments"][0]["created_at"] == t0
    assert "raw" not in got
    with pytest.raises(BugReport.DoesNotExist):
        selectors.report_for_labelling(report_id=report.pk + 1000)


def test_reports_by_key_match_repository_names_ignoring_case():
    report = factories.BugReportFactory(
        repository=factories.RepositoryFactory(owner="Octo", name="Lab"), number=3
    )
    factories.BugReportFactory(repository=report.repository, number=4)

    found = selectors.reports_by_key(keys=[("octo/LAB", 3), ("octo/lab", 9), ("x/y", 3)])

    assert found == {("octo/lab", 3): report}
    assert selectors.reports_by_key(keys=[]) == {}


def test_imported_reports_leave_stubs_out_and_missing_repositories_are_named():
    report = factories.BugReportFactory()
    factories.BugReportFactory(repository=report.repository, is_stub=True)

    assert list(selectors.reports_imported()) == [report]
    names = [report.repository.full_name, "nobody/here", "other/one"]
    assert selectors.repositories_missing(full_names=names) == ["nobody/here", "other/one"]
