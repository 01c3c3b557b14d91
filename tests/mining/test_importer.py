import datetime as dt
import json
import logging
import time

import pytest

from mining import importer, tasks
from mining.github_client import TokenBudget
from mining.models import BugReport, Comment, FixLink, ImportJob
from mining.services.import_jobs import import_job_cancel, import_job_create, import_job_update
from tests.mining import github_data
from tests.mining.payloads import comment_id, rest_issue

pytestmark = pytest.mark.django_db
REPO = "octo/repo"


def run(api="graphql", repo=REPO, **kwargs):
    job = import_job_create(repository_full_name=repo, api=api, **kwargs)
    status = importer.run_import(job.pk)
    job.refresh_from_db()
    assert job.status == status
    return job


@pytest.mark.parametrize("api", ["graphql", "rest"])
def test_pages_and_comments_over_several_pages(fake_github, api):
    github_data.add_issues(fake_github, REPO, 230, comments=1)
    busy = fake_github.repo(REPO)
    busy.comments[5] = [
        github_data.rest_comment(900000 + k, hours=k, issue_number=5) for k in range(260)
    ]
    busy.issues[5]["comments"] = 260
    job = run(api)
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert BugReport.objects.count() == 230
    assert Comment.objects.filter(report__number=5).count() == 260
    assert Comment.objects.count() == 229 + 260
    assert job.reports_done == 230 and job.comments == 229 + 260
    assert job.api_requests == len(fake_github.requests())
    if api == "graphql":
        # 3 issue pages + more comments for #5: 50 in the page, then 100, 100, 10.
        assert len(fake_github.requests("graphql")) == 3 + 3
        assert job.reports_total == 230


def test_graphql_first_import_costs_a_fraction_of_a_request_per_report(fake_github):
    github_data.add_issues(fake_github, REPO, 500, comments=3)
    job = run()
    assert job.status == ImportJob.Status.DONE
    assert job.api_requests == 5


def test_rest_listing_skips_pull_requests(fake_github):
    github_data.add_issues(fake_github, REPO, 3)
    fake_github.repo(REPO).issues[4] = rest_issue(
        4, repo=REPO, api=fake_github.url, pull_request=True, body="Fixes #2"
    )
    job = run("rest")
    assert job.pull_requests_skipped == 1
    assert sorted(BugReport.objects.values_list("number", flat=True)) == [1, 2, 3]
    link = FixLink.objects.get()
    assert (link.report.number, link.pull_request.number) == (2, 4)


def test_missing_repository_fails_with_reason(fake_github):
    for api in ("graphql", "rest"):
        job = run(api, repo=f"octo/missing-{api}")
        assert job.status == ImportJob.Status.FAILED
        assert "not found" in job.error_reason.lower()
        assert f"octo/missing-{api}" in job.error_reason


def test_incremental_run_fetches_only_changes(fake_github):
    github_data.add_issues(fake_github, REPO, 150)
    first = run()
    assert first.status == ImportJob.Status.DONE
    before = len(fake_github.requests())
    github_data.touch(fake_github, REPO, 7, dt.datetime(2030, 1, 1, tzinfo=dt.UTC))
    fake_github.repo(REPO).issues[7]["title"] = "Now much slower"
    second = run()
    # `since` is inclusive: the boundary report comes again, but unchanged, it is not stored.
    assert second.reports_done == 1
    assert len(fake_github.requests()) - before == 1
    assert BugReport.objects.get(number=7).is_performance_candidate


