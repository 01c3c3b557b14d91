"""Celery tasks: callers of mining/importer.py and mining/services/patches.py. They take ids and are
safe to run twice. Also the entry points that queue them (once the caller's transaction
commits): imports, and patches on demand for reports entering a study or being read."""

import contextlib
import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from mining import importer, selectors
from mining.github_client import RateLimitedError
from mining.models import ImportJob
from mining.redaction import redact
from mining.services import patches
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
                # Redacted before it is cut, so no part of a token is left to store.
                error_reason=redact(
                    f"unexpected error: {type(exc).__name__}: {exc}", settings.GITHUB_TOKENS
                )[:1000],
                finished_at=timezone.now(),
            )
        raise


def enqueue_import(job_id: int) -> None:
    """Queue the job once the transaction that created it commits."""

    def send() -> None:
        result = import_repository.apply_async((job_id,))
        import_job_update(job_id=job_id, celery_task_id=result.id or "")

    transaction.on_commit(send)


PATCH_TASK_COMMITS = 100  # commits per patch task


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
    soft_time_limit=TIME_LIMIT,
    time_limit=TIME_LIMIT + 120,
)
def commit_patches_fetch(self, commit_ids: list[int]) -> int:
    """Fetch the per-file patches of these commits (those still without). A rate limit
    reschedules the task after the reset and keeps others from claiming the commits until
    then; in-process (no worker to wait), readers are told when to look again."""
    client = importer.make_client()
    try:
        return patches.commits_patches_fetch(commit_ids=commit_ids, client=client)
    except RateLimitedError as exc:
        if self.request.is_eager:
            patches.commits_patches_delay(
                commit_ids=commit_ids,
                until=exc.resume_at,
                error=(
                    f"rate limited until {exc.resume_at:%Y-%m-%d %H:%M} UTC and no Celery "
                    "worker is configured to wait; they are asked again after that time"
                ),
            )
            return 0
        patches.commits_patches_delay(commit_ids=commit_ids, until=exc.resume_at)
        wait = (exc.resume_at - timezone.now()).total_seconds()
        countdown = min(max(wait, 1), settings.CELERY_LONGEST_WAIT_SECONDS)
        raise self.retry(countdown=countdown, exc=exc) from exc
    finally:
        client.close()


def _enqueue_patches(commit_ids: list[int]) -> None:
    def send() -> None:
        for start in range(0, len(commit_ids), PATCH_TASK_COMMITS):
            commit_patches_fetch.apply_async((commit_ids[start : start + PATCH_TASK_COMMITS],))

    if commit_ids:
        transaction.on_commit(send)


def reports_patches_request(*, report_ids: list[int]) -> int:
    """Queue the fetch of the patches these reports' fix commits lack (those not asked for
    already); returns how many commits that is. Called when reports enter a study."""
    missing = selectors.commits_without_patches(report_ids=report_ids).values_list("pk", flat=True)
    claimed = patches.commits_patches_claim(commit_ids=list(missing))
    _enqueue_patches(claimed)
    return len(claimed)


def report_patches_request(*, report_id: int) -> dict:
    """For a page about to show a report: queue the fetch of the patches its fix commits lack
    (unless asked for already), then say where they stand: {"pending": true while a fetch is
    under way, "error": why the last one failed}. Call it before reading the report: without a
    worker the fetch runs here, and the report read afterwards has them."""
    missing = list(
        selectors.commits_without_patches(report_ids=[report_id]).values_list("pk", flat=True)
    )
    if not missing:
        return patches.PatchState().as_dict()
    _enqueue_patches(patches.commits_patches_claim(commit_ids=missing))
    return patches.commits_patches_state(commit_ids=missing).as_dict()


def report_patches_state(*, report_id: int, fetch: bool) -> dict:
    """For a reader of the API: where the patches of a report's fix commits stand, with
    `missing`, how many commits' patches are not in yet. The fetch of those is queued only when
    `fetch` is asked for: a script reading a dataset must not spend a token's hourly requests
    unasked (pages ask, as they show the patches)."""
    if fetch:
        # Without a worker the fetch runs here, so what is missing is read after it.
        report_patches_request(report_id=report_id)
    missing = list(
        selectors.commits_without_patches(report_ids=[report_id]).values_list("pk", flat=True)
    )
    state = patches.commits_patches_state(commit_ids=missing) if missing else patches.PatchState()
    return {**state.as_dict(), "missing": len(missing)}
