"""In a real headless Chromium: a lead imports a repository from the fake GitHub on a real
Celery worker, watches the progress bar, then reads an imported report."""

import re

import pytest
from playwright.sync_api import expect

from config.celery import app
from mining.models import BugReport
from tests.mining import github_data
from tests.mining.celery_worker import purge_queue, start_worker, stop_worker
from tests.mining.payloads import rest_comment

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

REPO = "octo/vision"
HOSTILE = "Training got **slower** after the upgrade.\n\n<script>window.__pwned = 1</script>"


@pytest.fixture
def github(fake_github):
    repo = github_data.add_issues(fake_github, REPO, 250)
    repo.issues[7].update(title="Training got slower", body=HOSTILE, comments=2)
    repo.comments[7] = [
        rest_comment(
            701, user="maintainer", hours=2, body="Can you try `torch==2.1`?", issue_number=7
        ),
        rest_comment(702, user="reporter", hours=5, body="Still slow.", issue_number=7),
    ]
    sha = "f" * 40
    github_data.add_commit(fake_github, REPO, sha, "Speed up conv (fixes #7)", additions=12)
    repo.timeline[7] = [{"event": "closed", "commit_id": sha}]
    repo.closing_prs[7] = [900]
    repo.pulls[900] = {"merged": True, "merge_commit_sha": sha, "additions": 12, "deletions": 2}
    # Hold the later issue pages back a little, so the page shows the import running.
    fake_github.slow_down(lambda path, variables: 1.5 if variables.get("after") else 0)
    return fake_github


@pytest.fixture
def worker(github):
    purge_queue()
    process = start_worker(github.url)
    app.conf.task_always_eager = False  # the page queues the job for the worker
    yield process
    app.conf.task_always_eager = True
    github.slow_down(None)
    stop_worker(process)