def test_linking_rules_through_graphql(fake_github):
    repo = github_data.add_issues(fake_github, "pytorch/pytorch", 6)
    sha = {name: name * 40 for name in "abcdef"}
    github_data.add_commit(fake_github, "pytorch/pytorch", sha["a"], "Fix #1", additions=4)
    landing = "Faster (#20)\n\nPull Request resolved: https://github.com/pytorch/pytorch/pull/20"
    github_data.add_commit(fake_github, "pytorch/pytorch", sha["b"], landing, additions=30)
    github_data.add_commit(fake_github, "pytorch/pytorch", sha["c"], "Workaround for #4")
    github_data.add_commit(fake_github, "pytorch/pytorch", sha["d"], "Fix #5", additions=9)
    revert = f'Revert "Fix #5"\n\nThis reverts commit {sha["d"]}.'
    github_data.add_commit(fake_github, "pytorch/pytorch", sha["e"], revert)
    repo.timeline[1] = [{"event": "closed", "commit_id": sha["a"]}]
    repo.closing_prs[2] = [20]
    repo.pulls[20] = {"state": "CLOSED", "merged": False}
    repo.timeline[2] = [{"event": "closed", "commit_id": sha["b"]}]
    repo.pulls[30] = {"merged": True, "merge_commit_sha": sha["f"]}
    repo.timeline[3] = [
        {"event": "cross-referenced", "will_close": True, "source": {"issue": {"number": 30}}}
    ]
    repo.timeline[4] = [{"event": "referenced", "commit_id": sha["c"]}]
    repo.timeline[5] = [
        {"event": "referenced", "commit_id": sha["d"]},
        {"event": "referenced", "commit_id": sha["e"]},
    ]
    repo.issues[6]["user"] = None
    repo.issues[6]["body"] = "\u00e9\u6f22\U0001f600 \x00" * 50_000

    job = run(repo="pytorch/pytorch")
    assert job.status == ImportJob.Status.DONE, job.error_reason

    def links(number):
        return {
            (link.target.split(":")[0], link.evidence, link.strength, link.reverted)
            for link in FixLink.objects.filter(report__number=number)
        }

    assert links(1) == {("commit", "closed_by_commit", "strong", False)}
    assert links(2) == {
        ("pr", "closing_reference", "strong", False),
        ("commit", "closed_by_commit", "strong", False),
        ("commit", "landed_pull_request", "strong", False),
        ("pr", "landed_pull_request", "strong", False),
    }
    assert links(3) == {
        ("pr", "will_close", "strong", False),
        ("commit", "merge_commit", "strong", False),
    }
    assert links(4) == {("commit", "message_mention", "weak", False)}
    assert links(5) == {("commit", "closing_reference", "strong", True)}
    reports = {r.number: r for r in BugReport.objects.all()}
    assert reports[1].fix_size == 6 and reports[2].fix_size == 32
    assert not reports[5].has_fix and reports[4].has_fix
    assert reports[6].author_login == "" and "\x00" not in reports[6].body
    assert reports[6].body.startswith("\u00e9\u6f22\U0001f600 ")
    assert job.fix_links["closed_by_commit"] == 2


@pytest.mark.parametrize(
    ("status", "headers"),
    [
        (403, {"x-ratelimit-remaining": "0"}),
        (429, {"Retry-After": "1"}),
    ],
)
def test_rate_limit_pauses_until_reset_then_continues(fake_github, status, headers):
    github_data.add_issues(fake_github, REPO, 120)
    import time

    reset = str(int(time.time()) + 1)
    body = {"message": "API rate limit exceeded for user."}
    fake_github.fail_next(status, headers={**headers, "x-ratelimit-reset": reset}, body=body)
    job = run("rest")
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert job.rate_limit_waits == 1
    assert BugReport.objects.count() == 120


def test_long_rate_limit_parks_job_waiting_and_resumes(fake_github, settings):
    github_data.add_issues(fake_github, REPO, 150)
    settings.GITHUB_GRAPHQL_PAGE_SIZE = 100
    fake_github.set_budget(1, reset_in=3600)
    job = import_job_create(repository_full_name=REPO)
    with pytest.raises(importer.RateLimitedError):
        importer.run_import(job.pk)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.WAITING
    assert job.rate_limit_reset_at is not None and job.reports_done == 100
    fake_github.set_budget(5000)
    budget = TokenBudget(settings.CELERY_BROKER_URL, 5)
    budget.set(TokenBudget.key(fake_github.url, ""), 5000, 0)  # the reset has passed
    assert importer.run_import(job.pk) == ImportJob.Status.DONE
    assert BugReport.objects.count() == 150


