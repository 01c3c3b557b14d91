"""A triage run on a real Celery worker (a subprocess, on the test database and the Redis
broker): its progress on the run's row as it goes, then its results."""

import time

import pytest
from django.db import transaction

from config.celery import app
from labeler.models import TriageRun
from labeler.screening.services import triage_run_create
from labeler.screening.tasks import enqueue_triage_run

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_run_is_carried_out_by_the_worker_with_its_progress(worker_without_github, world):
    app.conf.task_always_eager = False
    try:
        with transaction.atomic():
            run = triage_run_create(study=world.study, dimension="root-cause", positive="memory")
            enqueue_triage_run(run.pk)
    finally:
        app.conf.task_always_eager = True
    seen = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if not seen or seen[-1] != (run.state, run.progress):
            seen.append((run.state, run.progress))
        if run.state in (TriageRun.State.DONE, TriageRun.State.FAILED):
            break
        time.sleep(0.05)
    assert run.state == TriageRun.State.DONE, (seen, run.error)
    assert run.celery_task_id
    progress = [value for _, value in seen]
    assert progress == sorted(progress) and progress[-1] == 100
    assert len(run.scores) == 240
