import datetime as dt

import pytest

from mining import importer, services
from mining.github_client import TokenBudget
from mining.models import BugReport, Comment, FixLink, ImportJob
from tests.mining import github_data
from tests.mining.payloads import rest_issue

pytestmark = pytest.mark.django_db
REPO = "octo/repo"


def run(api="graphql", repo=REPO, **kwargs):
    job = services.import_job_create(repository_full_name=repo, api=api, **kwargs)
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
    assert second.reports_done == 2  # the changed report and the boundary one (since is inclusive)
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
    job = services.import_job_create(repository_full_name=REPO)
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
    job = services.import_job_create(repository_full_name=REPO)
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
    job = services.import_job_create(repository_full_name=REPO)
    original = importer.JobRun.store

    def store_then_cancel(self, page, checkpoint):
        original(self, page, checkpoint)
        services.import_job_cancel(job_id=job.pk)

    monkeypatch.setattr(importer.JobRun, "store", store_then_cancel)
    assert importer.run_import(job.pk) == ImportJob.Status.CANCELLED
    assert BugReport.objects.count() == 100