def test_server_errors_are_retried_then_fail_with_reason(fake_github, settings):
    github_data.add_issues(fake_github, REPO, 5)
    fake_github.fail_next(502, times=2)
    assert run().status == ImportJob.Status.DONE
    settings.GITHUB_SERVER_ERROR_RETRIES = 2
    fake_github.fail_next(503, times=3)
    job = run(since=dt.datetime(2000, 1, 1, tzinfo=dt.UTC))
    assert job.status == ImportJob.Status.FAILED
    assert "503 3 times" in job.error_reason


def test_bad_token_fails_without_leaking_it(fake_github, settings):
    github_data.add_issues(fake_github, REPO, 2)
    fake_github.valid_tokens = {"good"}
    settings.GITHUB_TOKENS = ["secret-bad-token"]
    job = run()
    assert job.status == ImportJob.Status.FAILED
    assert "token #0" in job.error_reason and "secret" not in job.error_reason


def test_malformed_item_is_skipped_with_reason(fake_github):
    github_data.add_issues(fake_github, REPO, 3)
    fake_github.repo(REPO).issues[2]["created_at"] = "not a date"
    job = run("rest")
    assert job.status == ImportJob.Status.DONE
    assert sorted(BugReport.objects.values_list("number", flat=True)) == [1, 3]
    assert job.skipped_items[0]["item"] == "#2" and "created_at" in job.skipped_items[0]["reason"]


class Killed(BaseException):
    pass


def test_killed_worker_resumes_from_checkpoint_without_duplicates(fake_github, monkeypatch):
    github_data.add_issues(fake_github, REPO, 350, comments=2)
    job = import_job_create(repository_full_name=REPO)
    original = importer.JobRun.store
    stored = []

    def store_then_die(self, page, checkpoint):
        if len(stored) == 2:
            raise Killed
        original(self, page, checkpoint)
        stored.append(1)

    monkeypatch.setattr(importer.JobRun, "store", store_then_die)
    with pytest.raises(Killed):
        importer.run_import(job.pk)
    assert BugReport.objects.count() == 200
    monkeypatch.setattr(importer.JobRun, "store", original)
    assert importer.run_import(job.pk) == ImportJob.Status.DONE
    assert BugReport.objects.count() == 350
    assert Comment.objects.count() == 700
    # Before the kill: pages 1-3 fetched (page 4 prefetched); after: pages 3 and 4 again.
    assert len(fake_github.requests("graphql")) == 4 + 2
    job.refresh_from_db()
    assert job.reports_done == 350


def test_cancelled_job_stops_at_next_page(fake_github, monkeypatch):
    github_data.add_issues(fake_github, REPO, 250)
    job = import_job_create(repository_full_name=REPO)
    original = importer.JobRun.store

    def store_then_cancel(self, page, checkpoint):
        original(self, page, checkpoint)
        import_job_cancel(job_id=job.pk)

    monkeypatch.setattr(importer.JobRun, "store", store_then_cancel)
    assert importer.run_import(job.pk) == ImportJob.Status.CANCELLED
    assert BugReport.objects.count() == 100


def test_rest_lists_100_a_page_and_comments_repository_wide(fake_github):
    github_data.add_issues(fake_github, REPO, 250, comments=2)
    job = run("rest")
    assert job.status == ImportJob.Status.DONE, job.error_reason
    listings = [
        entry
        for entry in fake_github.requests("rest")
        if entry.path.endswith(("/issues", "/comments", "/timeline"))
    ]
    assert listings and all(entry.query.get("per_page") == "100" for entry in listings)
    paths = [entry.path for entry in fake_github.requests("rest")]
    assert paths.count(f"/repos/{REPO}/issues") == 3
    # 500 comments in 5 requests, not one request for each of the 250 reports.
    assert paths.count(f"/repos/{REPO}/issues/comments") == 5
    assert not [p for p in paths if p.endswith("/comments") and p.split("/")[-2].isdigit()]
    assert Comment.objects.count() == 500 and job.comments == 500
    assert BugReport.objects.get(number=9).commenter_count == 1


