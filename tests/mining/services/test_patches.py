"""Per-file patches: none during a GraphQL import, fetched once when reports are to be read."""

import datetime as dt

import pytest
from django.utils import timezone

from mining import importer, tasks
from mining.models import BugReport, Commit, ImportJob
from mining.services import patches
from mining.services.import_jobs import import_job_create
from tests.mining import factories, github_data

pytestmark = pytest.mark.django_db
REPO = "octo/repo"
SHAS = {name: name * 40 for name in "abcde"}


def world(fake_github):
    """Six reports: #1 closed by one commit, #2 by two, #3 by a merged PR, #4 slower (a
    performance candidate) closed by a commit, #5 and #6 without a fix."""
    repo = github_data.add_issues(fake_github, REPO, 6)
    for name, additions in zip("abcde", (10, 3, 4, 20, 7), strict=True):
        github_data.add_commit(
            fake_github, REPO, SHAS[name], f"Fix {name}", additions=additions, deletions=1
        )
    repo.timeline[1] = [{"event": "closed", "commit_id": SHAS["a"]}]
    repo.timeline[2] = [
        {"event": "closed", "commit_id": SHAS["b"]},
        {"event": "referenced", "commit_id": SHAS["c"]},
    ]
    repo.commits[SHAS["c"]]["commit"]["message"] = "Part of the fix, closes #2"
    repo.closing_prs[3] = [300]
    repo.pulls[300] = {"merged": True, "merge_commit_sha": SHAS["e"], "additions": 99}
    repo.issues[4]["title"] = "Training got slower"
    repo.timeline[4] = [{"event": "closed", "commit_id": SHAS["d"]}]
    return repo


def commit_requests(fake_github) -> list[str]:
    return [entry.path for entry in fake_github.requests("rest") if "/commits/" in entry.path]


def import_job(**kwargs) -> ImportJob:
    job = import_job_create(repository_full_name=REPO, **kwargs)
    importer.run_import(job.pk)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    return job


def test_a_graphql_import_asks_for_no_patch_and_every_fix_size_is_exact(fake_github):
    world(fake_github)
    job = import_job()
    assert job.patches == ImportJob.Patches.LAZY
    assert commit_requests(fake_github) == [] and fake_github.requests("rest") == []
    assert not Commit.objects.filter(files_fetched=True).exists()
    sizes = dict(BugReport.objects.values_list("number", "fix_size"))
    # #2: its two commits (3+1, 4+1); #3: its PR's merge commit, sized by GraphQL (7+1).
    assert sizes == {1: 11, 2: 9, 3: 8, 4: 21, 5: None, 6: None}
    merge = Commit.objects.get(sha=SHAS["e"])
    assert (merge.additions, merge.deletions, merge.changed_files) == (7, 1, 1)


@pytest.mark.parametrize(
    ("mode", "fetched"),
    [(ImportJob.Patches.CANDIDATES, {"d"}), (ImportJob.Patches.ALL, set("abcde"))],
)
def test_an_import_that_asks_for_patches_fetches_them_during_the_import(fake_github, mode, fetched):
    world(fake_github)
    job = import_job(patches=mode)
    assert sorted(commit_requests(fake_github)) == [
        f"/repos/{REPO}/commits/{SHAS[name]}" for name in sorted(fetched)
    ]
    stored = Commit.objects.filter(files_fetched=True)
    assert {commit.sha[0] for commit in stored} == fetched
    assert all(commit.files[0]["patch"].startswith("@@") for commit in stored)
    assert job.api_requests == len(fake_github.requests())
    # The same sizes as without patches.
    sizes = dict(BugReport.objects.values_list("number", "fix_size"))
    assert sizes == {1: 11, 2: 9, 3: 8, 4: 21, 5: None, 6: None}


def report_ids(*numbers) -> list[int]:
    return list(BugReport.objects.filter(number__in=numbers).values_list("pk", flat=True))


def test_reports_to_be_read_get_their_patches_once(fake_github, django_capture_on_commit_callbacks):
    world(fake_github)
    import_job()
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.reports_patches_request(report_ids=report_ids(2, 3, 5)) == 3
    assert sorted(commit_requests(fake_github)) == [
        f"/repos/{REPO}/commits/{SHAS[name]}" for name in "bce"
    ]
    assert set(Commit.objects.filter(files_fetched=True).values_list("sha", flat=True)) == {
        SHAS[name] for name in "bce"
    }
    # Asked again (another study, a reader): nothing more from GitHub.
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.reports_patches_request(report_ids=report_ids(2, 3)) == 0
        state = tasks.report_patches_request(report_id=report_ids(2)[0])
    assert state == {"pending": False, "error": ""}
    assert len(commit_requests(fake_github)) == 3
    assert BugReport.objects.get(number=2).fix_size == 9


@pytest.mark.django_db(transaction=True)
def test_without_a_worker_a_reader_gets_the_patches_before_the_report_is_read(fake_github):
    world(fake_github)
    import_job()
    assert tasks.report_patches_request(report_id=report_ids(2)[0]) == {
        "pending": False,
        "error": "",
    }
    assert Commit.objects.filter(files_fetched=True).count() == 2


def test_a_reader_asking_while_a_fetch_is_under_way_asks_github_nothing_more(fake_github):
    world(fake_github)
    import_job()
    report_id = report_ids(1)[0]
    # Without the commit callbacks run, the fetch is queued and not done: under way.
    assert tasks.report_patches_request(report_id=report_id) == {"pending": True, "error": ""}
    commit = Commit.objects.get(sha=SHAS["a"])
    assert commit.files_requested_at is not None
    assert patches.commits_patches_claim(commit_ids=[commit.pk]) == []
    # A claim older than PATCH_RETRY is taken for lost: the next reader asks again.
    Commit.objects.filter(pk=commit.pk).update(
        files_requested_at=timezone.now() - patches.PATCH_RETRY - dt.timedelta(seconds=1)
    )
    assert patches.commits_patches_claim(commit_ids=[commit.pk]) == [commit.pk]


