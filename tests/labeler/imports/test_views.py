"""Background label imports from the web: an upload past LABEL_IMPORT_BACKGROUND_ROWS becomes a
job, its page and its API show the progress; only the study's leads (and staff) see them."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from labeler.imports.label_import_jobs import label_import_job_create
from labeler.models import Assignment, LabelImportJob
from tests.labeler.factories import LabellingStudyFactory, UserFactory

pytestmark = pytest.mark.django_db


def labels_file(study, annotators=("carol", "dave")) -> str:
    refs = [
        f"{item.report.repository.full_name}#{item.report.number}"
        for item in study.items.select_related("report__repository").order_by("position")
    ]
    return "item,annotator,dimension,value\n" + "".join(
        f"{ref},{name},root-cause,memory/leak\n" for ref in refs for name in annotators
    )


def upload(text: str, name="big.csv"):
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


@pytest.fixture
def job(study, lead):
    data = labels_file(study).encode()
    return label_import_job_create(
        study=study, data=data, file_name="big.csv", rows=8, imported_by=lead
    )


def test_an_upload_past_the_threshold_becomes_a_job_and_its_page_shows_it_done(
    client, study, lead, settings, django_capture_on_commit_callbacks
):
    settings.LABEL_IMPORT_BACKGROUND_ROWS = 5
    client.force_login(lead)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post("/studies/perf/import/", {"file": upload(labels_file(study))})

    job = LabelImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/studies/perf/import/{job.pk}/"
    assert len(callbacks) == 1  # the task, queued once the job committed (here run in-process)
    job.refresh_from_db()
    assert (job.state, job.rows, job.rows_written, job.imported_by) == ("done", 8, 8, lead)
    assert Assignment.objects.filter(status="submitted").count() == 8
    html = client.get(response["Location"]).content.decode()
    assert 'data-testid="job-state" class="job-state">Done<' in html
    assert "Stored 8 rows: 8 submissions, 0 new items, 2 new annotators." in html
    assert 'max="8" value="8"' in html
    study_page = client.get("/studies/perf/").content.decode()
    assert f'href="/studies/perf/import/{job.pk}/">big.csv</a> · 8 rows' in study_page


def test_an_upload_at_the_threshold_is_imported_within_the_request(client, study, lead, settings):
    settings.LABEL_IMPORT_BACKGROUND_ROWS = 8
    client.force_login(lead)

    response = client.post("/studies/perf/import/", {"file": upload(labels_file(study))})

    assert response["Location"] == "/studies/perf/"
    assert not LabelImportJob.objects.exists()
    assert Assignment.objects.count() == 8


def test_an_upload_past_the_cap_is_refused_at_once_not_queued(client, study, lead, settings):
    settings.LABEL_IMPORT_BACKGROUND_ROWS = 2
    settings.LABEL_IMPORT_MAX_ROWS = 4
    client.force_login(lead)

    response = client.post("/studies/perf/import/", {"file": upload(labels_file(study))})

    assert "big.csv: 8 rows; an upload takes at most 4" in response.content.decode()
    assert not LabelImportJob.objects.exists()


def test_a_failed_job_lists_its_problems_by_line_on_its_page_and_in_the_api(
    client, study, lead, settings, django_capture_on_commit_callbacks
):
    settings.LABEL_IMPORT_BACKGROUND_ROWS = 5
    client.force_login(lead)
    text = labels_file(study).replace("memory/leak", "memory/lek", 1)

    with django_capture_on_commit_callbacks(execute=True):
        client.post("/studies/perf/import/", {"file": upload(text)})

    job = LabelImportJob.objects.get()
    assert job.state == "failed" and not Assignment.objects.exists()
    html = client.get(f"/studies/perf/import/{job.pk}/").content.decode()
    assert "Nothing was imported: 1 problem." in html
    assert "big.csv:2:" in html and "no category &#x27;memory/lek&#x27;" in html
    body = client.get(f"/api/studies/perf/label-imports/{job.pk}/").json()
    assert body["state"] == "failed" and body["problem_count"] == 1
    assert body["problems"][0].startswith("big.csv:2: ")


def test_the_api_gives_the_jobs_state_and_progress(client, job, lead):
    LabelImportJob.objects.filter(pk=job.pk).update(state="running", rows_checked=4)
    client.force_login(lead)

    body = client.get(f"/api/studies/perf/label-imports/{job.pk}/").json()

    assert body == {
        "id": job.pk,
        "study": "perf",
        "file_name": "big.csv",
        "sha256": job.sha256,
        "rows": 8,
        "state": "running",
        "state_display": "Running",
        "rows_checked": 4,
        "rows_written": 0,
        "submissions": 0,
        "items_added": 0,
        "users_created": 0,
        "problems": [],
        "problem_count": 0,
        "imported_by": "lead",
        "created_at": body["created_at"],
        "started_at": None,
        "finished_at": None,
        "page": f"/studies/perf/import/{job.pk}/",
    }


ROLES = {
    "lead": (200, 200),
    "staff": (200, 200),
    "annotator": (403, 403),
    "second_annotator": (403, 403),
    "researcher": (403, 403),
    "outsider": (404, 404),
}


@pytest.mark.parametrize(("role", "expected"), ROLES.items(), ids=list(ROLES))
def test_only_the_studys_leads_and_staff_see_a_job(request, client, job, role, expected):
    user = UserFactory(is_staff=True) if role == "staff" else request.getfixturevalue(role)
    client.force_login(user)
    api = APIClient()
    api.force_authenticate(user)

    page = client.get(f"/studies/perf/import/{job.pk}/")
    answer = api.get(f"/api/studies/perf/label-imports/{job.pk}/")

    assert (page.status_code, answer.status_code) == expected
    if expected[0] == 200:
        assert 'data-testid="import-job"' in page.content.decode()
        assert answer.json()["id"] == job.pk


def test_anonymous_signs_in_first_and_the_api_answers_401(client, job):
    page = client.get(f"/studies/perf/import/{job.pk}/")

    assert page.status_code == 302 and page["Location"].startswith("/accounts/login/?next=")
    assert APIClient().get(f"/api/studies/perf/label-imports/{job.pk}/").status_code == 401


def test_a_job_of_another_study_is_not_found(client, job, lead):
    other = LabellingStudyFactory(slug="other")
    other.members.create(user=lead, role="lead")
    client.force_login(lead)

    assert client.get(f"/studies/other/import/{job.pk}/").status_code == 404
    assert client.get(f"/api/studies/other/label-imports/{job.pk}/").status_code == 404


def test_the_study_page_lists_recent_jobs_for_leads_only(client, job, lead, annotator):
    client.force_login(lead)
    assert 'data-testid="label-import-jobs"' in client.get("/studies/perf/").content.decode()
    assert 'data-testid="label-import-jobs"' in client.get("/studies/perf/import/").content.decode()
    client.force_login(annotator)
    assert 'data-testid="label-import-jobs"' not in client.get("/studies/perf/").content.decode()
