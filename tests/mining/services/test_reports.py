import datetime as dt

import pytest

from mining import candidates, linking, measures, records
from mining.models import BugReport, Comment, FixLink
from mining.services.candidate_rules import candidate_rules_ensure
from mining.services.reports import (
    MEASURE_FIELDS,
    report_measures_refresh,
    report_stubs_create,
    reports_store_page,
)
from tests.mining import factories, payloads

pytestmark = pytest.mark.django_db


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
    report_measures_refresh(report_ids=ids)
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
    rules = candidates.Rules.of(candidate_rules_ensure(repository=repository))

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
        reports_store_page(repository=repository, page=page(range(1, 11)), rules=rules)
    with django_assert_max_num_queries(7):
        reports_store_page(repository=repository, page=page(range(11, 211)), rules=rules)
    # Re-storing existing reports also looks for comments and links GitHub no longer has.
    with django_assert_max_num_queries(9):
        reports_store_page(repository=repository, page=page(range(11, 211)), rules=rules)
    assert BugReport.objects.filter(has_fix=True).count() == 210
    assert Comment.objects.count() == 630


def test_stubs_name_reports_not_imported_yet_and_an_import_fills_them_in():
    known = factories.RepositoryFactory(owner="octo", name="lab", full_name="octo/lab")

    stubs = report_stubs_create(references=[("Octo/Lab", 5), ("new/repo", 1), ("NEW/repo", 2)])

    assert [(s.repository.full_name, s.number) for s in stubs] == [
        ("octo/lab", 5),
        ("new/repo", 1),
        ("new/repo", 2),
    ]
    assert stubs[0].repository == known and stubs[0].is_stub
    assert stubs[0].title == "octo/lab#5 (not imported yet)"
    assert stubs[0].html_url == "https://github.com/octo/lab/issues/5"
    page = records.Page(reports=[records.report_from_rest(payloads.rest_issue(5, repo="octo/lab"))])
    reports_store_page(repository=known, page=page, rules=candidates.Rules())
    filled = BugReport.objects.get(pk=stubs[0].pk)
    assert not filled.is_stub and filled.title != stubs[0].title
