"""A background label import on a real Celery worker (a subprocess, on the test database
and the Redis broker), as the web server hands it over."""

import time

import pytest

from config.celery import app
from labeler.imports import tasks
from labeler.imports.label_import_jobs import label_import_job_create
from labeler.models import AnnotationVersion, Assignment, LabelImportJob
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ITEMS = 1500  # 3,000 rows: more than LABEL_IMPORT_BACKGROUND_ROWS


def enqueue(job_id: int) -> None:
    app.conf.task_always_eager = False
    try:
        tasks.enqueue_label_import(job_id)
    finally:
        app.conf.task_always_eager = True


def wait_until_finished(job: LabelImportJob, timeout: float) -> list[tuple[str, int]]:
    """The (state, rows checked) the job went through, until it finished."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if not seen or seen[-1] != (job.state, job.rows_checked):
            seen.append((job.state, job.rows_checked))
        if not job.is_active:
            return seen
        time.sleep(0.05)
    raise AssertionError(f"timed out: {seen}")


def test_a_large_upload_is_imported_by_the_worker(worker_without_github, lead):
    study = LabellingStudyFactory(slug="big", overlap=2)
    repository = RepositoryFactory(owner="octo", name="lab")
    for number in range(1, ITEMS + 1):
        StudyItemFactory(study=study, report=BugReportFactory(repository=repository, number=number))
    data = "item,annotator,dimension,value\n" + "".join(
        f"octo/lab#{number},{annotator},root-cause,memory/leak\n"
        for number in range(1, ITEMS + 1)
        for annotator in ("ann", "ben")
    )
    job = label_import_job_create(
        study=study, data=data.encode(), file_name="big.csv", rows=2 * ITEMS, imported_by=lead
    )

    enqueue(job.pk)
    seen = wait_until_finished(job, timeout=120)

    assert job.state == "done", job.error
    assert job.celery_task_id
    assert (job.rows_checked, job.rows_written, job.submissions) == (2 * ITEMS,) * 3
    assert seen[-1] == ("done", 2 * ITEMS)
    assert Assignment.objects.filter(item__study=study, status="submitted").count() == 2 * ITEMS
    assert AnnotationVersion.objects.filter(imported__job=job).count() == 2 * ITEMS
