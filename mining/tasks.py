"""Celery tasks: callers of mining/importer.py. They take ids and are safe to run twice."""

import contextlib
import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from mining import importer
from mining.github_client import RateLimitedError
from mining.models import ImportJob
from mining.services.import_jobs import import_job_update

logger = logging.getLogger(__name__)

TIME_LIMIT = settings.MINING_IMPORT_TIME_LIMIT_SECONDS


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
    soft_time_limit=TIME_LIMIT,
    time_limit=TIME_LIMIT + 120,
)
def import_repository(self, job_id: int) -> str:
    """Run or resume an import job. A rate limit longer than the inline wait reschedules
    the task after the reset (the broker's visibility timeout exceeds the longest wait); a
    soft time limit hands over to a fresh task, which resumes from the checkpoint."""
    try:
        return importer.run_import(job_id)
    except RateLimitedError as exc:
        if self.request.is_eager:
            # In-process (no broker): nothing would wake the job up, and the caller (a page
            # or the command) must not sleep for the rate limit. Say when to run it again.
            import_job_update(
                job_id=job_id,
                status=ImportJob.Status.FAILED,
                error_reason=(
                    f"rate limited until {exc.resume_at:%Y-%m-%d %H:%M} UTC and no Celery "
                    "worker is configured to wait; re-run the import after that time (it "
                    "resumes from its checkpoint)"
                ),
                finished_at=timezone.now(),
            )
            return ImportJob.Status.FAILED
        wait = (exc.resume_at - timezone.now()).total_seconds()
        countdown = min(max(wait, 1), settings.CELERY_LONGEST_WAIT_SECONDS)
        raise self.retry(countdown=countdown, exc=exc) from exc
    except SoftTimeLimitExceeded:
        logger.info("import %s reached its time limit; continuing in a new task", job_id)
        import_repository.apply_async((job_id,), countdown=1)
        return ImportJob.Status.RUNNING
    except Exception as exc:
        # Anything else (the database going away, a bug): the job must not look as if it
        # were still running. Its checkpoint stays, so a re-run resumes from it.
        logger.exception("import %s failed unexpectedly", job_id)
        with contextlib.suppress(Exception):
            import_job_update(
                job_id=job_id,
                status=ImportJob.Status.FAILED,
                error_reason=f"unexpected error: {type(exc).__name__}: {exc}"[:1000],
                finished_at=timezone.now(),
            )
        raise


def enqueue_import(job_id: int) -> None:
    """Queue the job once the transaction that created it commits."""

    def send() -> None:
        result = import_repository.apply_async((job_id,))
        import_job_update(job_id=job_id, celery_task_id=result.id or "")

    transaction.on_commit(send)