def test_rest_lists_comments_per_report_when_that_is_cheaper(fake_github):
    github_data.add_issues(fake_github, REPO, 3)
    busy = fake_github.repo(REPO)
    busy.comments[2] = [github_data.rest_comment(20 + k, issue_number=2) for k in range(3)]
    busy.issues[2]["comments"] = 3
    assert run("rest").status == ImportJob.Status.DONE
    del busy.comments[2][0]
    github_data.touch(fake_github, REPO, 2, dt.datetime(2030, 1, 1, tzinfo=dt.UTC))
    assert run("rest").status == ImportJob.Status.DONE
    paths = [entry.path for entry in fake_github.requests("rest")]
    assert paths.count(f"/repos/{REPO}/issues/2/comments") == 2
    assert f"/repos/{REPO}/issues/comments" not in paths
    # A full per-report listing also finds the comment deleted on GitHub.
    assert sorted(Comment.objects.values_list("github_id", flat=True)) == [
        comment_id(21),
        comment_id(22),
    ]


def test_rest_rerun_sends_the_etag_and_a_304_is_free(fake_github):
    github_data.add_issues(fake_github, REPO, 120, comments=1)
    first = run("rest")
    etags = first.repository.sync.etags
    assert etags and all(value.startswith('"') for value in etags.values())
    run("rest")  # the first incremental run: new `since`, so no ETag yet for its listing
    before = len(fake_github.requests())
    third = run("rest")
    sent = fake_github.requests()[before:]
    assert [(entry.path, entry.status) for entry in sent] == [(f"/repos/{REPO}/issues", 304)]
    assert sent[0].headers["if-none-match"] in third.repository.sync.etags.values()
    assert third.status == ImportJob.Status.DONE
    assert (third.api_requests, third.api_requests_not_modified) == (1, 1)
    assert third.reports_done == 0
    # A change makes GitHub answer 200 to the same conditional request.
    github_data.touch(fake_github, REPO, 3, dt.datetime(2031, 1, 1, tzinfo=dt.UTC))
    fourth = run("rest")
    assert fourth.api_requests_not_modified == 0 and fourth.reports_done >= 1


def test_graphql_reads_labels_closing_prs_and_timeline_beyond_their_first_page(fake_github):
    repo = github_data.add_issues(fake_github, REPO, 2)
    repo.issues[1]["labels"] = [{"name": f"l{k}"} for k in range(55)] + [{"name": "performance"}]
    repo.closing_prs[1] = list(range(500, 512))  # 12: the first 10 come with the issue
    for number in range(500, 512):
        repo.pulls[number] = {"merged": True}
    sha = "c" * 40
    github_data.add_commit(fake_github, REPO, sha, "Fix the slowdown", additions=7, deletions=1)
    noise = [{"event": "cross-referenced", "source": {"issue": {"number": 500}}}] * 60
    repo.timeline[1] = [*noise, {"event": "closed", "commit_id": sha}]

    job = run()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    report = BugReport.objects.get(number=1)
    assert len(report.labels) == 56 and report.is_performance_candidate
    assert report.candidate_rules["performance"] == ["label:performance"]
    closing = set(
        FixLink.objects.filter(report=report, evidence="closing_reference").values_list(
            "pull_request__number", flat=True
        )
    )
    assert closing == set(range(500, 512))
    assert FixLink.objects.get(report=report, evidence="closed_by_commit").commit.sha == sha
    assert report.fix_size == 8
    # The issue page, then one follow-up query for all three connections of #1.
    queries = fake_github.requests("graphql")
    assert len(queries) == 2
    assert sorted(v for k, v in queries[1].variables.items() if k.startswith("after")) == [
        "10",
        "50",
        "50",
    ]


