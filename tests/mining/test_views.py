import pytest

from mining.models import FixLink, ImportJob, PullRequest, Repository
from tests.mining import factories

pytestmark = pytest.mark.django_db


def test_report_pages_render_sanitised_markdown_and_fix(client, annotator):
    report = factories.BugReportFactory(
        body="**bold** <script>alert(1)</script>", candidate_rules={"performance": ["keyword:slow"]}
    )
    factories.FixLinkFactory(report=report, reverted=True)
    client.force_login(annotator)
    listing = client.get("/reports/?q=slower")
    assert listing.status_code == 200 and str(report.number) in listing.content.decode()
    page = client.get(f"/reports/{report.pk}/").content.decode()
    assert "<strong>bold</strong>" in page and "<script>alert" not in page
    assert "Closed by commit (timeline)" in page and "reverted" in page
    assert "keyword:slow" in page
    assert client.get("/reports/999999/").status_code == 404


def test_import_page_is_for_managers_only(client, annotator, lead):
    factories.ImportJobFactory(error_reason="octo/x: Not found on GitHub (404)", status="failed")
    client.force_login(annotator)
    assert client.get("/imports/").status_code == 403
    response = client.post("/imports/start/", {"repository": "o/r"}, follow=True)
    assert "may not manage imports" in response.content.decode()
    assert not ImportJob.objects.filter(repository__full_name="o/r").exists()
    client.force_login(lead)
    page = client.get("/imports/").content.decode()
    assert "Start import" in page and "Not found on GitHub" in page


def test_candidate_rules_page_validates_saves_and_reclassifies(client, annotator, lead):
    report = factories.BugReportFactory(title="Conv kernel hangs", body="", labels=[])
    url = f"/imports/rules/{report.repository.pk}/"
    factories.ImportJobFactory(repository=report.repository)
    client.force_login(annotator)
    assert client.get(url).status_code == 403
    client.force_login(lead)
    assert url in client.get("/imports/").content.decode()
    page = client.get(url).content.decode()
    assert "memory leak" in page  # the 29 keywords of the seed study by default

    bad = client.post(url, {"performance_keywords": "slow\n\nSlow", "non_bug_labels": "x" * 101})
    assert bad.status_code == 200
    assert bad.context["form"].errors == {
        "performance_keywords": ["line 3: 'Slow' repeats line 1"],
        "non_bug_labels": ["line 1: longer than 100 characters"],
    }
    report.refresh_from_db()
    assert not report.is_performance_candidate

    response = client.post(url, {"performance_keywords": "hangs\n  conv   kernel \n"}, follow=True)
    assert "1 reports reclassified" in response.content.decode()
    report.refresh_from_db()
    assert report.repository.candidate_rules.performance_keywords == ["hangs", "conv kernel"]
    assert report.repository.candidate_rules.performance_labels == []
    assert report.candidate_rules == {"performance": ["keyword:hangs", "keyword:conv kernel"]}
    detail = client.get(f"/reports/{report.pk}/").content.decode()
    assert "keyword:hangs, keyword:conv kernel" in detail


def test_report_page_shows_measures_evidence_and_deleted_users(client, annotator):
    import datetime as dt

    from mining.services.reports import report_measures_refresh

    t0 = dt.datetime(2022, 3, 1, tzinfo=dt.UTC)
    report = factories.BugReportFactory(
        author_login="", created_at=t0, closed_at=t0 + dt.timedelta(hours=30), labels=["question"]
    )
    report.is_non_bug, report.candidate_rules = True, {"non_bug": ["label:question"]}
    report.comment_count = 4
    report.save()
    for k, login in enumerate(["bob", "carol", "bob"]):
        factories.CommentFactory(
            report=report, author_login=login, created_at=t0 + dt.timedelta(hours=2 * k + 2)
        )
    factories.CommentFactory(
        report=report, author_login="", body="ghost says hi", created_at=t0 + dt.timedelta(hours=7)
    )
    fix = factories.FixLinkFactory(report=report, detail="Closed by this commit")
    factories.FixLinkFactory(
        report=report, evidence="message_mention", strength="weak", reverted=True
    )
    report_measures_refresh(report_ids=[report.pk])
    client.force_login(annotator)
    page = client.get(f"/reports/{report.pk}/").content.decode()
    measures = page[page.index('<dl class="measures') : page.index("</dl>")]
    for term, value in [
        ("Time to fix", "30.0 h"),
        ("Fix size", "12"),  # the strong commit; the weak one is reverted
        ("First comment", "2.0 h"),
        ("Comments", "4"),
        ("Commenters", "2"),
        ("Participants", "2"),
    ]:
        assert f"<dt>{term}</dt><dd>{value}</dd>" in measures
    assert "opened by a deleted user" in page and "ghost says hi" in page
    assert "label:question" in page and "non_bug" in page
    assert "Commit message mentions the report" in page and "Closed by this commit" in page
    assert page.count('class="card fixlink reverted"') == 1 and fix.commit.sha[:10] in page


