"""Writes of background label imports: a job created with its file, then run by the task
(labeler.imports.tasks.label_import_run) through label_import_store, all rows or none.

Locks: running claims the job with one UPDATE on its row (queued or running: a worker killed
mid-run leaves it running, and nothing written); the job is marked done in the transaction
that writes its labels, under its row lock (SELECT ... FOR UPDATE), so a task run twice
never writes them twice: the second finds it done and stops, or, started while the first
was writing, waits for that lock, finds it done and undoes its own writes. The import's
item locks are label_import_store's.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from labeler.imports.label_import import (
    AnnotationImportError,
    ImportSummary,
    label_import_store,
)
from labeler.models import LabelImportJob, Study

# How a user of the import page asks for stubs: the label of its box.
WEB_MISSING_HINT = (
    "tick “Create placeholders for reports not imported yet” to create it as a placeholder"
)


class _AlreadyDone(Exception):
    """Another run of the same job wrote its labels first: this run's writes are undone."""


def label_import_job_create(
    *,
    study: Study,
    data: bytes,
    file_name: str,
    rows: int,
    create_missing_reports: bool = False,
    imported_by=None,
) -> LabelImportJob:
    """A queued job holding the file (the caller enqueues it once this commits)."""
    job = LabelImportJob(
        study=study,
        imported_by=imported_by,
        file_name=file_name[-255:],
        sha256=hashlib.sha256(data).hexdigest(),
        data=data,
        rows=rows,
        create_missing_reports=create_missing_reports,
    )
    job.full_clean(exclude=["data"])
    job.save()
    return job


def label_import_job_update(*, job_id: int, **fields) -> None:
    LabelImportJob.objects.filter(pk=job_id).update(**fields)


def _fail(job_id: int, error: str, count: int = 1) -> None:
    """Mark the job failed, unless a run of it is done; its file is let go."""
    LabelImportJob.objects.filter(pk=job_id).exclude(state=LabelImportJob.State.DONE).update(
        state=LabelImportJob.State.FAILED,
        error=error,
        problem_count=count,
        finished_at=timezone.now(),
        data=b"",
    )


def label_import_job_fail(*, job_id: int, error: str) -> None:
    """A job that could not finish (its time limit, a crash): nothing of it was written."""
    _fail(job_id, error)


def label_import_job_run(*, job_id: int) -> str:
    """Run a queued job (or one whose worker died): the import, its progress on the job's
    row as rows are checked, then done with the summary, or failed with every problem by
    line and no label written. Returns the job's state; a job gone or finished is left."""
    claimed = LabelImportJob.objects.filter(
        pk=job_id, state__in=LabelImportJob.ACTIVE_STATES
    ).update(state=LabelImportJob.State.RUNNING, started_at=timezone.now(), rows_checked=0)
    if not claimed:
        job = LabelImportJob.objects.filter(pk=job_id).only("state").first()
        return job.state if job else "gone"
    job = LabelImportJob.objects.select_related("study__codebook", "imported_by").get(pk=job_id)

    def progress(checked: int) -> None:
        label_import_job_update(job_id=job_id, rows_checked=checked)

    def written(summary: ImportSummary) -> None:
        locked = LabelImportJob.objects.select_for_update().only("state").get(pk=job_id)
        if locked.state == LabelImportJob.State.DONE:
            raise _AlreadyDone
        label_import_job_update(
            job_id=job_id,
            state=LabelImportJob.State.DONE,
            rows_checked=summary.rows,
            rows_written=summary.rows,
            submissions=summary.submissions,
            items_added=summary.items_added,
            users_created=summary.users_created,
            label_import_id=summary.label_import_id,
            finished_at=timezone.now(),
            data=b"",
        )

    try:
        label_import_store(
            study=job.study,
            data=bytes(job.data),
            source=job.file_name,
            create_missing_reports=job.create_missing_reports,
            imported_by=job.imported_by,
            max_rows=settings.LABEL_IMPORT_MAX_ROWS,
            create_missing_hint=WEB_MISSING_HINT,
            progress=progress,
            written=written,
        )
    except _AlreadyDone:
        return LabelImportJob.State.DONE
    except AnnotationImportError as error:
        _fail(job_id, "\n".join(error.problems), error.count)
        return LabelImportJob.State.FAILED
    except ValidationError as error:
        _fail(job_id, "\n".join(error.messages), len(error.messages))
        return LabelImportJob.State.FAILED
    return LabelImportJob.State.DONE