def test_secondary_limit_without_retry_after_pauses_the_job_then_it_completes(
    fake_github, settings
):
    settings.GITHUB_SECONDARY_WAIT_SECONDS = 0.2
    github_data.add_issues(fake_github, REPO, 150)
    body = {"message": "You have exceeded a secondary rate limit."}
    fake_github.fail_next(429, body=body, when=lambda path: path == "/graphql")
    started = time.monotonic()
    job = run()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert time.monotonic() - started >= 0.2
    assert job.rate_limit_waits == 1 and BugReport.objects.count() == 150
    assert [entry.status for entry in fake_github.requests()][:2] == [429, 200]


def test_malformed_comment_on_a_later_page_skips_the_whole_report_graphql(fake_github):
    repo = github_data.add_issues(fake_github, REPO, 3, comments=1)
    repo.comments[2] = [github_data.rest_comment(2000 + k, issue_number=2) for k in range(60)]
    repo.comments[2][55]["created_at"] = "not a date"  # on the second page of comments
    repo.issues[2]["comments"] = 60
    job = run()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    # Report #2 is left out entirely (no report, no comments, no links), the others stored.
    assert sorted(BugReport.objects.values_list("number", flat=True)) == [1, 3]
    assert not Comment.objects.filter(
        github_id__gte=comment_id(2000), github_id__lt=comment_id(2060)
    ).exists()
    assert job.skipped_items == [
        {"item": "#2", "reason": "malformed: createdAt: not an ISO 8601 datetime: 'not a date'"}
    ]
    assert job.reports_done == 2


def test_malformed_issue_node_is_skipped_with_reason_graphql(fake_github):
    repo = github_data.add_issues(fake_github, REPO, 3, comments=2)
    repo.issues[3]["created_at"] = "yesterday"
    job = run()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert sorted(BugReport.objects.values_list("number", flat=True)) == [1, 2]
    assert not Comment.objects.filter(github_id__in=[comment_id(3000), comment_id(3001)]).exists()
    assert job.skipped_items[0]["item"] == "#3"
    assert "createdAt" in job.skipped_items[0]["reason"]


def test_malformed_comment_listed_per_report_is_skipped_with_reason_rest(fake_github):
    github_data.add_issues(fake_github, REPO, 3)
    busy = fake_github.repo(REPO)
    busy.comments[2] = [github_data.rest_comment(20 + k, issue_number=2) for k in range(3)]
    busy.comments[2][1]["id"] = "twenty-one"
    busy.issues[2]["comments"] = 3
    job = run("rest")
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert sorted(BugReport.objects.values_list("number", flat=True)) == [1, 2, 3]
    # None of #2's comments half-stored; the reason names the report and the field.
    assert not Comment.objects.filter(report__number=2).exists()
    assert job.skipped_items == [
        {"item": "#2 comments", "reason": "malformed: id: expected int, got str"}
    ]


@pytest.mark.parametrize("api", ["graphql", "rest"])
def test_malformed_page_structure_fails_the_job_with_reason(fake_github, api):
    github_data.add_issues(fake_github, REPO, 2)
    if api == "rest":
        fake_github.fail_next(200, body={"message": "not a list"})
    else:
        fake_github.fail_next(200, body={"data": {"repository": {"issues": {"nodes": []}}}})
    job = run(api)
    assert job.status == ImportJob.Status.FAILED
    assert job.error_reason.startswith(f"{REPO}: ") and "malformed" in job.error_reason
    assert job.finished_at is not None and BugReport.objects.count() == 0


def test_a_graphql_page_without_its_page_info_names_the_missing_field(fake_github):
    github_data.add_issues(fake_github, REPO, 2)
    fake_github.fail_next(
        200, body={"data": {"repository": {"issues": {"totalCount": 2, "nodes": []}}}}
    )
    job = run()
    assert job.status == ImportJob.Status.FAILED
    assert job.error_reason == (
        f"{REPO}: GitHub sent a malformed answer: repository.issues.pageInfo: missing"
    )


