import datetime as dt
import json

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from mining import linking, measures, records, services
from mining.models import BugReport, Comment, FixLink, ImportJob
from mining.services import MEASURE_FIELDS
from tests.mining import factories, payloads

pytestmark = pytest.mark.django_db


def write_jsonl(tmp_path, objects, name="issues.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(o) for o in objects) + "\n", encoding="utf-8")
    return path


def test_import_from_file_stores_reports_comments_links_and_measures(tmp_path):
    issue = payloads.rest_issue(
        7,
        title="Conv is slow",
        labels=["module: performance"],
        comments_data=[
            payloads.rest_comment(70, user="bob", hours=2),
            payloads.rest_comment(71, user=None, hours=3),
        ],
        events_data=[{"event": "closed", "commit_id": "a" * 40}],
        commits_data=[payloads.rest_commit("a" * 40, "Fix conv (#7)", additions=12, deletions=3)],
    )
    pr = payloads.rest_issue(8, pull_request=True, body="Fixes #7")
    summary = services.reports_import_from_file(path=write_jsonl(tmp_path, [issue, pr]))

    assert summary["reports"] == 1
    assert summary["pull_requests_skipped"] == 1
    assert summary["comments"] == 2
    assert summary["fix_links"] == {"closed_by_commit": 1, "closing_reference": 1}
    report = BugReport.objects.get(number=7)
    assert not BugReport.objects.filter(number=8).exists()
    assert report.is_performance_candidate
    assert report.candidate_rules["performance"] == ["label:module: performance", "keyword:slow"]
    assert report.has_fix and report.fix_size == 15
    assert report.fix_hours == 24 * 10
    assert report.first_comment_hours == 2
    assert (report.commenter_count, report.participant_count) == (1, 2)
    commit_link = report.fix_links.get(evidence=FixLink.Evidence.CLOSED_BY_COMMIT)
    assert commit_link.commit.files[0]["patch"].startswith("@@")


def test_reimport_is_idempotent(tmp_path):
    issue = payloads.rest_issue(7, comments_data=[payloads.rest_comment(70)])
    path = write_jsonl(tmp_path, [issue])
    services.reports_import_from_file(path=path)
    services.reports_import_from_file(path=path)
    assert BugReport.objects.count() == 1
    assert Comment.objects.count() == 1


def test_bad_line_reports_line_number_and_writes_nothing(tmp_path):
    good = payloads.rest_issue(1)
    bad = payloads.rest_issue(2)
    bad["created_at"] = "yesterday"
    path = write_jsonl(tmp_path, [good, bad])
    with pytest.raises(ValidationError) as error:
        services.reports_import_from_file(path=path)
    assert "issues.jsonl, line 2: created_at" in str(error.value)
    assert BugReport.objects.count() == 0


def test_nul_characters_and_deleted_users_are_stored(tmp_path):
    issue = payloads.rest_issue(3, body="a\x00b \u2603" * 1000, user=None)
    issue["title"] = "t\x00"
    services.reports_import_from_file(path=write_jsonl(tmp_path, [issue]))
    report = BugReport.objects.get()
    assert report.title == "t" and report.body.startswith("ab \u2603")
    assert report.author_login == ""
    assert "\x00" not in json.dumps(report.raw)


def test_revert_in_file_marks_link_and_drops_fix_size(tmp_path):
    fix, revert = "a" * 40, "b" * 40
    issue = payloads.rest_issue(
        7,
        events_data=[
            {"event": "closed", "commit_id": fix},
            {"event": "referenced", "commit_id": revert},
        ],
        commits_data=[
            payloads.rest_commit(fix, "Fix #7"),
            payloads.rest_commit(revert, f'Revert "Fix #7"\n\nThis reverts commit {fix}.'),
        ],
    )
    services.reports_import_from_file(path=write_jsonl(tmp_path, [issue]))
    report = BugReport.objects.get()
    assert list(report.fix_links.values_list("reverted", flat=True)) == [True]
    assert not report.has_fix and report.fix_size is None


def test_import_job_create_checks_permission_and_input(make_user, lead, annotator):
    with pytest.raises(PermissionDenied):
        services.import_job_create(repository_full_name="o/r", user=annotator)
    with pytest.raises(ValidationError) as error:
        services.import_job_create(repository_full_name="not a repo", user=lead)
    assert "OWNER/NAME" in str(error.value)
    with pytest.raises(ValidationError):
        services.import_job_create(
            repository_full_name="o/r", since=dt.datetime(2021, 1, 1), user=lead
        )
    job = services.import_job_create(repository_full_name="o/r", user=lead)
    assert job.status == ImportJob.Status.QUEUED
    with pytest.raises(ValidationError):
        services.import_job_create(repository_full_name="o/r", user=lead)
    services.import_job_cancel(job_id=job.pk, user=lead)
    rerun = services.import_job_rerun(job_id=job.pk, user=lead)
    assert rerun.pk != job.pk and rerun.repository_id == job.repository_id


def _varied_reports():
    """Reports covering the measure rules: reporter deleted or commenting, deleted
    commenters, strong/weak and commit/PR links, reverted links, missing sizes, open reports."""
    repository = factories.RepositoryFactory()
    t0 = dt.datetime(2021, 1, 1, tzinfo=dt.UTC)
    ids = []
    for number in range(1, 13):
        report = factories.BugReportFactory(
            repository=repository,
            number=number,
            author_login="" if number % 4 == 0 else "reporter",
            state="open" if number % 5 == 0 else "closed",
            created_at=t0,
            closed_at=t0 + dt.timedelta(hours=number * 7) if number % 6 else None,
        )
        ids.append(report.pk)
        logins = ["reporter", "", "bob", "ann", "bob"][: number % 6]
        for k, login in enumerate(logins):
            factories.CommentFactory(
                report=report, author_login=login, created_at=t0 + dt.timedelta(hours=k + 1)
            )
        for k in range(number % 4):
            commit = factories.CommitFactory(
                repository=repository,
                additions=None if (number + k) % 5 == 0 else 3 * k + 1,
                deletions=k,
            )
            factories.FixLinkFactory(
                report=report,
                commit=commit,
                strength="weak" if k == 1 else "strong",
                reverted=(number + k) % 7 == 0,
            )
        if number % 3 == 0:
            pr = factories.PullRequestFactory(repository=repository, additions=40, deletions=2)
            FixLink.objects.create(
                report=report,
                pull_request=pr,
                target=f"pr:{pr.number}",
                evidence=FixLink.Evidence.WILL_CLOSE,
                strength="strong",
            )
    return ids


def _measures_by_the_rules(report_ids: list[int]) -> dict[int, dict]:
    """mining/measures.py (the rules) over the stored rows: what the SQL must agree with."""
    comments: dict[int, list] = {pk: [] for pk in report_ids}
    for report_id, login, created in Comment.objects.filter(report_id__in=report_ids).values_list(
        "report_id", "author_login", "created_at"
    ):
        comments[report_id].append((login, created))
    parts: dict[int, list] = {pk: [] for pk in report_ids}
    for link in FixLink.objects.filter(report_id__in=report_ids).values(
        "report_id",
        "target",
        "strength",
        "reverted",
        "commit_id",
        "commit__additions",
        "commit__deletions",
        "pull_request__additions",
        "pull_request__deletions",
    ):
        is_commit = link["commit_id"] is not None
        prefix = "commit__" if is_commit else "pull_request__"
        parts[link["report_id"]].append(
            measures.FixPart(
                target=link["target"],
                strength=link["strength"],
                reverted=link["reverted"],
                additions=link[prefix + "additions"],
                deletions=link[prefix + "deletions"],
                is_commit=is_commit,
            )
        )
    expected = {}
    for report in BugReport.objects.filter(pk__in=report_ids):
        m = measures.report_measures(
            author_login=report.author_login,
            created_at=report.created_at,
            closed_at=report.closed_at if report.state == BugReport.State.CLOSED else None,
            comments=comments[report.pk],
            fix_parts=parts[report.pk],
        )
        expected[report.pk] = {
            "fix_hours": m.fix_hours,
            "fix_size": m.fix_size,
            "first_comment_hours": m.first_comment_hours,
            "commenter_count": m.commenter_count,
            "participant_count": m.participant_count,
            "has_fix": any(not p.reverted for p in parts[report.pk]),
        }
    return expected


def test_measures_in_sql_follow_the_rules_of_mining_measures():
    ids = _varied_reports()
    expected = _measures_by_the_rules(ids)
    BugReport.objects.filter(pk__in=ids).update(
        fix_hours=-1, fix_size=None, first_comment_hours=-1, commenter_count=99, has_fix=False
    )
    services._refresh_measures(ids)
    got = {r["id"]: r for r in BugReport.objects.filter(pk__in=ids).values("id", *MEASURE_FIELDS)}
    for pk in ids:
        for name in MEASURE_FIELDS:
            assert got[pk][name] == pytest.approx(expected[pk][name]), (pk, name)
    assert {r["has_fix"] for r in got.values()} == {True, False}
    assert {r["fix_size"] is None for r in got.values()} == {True, False}


def test_storing_a_page_takes_the_same_few_queries_whatever_its_size(
    django_assert_max_num_queries,
):
    repository = factories.RepositoryFactory()
    rules = services._rules(services.candidate_rules_ensure(repository=repository))

    def page(numbers):
        result = records.Page()
        for n in numbers:
            report = records.report_from_rest(payloads.rest_issue(n, repo=repository.full_name))
            report.comments = [
                records.comment_from_rest(payloads.rest_comment(n * 10 + k)) for k in range(3)
            ]
            report.events = [linking.TimelineEvent("closed", commit_sha=f"{n:040x}")]
            result.reports.append(report)
            result.commits.append(records.CommitRecord(sha=f"{n:040x}", message=f"Fix #{n}"))
        return result

    with django_assert_max_num_queries(7):
        services.reports_store_page(repository=repository, page=page(range(1, 11)), rules=rules)
    with django_assert_max_num_queries(7):
        services.reports_store_page(repository=repository, page=page(range(11, 211)), rules=rules)
    # Re-storing existing reports also looks for comments and links GitHub no longer has.
    with django_assert_max_num_queries(9):
        services.reports_store_page(repository=repository, page=page(range(11, 211)), rules=rules)
    assert BugReport.objects.filter(has_fix=True).count() == 210
    assert Comment.objects.count() == 630


def test_a_script_link_in_a_file_is_refused_with_its_line(tmp_path):
    evil = payloads.rest_issue(2)
    evil["html_url"] = "javascript:alert(document.domain)//"
    path = write_jsonl(tmp_path, [payloads.rest_issue(1), evil])

    with pytest.raises(ValidationError) as error:
        services.reports_import_from_file(path=path)

    assert "issues.jsonl, line 2: html_url: not an http(s) URL" in str(error.value)
    assert BugReport.objects.count() == 0


def test_a_line_that_is_not_utf8_is_named_and_nothing_is_written(tmp_path):
    path = tmp_path / "issues.jsonl"
    good = json.dumps(payloads.rest_issue(1)).encode()
    path.write_bytes(good + b"\n" + b'{"title": "caf\xe9"}\n')

    with pytest.raises(ValidationError) as error:
        services.reports_import_from_file(path=path)

    assert "issues.jsonl, line 2: not UTF-8 (byte 15)" in str(error.value)
    assert BugReport.objects.count() == 0


def test_many_bad_lines_are_counted_beyond_the_first_twenty(tmp_path):
    path = tmp_path / "issues.jsonl"
    path.write_text("[]\n" * 25, encoding="utf-8")

    with pytest.raises(ValidationError) as error:
        services.reports_import_from_file(path=path)

    messages = error.value.message_dict["path"]
    assert len(messages) == 21
    assert messages[-1] == "issues.jsonl: … and 5 more bad lines"


def test_an_import_job_refuses_a_patches_setting_it_does_not_know(settings):
    settings.MINING_FETCH_PATCHES = "none"
    with pytest.raises(ValidationError) as raised:
        services.import_job_create(repository_full_name="octo/repo")
    assert raised.value.message_dict == {
        "patches": ["MINING_FETCH_PATCHES=none: expected lazy, candidates, all"]
    }
    assert services.import_job_create(repository_full_name="octo/repo", patches="all").patches == (
        "all"
    )
