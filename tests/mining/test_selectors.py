import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.http import QueryDict

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
    assert "raw" not in got and got["fix_linked"] is False
    with pytest.raises(BugReport.DoesNotExist):
        selectors.report_for_labelling(report_id=report.pk + 1000)


def test_report_ids_by_key_match_repository_names_ignoring_case():
    report = factories.BugReportFactory(
        repository=factories.RepositoryFactory(owner="Octo", name="Lab"), number=3
    )
    factories.BugReportFactory(repository=report.repository, number=4)

    found = selectors.report_ids_by_key(keys=[("octo/LAB", 3), ("octo/lab", 9), ("x/y", 3)])

    assert found == {("octo/lab", 3): report.pk}
    assert selectors.report_ids_by_key(keys=[]) == {}


def test_imported_reports_leave_stubs_out_and_missing_repositories_are_named():
    report = factories.BugReportFactory()
    factories.BugReportFactory(repository=report.repository, is_stub=True)

    assert list(selectors.reports_imported()) == [report]
    names = [report.repository.full_name, "nobody/here", "other/one"]
    assert selectors.repositories_missing(full_names=names) == ["nobody/here", "other/one"]


def _params(query):
    return QueryDict(query)


def test_reports_filtered_uses_the_report_list_filters_on_imported_reports_only():
    repo = factories.RepositoryFactory(full_name="pytorch/pytorch")
    slow = factories.BugReportFactory(repository=repo, is_performance_candidate=True, has_fix=True)
    factories.BugReportFactory(repository=repo, is_performance_candidate=True)
    factories.BugReportFactory(repository=repo, is_stub=True, is_performance_candidate=True)
    factories.BugReportFactory(is_performance_candidate=True, has_fix=True)

    found = selectors.reports_filtered(
        params=_params("repository=PyTorch/pytorch&candidate=performance&has_fix=true")
    )

    assert list(found) == [slow]
    within = BugReport.objects.exclude(pk=slow.pk)
    assert not selectors.reports_filtered(
        params=_params("has_fix=true&repository=pytorch/pytorch"), within=within
    ).exists()


def test_reports_filtered_names_every_unknown_repeated_or_bad_parameter():
    with pytest.raises(ValidationError) as caught:
        selectors.reports_filtered(
            params=_params("repositry=a/b&state=open&state=closed&created_after=yesterday&x=1")
        )

    errors = caught.value.message_dict
    assert errors["repositry"] == ["unknown parameter 'repositry'; did you mean 'repository'?"]
    assert errors["state"] == ["given 2 times; give it once"]
    assert errors["created_after"] == ["not a date (YYYY-MM-DD) or an ISO 8601 date and time"]
    assert errors["x"][0].startswith("unknown parameter 'x'; known: candidate, closed_after")


def test_reports_filtered_leaves_the_callers_parameters_alone():
    report = factories.BugReportFactory()

    found = selectors.reports_filtered(
        params=_params("study=s&final=a:b"), ignored=["study", "final"]
    )

    assert list(found) == [report]
    with pytest.raises(ValidationError) as caught:
        selectors.reports_filtered(params=_params("stdy=s"), ignored=["study"])
    assert caught.value.message_dict["stdy"] == ["unknown parameter 'stdy'; did you mean 'study'?"]


def test_measure_values_come_in_one_query_with_none_for_a_missing_value(
    django_assert_num_queries,
):
    fixed = factories.BugReportFactory(
        fix_hours=36.0,
        fix_size=14,
        first_comment_hours=2.5,
        comment_count=3,
        commenter_count=2,
        participant_count=3,
    )
    factories.BugReportFactory(repository=fixed.repository, state="open", closed_at=None)

    with django_assert_num_queries(1):
        values = selectors.report_measure_values(reports=BugReport.objects.order_by("number"))

    assert list(values) == [measure.key for measure in selectors.REPORT_MEASURES]
    assert values["time_to_fix_days"] == [1.5, None]
    assert values["fix_size_lines"] == [14, None]
    assert values["time_to_first_comment_hours"] == [2.5, None]
    assert values["comments"] == [3, 0]
    assert values["commenters"] == [2, 0] and values["participants"] == [3, 0]


def test_measure_values_of_no_report_are_empty_lists():
    values = selectors.report_measure_values(reports=BugReport.objects.filter(number=-1))

    assert values == {measure.key: [] for measure in selectors.REPORT_MEASURES}


def test_created_dates_are_utc_days_and_repository_names_by_report():
    late = dt.datetime(2021, 3, 31, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    report = factories.BugReportFactory(created_at=late)
    factories.BugReportFactory(repository=report.repository, created_at=None)

    assert selectors.report_created_dates(reports=BugReport.objects.all()) == [dt.date(2021, 4, 1)]
    assert selectors.report_repository_names(report_ids=[report.pk]) == {
        report.pk: report.repository.full_name
    }


def test_measure_values_of_a_filter_matching_nothing_need_no_query(django_assert_num_queries):
    with django_assert_num_queries(0):
        values = selectors.report_measure_values(reports=BugReport.objects.filter(pk__in=[]))

    assert values["comments"] == []


class TestImportJobStallNote:
    """An active job silent for MINING_STALLED_MINUTES is shown as stalled, with what to do."""

    NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)

    def job(self, status, quiet_minutes, **fields):
        job = factories.ImportJobFactory(status=status, **fields)
        job.updated_at = self.NOW - dt.timedelta(minutes=quiet_minutes)
        return job

    def note(self, job):
        return selectors.import_job_stall_note(job, now=self.NOW)

    @pytest.fixture(autouse=True)
    def redis(self, settings):
        settings.MINING_STALLED_MINUTES = 15
        settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3 * 3600}

    def test_a_running_job_is_stalled_after_the_quiet_time_not_before(self):
        assert self.note(self.job("running", 14)) is None
        note = self.note(self.job("running", 16))
        assert note.startswith("No progress for 16 min: its worker may have stopped.")
        assert "Redis gives its task to another worker 3 h after it started" in note
        assert note.endswith(
            "Cancel, then Re-run, to go on now (the pages stored so far are kept)."
        )

    def test_a_waiting_job_counts_from_its_rate_limit_reset(self):
        reset = self.NOW - dt.timedelta(minutes=10)
        assert self.note(self.job("waiting", 60, rate_limit_reset_at=reset)) is None
        reset = self.NOW - dt.timedelta(minutes=20)
        assert "No progress for 20 min" in self.note(
            self.job("waiting", 60, rate_limit_reset_at=reset)
        )

    def test_a_queued_job_not_taken_says_the_workers_are_busy_or_gone(self):
        assert self.note(self.job("queued", 30)).startswith("Not started after 30 min")

    def test_a_finished_job_is_never_stalled(self):
        for status in ("done", "failed", "cancelled"):
            assert self.note(self.job(status, 600)) is None

    def test_without_redis_no_redelivery_is_promised(self, settings):
        settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": "/srv/labeler/queue"}
        note = self.note(self.job("running", 16))
        assert "Redis" not in note and "Cancel, then Re-run" in note
