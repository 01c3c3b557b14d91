import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from labeler.celery import app
from mining import services, tasks
from mining.models import BugReport, Comment, ImportJob
from tests.mining import github_data

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def worker(fake_github):
    database = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.mining.worker_settings",
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
        ),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "GITHUB_API_URL": fake_github.url,
    }
    app.control.purge()
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "celery"), "-A", "labeler", "worker", "-P", "solo",
         "--loglevel=warning", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    yield process
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_import_runs_on_a_real_worker(worker, fake_github):
    github_data.add_issues(fake_github, "octo/repo", 180, comments=2)
    job = services.import_job_create(repository_full_name="octo/repo")
    app.conf.task_always_eager = False
    try:
        tasks.enqueue_import(job.pk)
    finally:
        app.conf.task_always_eager = True
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if not job.is_active:
            break
        time.sleep(0.3)
    assert job.status == ImportJob.Status.DONE, (job.status, job.error_reason)
    assert job.celery_task_id
    assert BugReport.objects.count() == 180
    assert Comment.objects.count() == 360
    assert job.api_requests == len(fake_github.requests()) == 2