def test_import_page_cancels_and_reruns_jobs(client, lead):
    running = factories.ImportJobFactory(status=ImportJob.Status.RUNNING)
    client.force_login(lead)
    page = client.get("/imports/").content.decode()
    assert f"/imports/{running.pk}/cancel/" in page
    response = client.post(f"/imports/{running.pk}/cancel/", follow=True)
    running.refresh_from_db()
    assert running.status == ImportJob.Status.CANCELLED
    assert f"Import {running.pk} of {running.repository}: cancelled." in response.content.decode()
    # Cancelling again says why not; re-running queues a new job like it.
    again = client.post(f"/imports/{running.pk}/cancel/", follow=True).content.decode()
    assert "a cancelled import cannot be cancelled" in again
    response = client.post(f"/imports/{running.pk}/rerun/", follow=True)
    rerun = ImportJob.objects.exclude(pk=running.pk).get()
    assert (rerun.repository_id, rerun.api, rerun.status) == (
        running.repository_id,
        running.api,
        ImportJob.Status.QUEUED,
    )
    assert rerun.created_by == lead
    assert f"Import {rerun.pk} of {running.repository}: queued." in response.content.decode()


def test_report_list_page_filters_like_the_api(client, annotator):
    slow = factories.BugReportFactory(title="Conv is slow", is_performance_candidate=True)
    other = factories.BugReportFactory(title="Crash", repository=slow.repository)
    client.force_login(annotator)
    page = client.get("/reports/?candidate=performance").content.decode()
    assert f"#{slow.number}<" in page and f"#{other.number}<" not in page


def test_report_page_shows_its_dates_and_a_pull_request_no_import_fetched(client, annotator):
    report = factories.BugReportFactory()
    factories.CommentFactory(report=report)
    bare = PullRequest.objects.create(repository=report.repository, number=7)
    factories.FixLinkFactory(
        report=report,
        commit=None,
        pull_request=bare,
        target="pr:7",
        evidence=FixLink.Evidence.CLOSED_BY_PULL_REQUEST,
    )
    client.force_login(annotator)

    page = client.get(f"/reports/{report.pk}/").content.decode()

    ref = f"{report.repository.full_name}#{report.number}"
    assert f"<title>{ref} · Bug labeler</title>" in page
    assert "on 2021-01-05 12:00" in page and "closed 2021-01-20 12:00" in page
    assert "maintainer · 2021-01-06 12:00</p>" in page
    pull = f"https://github.com/{report.repository.full_name}/pull/7"
    assert f'<a href="{pull}" rel="noopener noreferrer">#7</a>  (not imported)' in page


def test_import_page_says_before_any_job_what_no_token_means(client, lead, settings):
    client.force_login(lead)
    settings.GITHUB_TOKENS = []
    page = client.get("/imports/").content.decode()
    assert "No <code>GITHUB_TOKENS</code> is set" in page and "60 requests an hour" in page
    settings.GITHUB_TOKENS = ["ghp_configured_token_value"]
    page = client.get("/imports/").content.decode()
    assert "GITHUB_TOKENS</code> is set" not in page and "ghp_configured" not in page


def test_import_page_keeps_what_was_typed_after_an_error(client, lead):
    client.force_login(lead)
    response = client.post(
        "/imports/start/", {"repository": "not a repository", "api": "rest", "state": "closed"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "is not OWNER/NAME" in page
    assert 'value="not a repository"' in page
    assert '<option value="rest" selected>' in page and '<option value="closed" selected>' in page
    assert not ImportJob.objects.exists()


def test_the_import_page_refuses_a_name_github_does_not_allow(client, lead):
    client.force_login(lead)

    response = client.post("/imports/start/", {"repository": "../..", "api": "rest"})

    assert response.status_code == 400
    assert "is not OWNER/NAME as GitHub allows" in response.content.decode()
    assert not ImportJob.objects.exists()
    assert not Repository.objects.exists()


def test_import_page_and_api_say_which_active_job_is_stalled(client, lead):
    import datetime as dt

    from django.utils import timezone

    quiet = factories.ImportJobFactory(status=ImportJob.Status.RUNNING)
    busy = factories.ImportJobFactory(status=ImportJob.Status.RUNNING)
    # updated_at is auto_now: the silence is set behind save()'s back, as a dead worker's is.
    ImportJob.objects.filter(pk=quiet.pk).update(
        updated_at=timezone.now() - dt.timedelta(minutes=40)
    )
    client.force_login(lead)
    page = client.get("/imports/").content.decode()
    assert page.count('data-testid="stalled"') == 1
    assert "No progress for 40 min: its worker may have stopped." in page
    jobs = {job["id"]: job for job in client.get("/api/imports/").json()["results"]}
    assert jobs[quiet.pk]["stalled"].startswith("No progress for 40 min")
    assert jobs[busy.pk]["stalled"] is None