def test_a_bug_of_ours_during_an_import_is_not_blamed_on_github(fake_github, monkeypatch):
    github_data.add_issues(fake_github, REPO, 2)

    def broken(**kwargs):
        raise KeyError("default_branch")

    monkeypatch.setattr(importer, "repository_update_from_github", broken)
    job = import_job_create(repository_full_name=REPO)

    with pytest.raises(KeyError):
        tasks.import_repository.apply(args=(job.pk,), throw=True)

    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    assert job.error_reason == "unexpected error: KeyError: 'default_branch'"


def test_gone_repository_fails_with_reason_like_a_missing_one(fake_github):
    github_data.add_issues(fake_github, REPO, 2)
    fake_github.fail_next(410, body={"message": "Issues are disabled for this repo"})
    job = run("rest")
    assert job.status == ImportJob.Status.FAILED
    assert job.error_reason == (
        f"{REPO}: Gone from GitHub (410): Issues are disabled for this repo"
    )
    assert BugReport.objects.count() == 0


def test_missing_repository_reason_uses_githubs_graphql_message(fake_github):
    job = run("graphql", repo="octo/missing")
    assert job.status == ImportJob.Status.FAILED
    assert job.error_reason == (
        "octo/missing: Not found on GitHub: Could not resolve to a Repository with the name "
        "'octo/missing'."
    )


@pytest.mark.parametrize("api", ["graphql", "rest"])
def test_bad_token_never_reaches_logs_job_records_or_the_api(
    fake_github, settings, caplog, api, api_as, lead
):
    from mining.serializers import ImportJobSerializer

    github_data.add_issues(fake_github, REPO, 2)
    fake_github.valid_tokens = {"good"}
    settings.GITHUB_TOKENS = ["ghp_good_looking_but_revoked_secret"]
    caplog.set_level(logging.DEBUG)
    job = run(api)
    assert job.status == ImportJob.Status.FAILED
    assert job.error_reason == f"{REPO}: GitHub rejected token #0 (401 Bad credentials)"
    record = json.dumps(ImportJobSerializer(job).data, default=str)
    listing = api_as(lead).get("/api/imports/").content.decode()
    assert "token #0" in record and "token #0" in listing
    for text in (caplog.text, record, listing, json.dumps(job.checkpoint)):
        assert "revoked_secret" not in text
    assert fake_github.requests()[0].status == 401


def test_issue_deleted_before_its_next_comments_page_keeps_the_first_page(fake_github, monkeypatch):
    repo = github_data.add_issues(fake_github, REPO, 2)
    repo.comments[1] = [github_data.rest_comment(1000 + k, issue_number=1) for k in range(70)]
    repo.issues[1]["comments"] = 70
    original = importer.JobRun.more_items

    def delete_then_read_more(self, page, pending, incomplete):
        del repo.issues[1]  # gone from GitHub between the issue page and the follow-up query
        original(self, page, pending, incomplete)

    monkeypatch.setattr(importer.JobRun, "more_items", delete_then_read_more)
    job = run()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert Comment.objects.filter(report__number=1).count() == 50
    assert job.skipped_items == [{"item": "#1", "reason": "only the first page of comments read"}]


