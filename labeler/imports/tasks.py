"""The label import's Celery task, a caller of its service: it takes the job's id and is safe to
run twice. Also the entry point that queues a background label import once its job commits."""

import contextlib
import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction

from labeler.imports.label_import_jobs import (
    label_import_job_fail,
    label_import_job_run,
    label_import_job_update,
)

logger = logging.getLogger(__name__)

TIME_LIMIT = settings.LABEL_IMPORT_TIME_LIMIT_SECONDS


@shared_task(
    # The name it was queued under before the tasks moved into their features.
    name="labeler.tasks.label_import_run",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=TIME_LIMIT,
    time_limit=TIME_LIMIT + 60,
)
def label_import_run(job_id: int) -> str:
    """Run a background label import; past its time limit (LABEL_IMPORT_TIME_LIMIT_SECONDS) it
    fails, its transaction rolled back, having written nothing."""
    try:
        return label_import_job_run(job_id=job_id)
    except SoftTimeLimitExceeded:
        label_import_job_fail(
            job_id=job_id,
            error=f"stopped after {TIME_LIMIT} s (LABEL_IMPORT_TIME_LIMIT_SECONDS); nothing was "
            "written: split the file, or import it with the import_annotations command",
        )
        return "failed"
    except Exception as exc:
        # The database going away, a bug: the job must not look as if it were still running.
        logger.exception("label import %s failed unexpectedly", job_id)
        with contextlib.suppress(Exception):
            label_import_job_fail(
                job_id=job_id,
                error=f"unexpected error, nothing was written: {type(exc).__name__}: {exc}"[:1000],
            )
        raise


def enqueue_label_import(job_id: int) -> None:
    """Queue the job once the transaction that created it commits."""

    def send() -> None:
        result = label_import_run.apply_async((job_id,))
        label_import_job_update(job_id=job_id, celery_task_id=result.id or "")

    transaction.on_commit(send)
