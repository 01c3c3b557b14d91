"""In a real headless Chromium, with a real Celery worker: a lead uploads a labels file past
LABEL_IMPORT_BACKGROUND_ROWS, lands on its job's page, which waits for a worker, then, the
worker started, follows the job to done without a reload."""

import pytest
from playwright.sync_api import expect

from config.celery import app
from labeler.models import Assignment, LabelImportJob
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, StudyMemberFactory
from tests.mining.celery_worker import purge_queue, start_worker, stop_worker

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def to_a_worker():
    """Tasks go to the broker (not run in-process); starts a worker on demand."""
    purge_queue()
    app.conf.task_always_eager = False
    started = []

    def start():
        # No GitHub here: the worker's settings want an address all the same.
        started.append(start_worker("http://127.0.0.1:9"))

    yield start
    app.conf.task_always_eager = True
    for process in started:
        stop_worker(process)


def test_an_upload_is_followed_from_queued_to_done(page, sign_in, lead, settings, to_a_worker):
    settings.LABEL_IMPORT_BACKGROUND_ROWS = 10
    study = LabellingStudyFactory(slug="big", overlap=3)
    items = [StudyItemFactory(study=study, position=position) for position in range(4)]
    StudyMemberFactory(study=study, user=lead, role="lead")
    text = "item,annotator,dimension,value\n" + "".join(
        f"{item.report.repository.full_name}#{item.report.number},{name},root-cause,memory/leak\n"
        for item in items
        for name in ("ann", "ben", "cy")
    )
    sign_in(lead)

    page.goto("/studies/big/import/")
    page.locator("#id_file").set_input_files(
        {"name": "big.csv", "mimeType": "text/csv", "buffer": text.encode()}
    )
    page.get_by_role("button", name="Check and import").click()

    job = LabelImportJob.objects.get()
    expect(page).to_have_url(f"/studies/big/import/{job.pk}/")
    expect(page.get_by_test_id("job-state")).to_have_text("Queued")
    expect(page.get_by_test_id("job-progress-text")).to_have_text("Waiting for a worker.")
    assert not Assignment.objects.exists()

    to_a_worker()

    # A worker's start-up takes seconds on a loaded machine.
    expect(page.get_by_test_id("job-state")).to_have_text("Done", timeout=60_000)
    expect(page.get_by_test_id("job-progress-text")).to_have_text(
        "Stored 12 rows: 12 submissions, 0 new items, 3 new annotators."
    )
    progress = page.get_by_test_id("job-progress")
    expect(progress).to_have_attribute("max", "12")
    expect(progress).to_have_js_property("value", 12)
    expect(page.get_by_test_id("job-problems")).to_be_hidden()
    page.screenshot(path="test-artifacts/label-import-job.png", full_page=True)
    assert Assignment.objects.filter(status="submitted").count() == 12

    page.goto("/studies/big/")
    page.get_by_test_id("label-import-jobs").get_by_role("link", name="big.csv").click()
    expect(page.get_by_test_id("job-state")).to_have_text("Done")