@pytest.mark.parametrize("api", ["graphql", "rest"])
def test_githubs_ids_past_2_31_are_stored_exactly(fake_github, api):
    from mining.models import PullRequest, Repository
    from tests.fakegithub.server import PULL_REQUEST_ID_BASE, REPOSITORY_ID
    from tests.mining.payloads import ISSUE_ID_BASE

    repo = github_data.add_issues(fake_github, REPO, 3, comments=2)
    repo.issues[4] = rest_issue(4, repo=REPO, api=fake_github.url, pull_request=True)
    repo.closing_prs[2] = [4]
    repo.pulls[4] = {"merged": True}
    job = run(api)
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert job.skipped_items == []
    reports = dict(BugReport.objects.values_list("number", "github_id"))
    assert reports == {n: ISSUE_ID_BASE + n for n in (1, 2, 3)} and ISSUE_ID_BASE > 2**31
    assert sorted(Comment.objects.filter(report__number=2).values_list("github_id", flat=True)) == [
        comment_id(2000),
        comment_id(2001),
    ]
    assert PullRequest.objects.get(number=4).github_id == ISSUE_ID_BASE + 4
    if api == "graphql":
        assert Repository.objects.get(full_name=REPO).github_id == REPOSITORY_ID
    # A pull request GitHub's issue listing never showed: its id as GraphQL gives it.
    repo.closing_prs[3] = [77]
    github_data.touch(fake_github, REPO, 3, dt.datetime(2030, 1, 1, tzinfo=dt.UTC))
    assert run("graphql").status == ImportJob.Status.DONE
    assert PullRequest.objects.get(number=77).github_id == PULL_REQUEST_ID_BASE + 77


def test_a_graphql_error_on_one_issues_field_keeps_the_page_and_says_so(fake_github):
    repo = github_data.add_issues(fake_github, REPO, 5, comments=2)
    sha = "b" * 40
    github_data.add_commit(fake_github, REPO, sha, "Fix #2")
    repo.timeline[2] = [{"event": "closed", "commit_id": sha}]
    assert run().status == ImportJob.Status.DONE
    assert FixLink.objects.filter(report__number=2).count() == 1
    # Next run: GitHub answers an error for #2's timeline source and #4's comments.
    for number in (2, 4):
        github_data.touch(fake_github, REPO, number, dt.datetime(2030, 1, number, tzinfo=dt.UTC))
    repo.issues[2]["title"] = "Now slower"
    repo.comments[4][0]["body"] = "edited"
    fake_github.fail_graphql_field(
        "ClosedEvent", "closer", "Resource not accessible by integration", type="FORBIDDEN"
    )
    fake_github.fail_graphql_field(
        "IssueComment", "body", "Something went wrong", when=lambda c: c["body"] == "edited"
    )
    job = run()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert job.reports_done == 2
    assert BugReport.objects.get(number=2).title == "Now slower"
    # What did not come is not taken for gone: #2 keeps its link, #4 its two comments.
    assert FixLink.objects.filter(report__number=2).count() == 1
    assert Comment.objects.filter(report__number=4).count() == 2
    assert job.skipped_items == [
        {
            "item": "#2",
            "reason": "incomplete: GitHub answered an error for timelineItems.nodes.0.closer "
            "(FORBIDDEN: Resource not accessible by integration); the rest of the report is "
            "stored",
        },
        {
            "item": "#4",
            "reason": "incomplete: GitHub answered an error for comments.nodes.0.body "
            "(Something went wrong); the rest of the report is stored",
        },
    ]


def test_an_issue_graphql_sends_as_null_is_recorded_and_asked_for_again(fake_github):
    github_data.add_issues(fake_github, REPO, 5)
    fake_github.fail_graphql_field(
        "Issue", "title", "Something went wrong", when=lambda issue: issue["number"] == 3
    )
    job = run()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert sorted(BugReport.objects.values_list("number", flat=True)) == [1, 2, 4, 5]
    assert job.skipped_items == [
        {
            "item": "issue 3 of a page",
            "reason": "not imported: GitHub answered an error for title (Something went wrong)",
        }
    ]
    # The next incremental run starts at or before the lost issue, so it comes then.
    sync = job.repository.sync
    sync.refresh_from_db()
    assert sync.issues_updated_until == BugReport.objects.get(number=2).updated_at
    fake_github.field_failures.clear()
    again = run()
    assert again.status == ImportJob.Status.DONE and again.reports_done == 1
    assert BugReport.objects.filter(number=3).exists()


