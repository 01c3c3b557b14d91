"""The triage run's Celery task: a caller of labeler.screening.services. It takes the run's
id and is safe to run twice (a finished run is left as it is)."""

import contextlib
import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction

from labeler.models import TriageRun
from labeler.screening.services import triage_run_execute, triage_run_fail

logger = logging.getLogger(__name__)

# Tens of thousands of reports take seconds; a million, minutes.
TIME_LIMIT = 30 * 60


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=TIME_LIMIT,
    time_limit=TIME_LIMIT + 60,
)
def triage_run(self, run_id: int) -> str:
    """Train, evaluate, score and estimate; progress on the run's row (and the task's state)."""

    def report(progress: int, stage: str) -> None:
        if self.request.id and not self.request.is_eager:
            self.update_state(state="PROGRESS", meta={"progress": progress, "stage": stage})

    try:
        run = triage_run_execute(run_id=run_id, report=report)
    except SoftTimeLimitExceeded:
        triage_run_fail(run_id=run_id, error=f"stopped after {TIME_LIMIT} s: score fewer reports")
        return "failed"
    except Exception as exc:
        logger.exception("triage run %s failed unexpectedly", run_id)
        with contextlib.suppress(Exception):
            triage_run_fail(run_id=run_id, error=f"unexpected error: {type(exc).__name__}: {exc}")
        raise
    return "gone" if run is None else run.state


def enqueue_triage_run(run_id: int) -> None:
    """Queue the run once the transaction that created it commits."""

    def send() -> None:
        result = triage_run.apply_async((run_id,))
        TriageRun.objects.filter(pk=run_id).update(celery_task_id=result.id or "")

    transaction.on_commit(send)