def test_a_failed_fetch_is_recorded_without_the_token_and_asked_again_later(
    fake_github, settings, django_capture_on_commit_callbacks
):
    secret = "ghp_tokenEchoedByTheProxy0123456789"
    world(fake_github)
    import_job()
    settings.GITHUB_TOKENS = [secret]
    settings.GITHUB_SERVER_ERROR_RETRIES = 1
    body = {"message": "upstream failed for {authorization}"}
    fake_github.fail_next(502, body=body, times=2, when=lambda path: "/commits/" in path)
    report_id = report_ids(1)[0]
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.report_patches_request(report_id=report_id)["pending"]
    expected = f"{REPO}: GitHub answered 502 2 times in a row: upstream failed for token [redacted]"
    commit = Commit.objects.get(sha=SHAS["a"])
    assert not commit.files_fetched and commit.files_error == expected
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.report_patches_request(report_id=report_id)["error"] == expected
    assert len(commit_requests(fake_github)) == 2  # not asked again within PATCH_RETRY
    Commit.objects.filter(pk=commit.pk).update(
        files_requested_at=timezone.now() - patches.PATCH_RETRY - dt.timedelta(seconds=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.report_patches_request(report_id=report_id)["pending"]
    assert tasks.report_patches_request(report_id=report_id) == {"pending": False, "error": ""}
    commit.refresh_from_db()
    assert commit.files_fetched and commit.files_error == ""


def test_a_commit_gone_from_github_is_not_asked_for_again(
    fake_github, django_capture_on_commit_callbacks
):
    repo = world(fake_github)
    import_job()
    del repo.commits[SHAS["a"]]
    with django_capture_on_commit_callbacks(execute=True):
        tasks.reports_patches_request(report_ids=report_ids(1))
        tasks.reports_patches_request(report_ids=report_ids(1))
    commit = Commit.objects.get(sha=SHAS["a"])
    assert commit.files_fetched and commit.files == []
    assert len(commit_requests(fake_github)) == 1


def test_a_rate_limit_without_a_worker_says_when_to_look_again(
    fake_github, django_capture_on_commit_callbacks
):
    world(fake_github)
    import_job()
    fake_github.set_budget(0, reset_in=3600)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.report_patches_request(report_id=report_ids(1)[0])
    state = tasks.report_patches_request(report_id=report_ids(1)[0])
    assert not state["pending"] and state["error"].startswith("rate limited until ")
    commit = Commit.objects.get(sha=SHAS["a"])
    # Nobody claims it before the reset.
    assert commit.files_requested_at > timezone.now() + dt.timedelta(minutes=50)
    assert patches.commits_patches_claim(commit_ids=[commit.pk]) == []


def test_the_report_page_and_api_say_patches_are_coming(fake_github, client, annotator):
    world(fake_github)
    import_job()
    report = BugReport.objects.get(number=2)
    client.force_login(annotator)
    page = client.get(f"/reports/{report.pk}/").content.decode()
    assert "Fetching the patches from GitHub" in page and "report_patches.js" in page
    detail = client.get(f"/api/reports/{report.pk}/").json()
    # The page asked for them; the API, which the page polls, says they are coming.
    assert detail["patches"] == {"pending": True, "error": "", "missing": 2}
    Commit.objects.update(files_fetched=True)
    page = client.get(f"/reports/{report.pk}/").content.decode()
    assert "Fetching the patches" not in page and "report_patches.js" not in page
    assert client.get(f"/api/reports/{report.pk}/").json()["patches"]["pending"] is False


@pytest.mark.django_db(transaction=True)
def test_reading_reports_through_the_api_asks_github_nothing_unless_asked(
    fake_github, api_as, lead
):
    world(fake_github)
    import_job()
    client = api_as(lead)
    for number in (1, 2, 3):
        answer = client.get(f"/api/reports/{report_ids(number)[0]}/").json()
        assert answer["patches"] == {
            "missing": 2 if number == 2 else 1,
            "pending": False,
            "error": "",
        }
        assert all(not link["commit"]["files"] for link in answer["fix_links"] if link["commit"])
    assert commit_requests(fake_github) == []
    assert not Commit.objects.filter(files_requested_at__isnull=False).exists()

    # Asked for (no worker: the fetch runs before the answer), the patches are in.
    answer = client.get(f"/api/reports/{report_ids(2)[0]}/", {"fetch_patches": "true"}).json()
    assert answer["patches"] == {"missing": 0, "pending": False, "error": ""}
    assert sorted(commit_requests(fake_github)) == [
        f"/repos/{REPO}/commits/{SHAS[name]}" for name in "bc"
    ]
    assert all(link["commit"]["files"][0]["patch"].startswith("@@") for link in answer["fix_links"])


def test_reading_a_report_through_the_api_refuses_an_unknown_or_bad_parameter(api_as, lead):
    report = factories.BugReportFactory()
    client = api_as(lead)
    bad = client.get(f"/api/reports/{report.pk}/", {"fetch_patches": "maybe"})
    assert bad.status_code == 400 and "fetch_patches" in bad.json()["fields"]
    misspelt = client.get(f"/api/reports/{report.pk}/", {"fetch_patch": "true"})
    assert misspelt.status_code == 400
    assert "did you mean 'fetch_patches'" in str(misspelt.json()["fields"]["fetch_patch"])