def test_an_error_on_a_later_comments_page_keeps_the_stored_comments(fake_github):
    repo = github_data.add_issues(fake_github, REPO, 2)
    repo.comments[1] = [github_data.rest_comment(k, issue_number=1) for k in range(70)]
    repo.issues[1]["comments"] = 70
    assert run().status == ImportJob.Status.DONE
    assert Comment.objects.filter(report__number=1).count() == 70
    repo.comments[1][60]["body"] = "edited"
    github_data.touch(fake_github, REPO, 1, dt.datetime(2030, 1, 1, tzinfo=dt.UTC))
    fake_github.fail_graphql_field(
        "IssueComment", "body", "timeout", when=lambda c: c["body"] == "edited"
    )
    job = run()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert Comment.objects.filter(report__number=1).count() == 70
    assert job.skipped_items == [
        {
            "item": "#1",
            "reason": "incomplete: GitHub answered an error for comments.nodes.10.body "
            "(timeout); the rest of the report is stored",
        }
    ]


ECHOED = "ghp_secretTokenTheProxyEchoes0123456789"


@pytest.mark.parametrize(
    ("api", "status"),
    [("rest", 403), ("rest", 404), ("rest", 422), ("rest", 500), ("graphql", 200)],
)
def test_an_echoed_token_reaches_no_record_page_api_admin_or_log(
    fake_github, settings, caplog, client, admin_user, api_as, lead, api, status
):
    caplog.set_level(logging.DEBUG)
    settings.GITHUB_TOKENS = [ECHOED]
    settings.GITHUB_SERVER_ERROR_RETRIES = 1
    github_data.add_issues(fake_github, REPO, 3)
    echo = {"message": "Rejected request with Authorization: {authorization}"}
    if api == "graphql":
        # One node's error (recorded as skipped), then a whole query's (the job fails).
        fake_github.fail_graphql_field(
            "Issue", "title", echo["message"], when=lambda issue: issue["number"] == 2
        )
        fake_github.fail_next(200, body={"errors": [echo]}, when=lambda p: p == "/graphql")
    else:
        fake_github.fail_next(status, body=echo, times=2)
    first = run(api)
    assert first.status == ImportJob.Status.FAILED
    if api == "graphql":
        fake_github.failures.clear()
        assert run(api).status == ImportJob.Status.DONE
    texts = [
        json.dumps(list(ImportJob.objects.values("error_reason", "skipped_items"))),
        client_page(client, admin_user, "/imports/"),
        api_as(lead).get("/api/imports/").content.decode(),
        client_page(client, admin_user, "/admin/mining/importjob/"),
        *[client_page(client, admin_user, f"/admin/mining/importjob/{job.pk}/change/")
          for job in ImportJob.objects.all()],
        caplog.text,
    ]  # fmt: skip
    # The answer's text is kept, without the token (a 404 keeps nothing of it).
    assert status == 404 or any("Authorization: token [redacted]" in text for text in texts[:2])
    for text in texts:
        assert ECHOED not in text and ECHOED[4:20] not in text


def client_page(client, user, url: str) -> str:
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_job_text_quoting_a_token_is_stored_redacted_whatever_wrote_it(settings):
    from tests.mining.factories import ImportJobFactory

    settings.GITHUB_TOKENS = [ECHOED]
    job = ImportJobFactory(error_reason=f"token {ECHOED}", skipped_items=[{"reason": ECHOED}])
    import_job_update(job_id=job.pk, error_reason=f"Bearer {ECHOED}")
    job.refresh_from_db()
    assert job.error_reason == "Bearer [redacted]"
    assert job.skipped_items == [{"reason": "[redacted]"}]


def test_an_unreachable_github_fails_the_job_saying_so(settings, db):
    settings.GITHUB_API_URL = "http://127.0.0.1:1"
    settings.GITHUB_SERVER_ERROR_RETRIES = 5
    settings.GITHUB_RETRY_BACKOFF_SECONDS = 0.001
    job = run()
    assert job.status == ImportJob.Status.FAILED
    assert job.error_reason == (
        f"{REPO}: could not reach http://127.0.0.1:1: connection refused, 6 tries"
    )