def test_lead_imports_a_repository_and_reads_a_report(page, sign_in, lead, worker, github):
    sign_in(lead)
    page.goto("/imports/")
    page.fill("#id_repository", REPO)
    page.click("text=Start import")
    expect(page.locator(".messages")).to_contain_text(f"of {REPO}: queued")

    row = page.locator("#import-jobs tbody tr").first
    # While the worker runs: running, part done, the requests counted so far.
    expect(row.locator(".status")).to_have_text("Running", timeout=15_000)
    # A busy machine (CI) may take a while to fetch and store the first page.
    expect(row.locator(".total")).to_have_text("250", timeout=15_000)
    assert int(row.locator(".done").inner_text()) < 250
    expect(row.get_by_role("button", name="Cancel")).to_be_visible()
    expect(row.get_by_role("button", name="Re-run")).to_be_hidden()
    expect(row.locator(".status")).to_have_text("Done", timeout=30_000)
    expect(row.get_by_role("button", name="Re-run")).to_be_visible()
    expect(row.get_by_role("button", name="Cancel")).to_be_hidden()
    expect(row.locator(".done")).to_have_text("250")
    expect(row.locator("progress")).to_have_attribute("value", "250")
    expect(row.locator(".requests")).to_have_text(re.compile(r"^[1-9]\d*$"))
    expect(row.locator(".remaining")).not_to_have_text("—")
    page.screenshot(path="test-artifacts/imports-page.png", full_page=True)

    report = BugReport.objects.get(repository__full_name=REPO, number=7)
    assert not [e for e in github.requests() if "/commits/" in e.path]
    sha = "f" * 40
    page.goto("/reports/")
    page.get_by_role("link", name=f"{REPO}#7", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Training got slower")
    body = page.get_by_test_id("report-body")
    expect(body.locator("strong")).to_have_text("slower")
    # The script is shown as text, never as an element, and never ran.
    expect(body).to_contain_text("<script>window.__pwned = 1</script>")
    assert body.locator("script").count() == 0
    assert page.evaluate("window.__pwned") is None
    expect(page.get_by_test_id("candidate-rules")).to_contain_text("keyword:slower")
    comments = page.locator(".comment")
    expect(comments).to_have_count(2)
    expect(comments.first).to_contain_text("maintainer")
    expect(comments.first.locator("code")).to_have_text("torch==2.1")
    links = page.get_by_test_id("fix-link")
    expect(links.filter(has_text="Closed by commit (timeline)")).to_contain_text("ffffffffff")
    expect(links.filter(has_text="Closing keyword (GitHub closing reference)")).to_contain_text(
        "#900"
    )
    expect(links.filter(has_text="Merge commit of a linked pull request")).to_have_count(1)
    expect(page.locator(".measures")).to_contain_text("14")  # fix size: 12 added, 2 deleted
    assert report.has_fix
    # The import asked for no patch; opening the report queued their fetch on the worker,
    # and the page shows them once they are in.
    patch = links.filter(has_text="Closed by commit (timeline)").locator("details summary")
    expect(patch).to_contain_text("src/conv.py", timeout=20_000)
    expect(page.locator("#patches-pending")).to_have_count(0)
    assert [e.path for e in github.requests() if "/commits/" in e.path] == [
        f"/repos/{REPO}/commits/{sha}"
    ]
    page.screenshot(path="test-artifacts/report-page.png", full_page=True)


def test_progress_row_shows_eta_rate_limit_and_a_failure_as_it_happens(page, sign_in, lead):
    import datetime as dt

    from django.utils import timezone

    from mining.models import ImportJob
    from tests.mining.factories import ImportJobFactory

    job = ImportJobFactory(
        status=ImportJob.Status.RUNNING,
        started_at=timezone.now() - dt.timedelta(seconds=40),
        reports_total=250,
        reports_done=100,
        api_requests=7,
        rate_limit_remaining=4321,
    )
    sign_in(lead)
    page.goto("/imports/")
    row = page.locator(f'#import-jobs tr[data-job="{job.pk}"]')
    # 40 s for 100 reports: about a minute for the other 150.
    expect(row.locator(".eta")).to_have_text(re.compile(r"^(6\d|7\d) s$"))
    expect(row.locator(".remaining")).to_have_text("4321")
    expect(row.locator(".requests")).to_have_text("7")
    expect(row.locator("progress")).to_have_attribute("value", "100")
    expect(row.locator("progress")).to_have_attribute("max", "250")

    ImportJob.objects.filter(pk=job.pk).update(
        status=ImportJob.Status.FAILED,
        error_reason="octo/x: GitHub answered 503 6 times in a row",
        api_requests=13,
        rate_limit_remaining=4315,
    )
    # The next poll shows the failure, its reason, and no ETA any more.
    expect(row.locator(".status")).to_contain_text("Failed", timeout=15_000)
    expect(row.locator(".reason")).to_have_text("octo/x: GitHub answered 503 6 times in a row")
    expect(row.locator(".eta")).to_have_text("—")
    expect(row.locator(".requests")).to_have_text("13")
    expect(row.locator(".remaining")).to_have_text("4315")
    expect(row.get_by_role("button", name="Re-run")).to_be_visible()
    expect(row.get_by_role("button", name="Cancel")).to_be_hidden()


def test_a_stalled_job_says_so_until_it_moves_again(page, sign_in, lead):
    import datetime as dt

    from django.utils import timezone

    from mining.models import ImportJob
    from tests.mining.factories import ImportJobFactory

    job = ImportJobFactory(status=ImportJob.Status.RUNNING, reports_total=250, reports_done=100)
    ImportJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - dt.timedelta(minutes=40))
    sign_in(lead)
    page.goto("/imports/")
    row = page.locator(f'#import-jobs tr[data-job="{job.pk}"]')
    expect(row.get_by_test_id("stalled")).to_contain_text("No progress for 40 min")
    expect(row.get_by_role("button", name="Cancel")).to_be_visible()
    page.screenshot(path="test-artifacts/imports-stalled.png", full_page=True)

    # Its worker comes back: the next poll shows the progress and drops the note.
    ImportJob.objects.filter(pk=job.pk).update(reports_done=150, updated_at=timezone.now())
    expect(row.locator(".done")).to_have_text("150", timeout=15_000)
    expect(row.get_by_test_id("stalled")).to_have_count(0)
