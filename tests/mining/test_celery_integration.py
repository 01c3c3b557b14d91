import os
import signal
import time

import pytest

from config.celery import app
from mining import tasks
from mining.models import BugReport, Comment, ImportJob
from mining.services.import_jobs import import_job_create
from tests.mining import github_data
from tests.mining.celery_worker import purge_queue, start_worker, stop_worker

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
REPO = "octo/repo"


@pytest.fixture
def workers(fake_github):
    """Starts workers on demand; stops those still running at the end."""
    purge_queue()
    started = []

    def start():
        started.append(start_worker(fake_github.url))
        return started[-1]

    yield start
    for process in started:
        if process.poll() is None:
            stop_worker(process)


def enqueue(job_id: int) -> None:
    app.conf.task_always_eager = False
    try:
        tasks.enqueue_import(job_id)
    finally:
        app.conf.task_always_eager = True


def wait_for(condition, timeout: float, job: ImportJob) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if condition(job):
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out: {job.status} {job.reports_done} {job.error_reason}")


def wait_until(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def test_import_runs_on_a_real_worker(workers, fake_github):
    github_data.add_issues(fake_github, REPO, 180, comments=2)
    workers()
    job = import_job_create(repository_full_name=REPO)
    enqueue(job.pk)
    wait_for(lambda j: not j.is_active, 60, job)
    assert job.status == ImportJob.Status.DONE, (job.status, job.error_reason)
    assert job.celery_task_id
    assert BugReport.objects.count() == 180
    assert Comment.objects.count() == 360
    assert job.api_requests == len(fake_github.requests()) == 2


def test_worker_killed_mid_import_is_redelivered_and_resumes_from_its_checkpoint(
    workers, fake_github
):
    github_data.add_issues(fake_github, REPO, 450, comments=1)
    # The third issue page (cursor "200") is held back, so the kill lands mid-import.
    fake_github.slow_down(lambda path, variables: 60 if variables.get("after") == "200" else 0)
    first = workers()
    job = import_job_create(repository_full_name=REPO)
    enqueue(job.pk)
    wait_for(lambda j: j.reports_done >= 200, 20, job)
    # The kill lands while the worker waits for the third page, not between two steps.
    wait_until(lambda: any(v.get("after") == "200" for v in fake_github.holding), 20)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    job.refresh_from_db()
    assert (job.status, job.reports_done) == (ImportJob.Status.RUNNING, 200)
    assert job.checkpoint["cursor"] == "200"

    fake_github.slow_down(None)
    workers()
    wait_for(lambda j: not j.is_active, 25, job)
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert job.reports_done == 450
    numbers = list(BugReport.objects.values_list("number", flat=True))
    assert sorted(numbers) == list(range(1, 451))
    assert Comment.objects.count() == 450
    # Pages stored before the kill were not fetched again; the page in flight was.
    cursors = [entry.variables.get("after") for entry in fake_github.requests("graphql")]
    assert cursors.count(None) == 1 and cursors.count("100") == 1
    assert cursors.count("200") == 2
    assert sorted(cursors, key=str) == sorted([None, "100", "200", "200", "300", "400"], key=str)
