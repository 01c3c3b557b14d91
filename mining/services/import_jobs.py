"""Writes of import jobs: creating, cancelling and re-running them, storing their pages
with their checkpoints, and the repository's sync state when one finishes.

Locks: a job's row (SELECT ... FOR UPDATE) while it is cancelled, stores a page or
finishes, so a cancellation and a page of the same job never interleave and a cancelled job
stores nothing more; finishing also locks the repository's sync state. Creating a job locks
the repository's active jobs while it checks there are none, so it waits for a cancellation
of the same repository; two jobs created at the same instant for an idle repository are not
kept apart.
"""

import datetime as dt
from collections import Counter

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from mining import candidates, records
from mining.models import ImportJob, SyncState
from mining.services.candidate_rules import candidate_rules_ensure
from mining.services.reports import PageResult, reports_store_page
from mining.services.repositories import repository_get_or_create


def import_job_create(
    *,
    repository_full_name: str,
    api: str = ImportJob.Api.GRAPHQL,
    issue_state: str = ImportJob.IssueState.ALL,
    since: dt.datetime | None = None,
    patches: str | None = None,
    created_by=None,
) -> ImportJob:
    """A queued import job (the caller enqueues it); `created_by` is who started it (None:
    the command line). `patches`: when fix commits' patches come (ImportJob.Patches; default
    MINING_FETCH_PATCHES)."""
    where = repr(patches) if patches else f"MINING_FETCH_PATCHES={settings.MINING_FETCH_PATCHES}"
    patches = patches or settings.MINING_FETCH_PATCHES
    errors = {}
    if patches not in ImportJob.Patches.values:
        errors["patches"] = f"{where}: expected {', '.join(ImportJob.Patches.values)}"
    if api not in (ImportJob.Api.GRAPHQL, ImportJob.Api.REST):
        errors["api"] = f"{api!r}: expected graphql or rest"
    if issue_state not in ImportJob.IssueState.values:
        errors["state"] = f"{issue_state!r}: expected open, closed or all"
    if since is not None and timezone.is_naive(since):
        errors["since"] = "needs a timezone"
    if errors:
        raise ValidationError(errors)
    repository = repository_get_or_create(full_name=repository_full_name)
    with transaction.atomic():
        active = ImportJob.objects.select_for_update().filter(
            repository=repository, status__in=ImportJob.ACTIVE_STATUSES
        )
        if active.exists():
            raise ValidationError(
                {"repository": f"{repository.full_name} already has an import in progress"}
            )
        candidate_rules_ensure(repository=repository)
        SyncState.objects.get_or_create(repository=repository)
        return ImportJob.objects.create(
            repository=repository,
            api=api,
            issue_state=issue_state,
            since=since,
            patches=patches,
            created_by=created_by,
        )


@transaction.atomic
def import_job_cancel(*, job_id: int) -> ImportJob:
    job = ImportJob.objects.select_for_update().get(pk=job_id)
    if not job.is_active:
        raise ValidationError({"status": f"a {job.status} import cannot be cancelled"})
    job.status = ImportJob.Status.CANCELLED
    job.finished_at = timezone.now()
    job.error_reason = "Cancelled."
    job.save(update_fields=["status", "finished_at", "error_reason", "updated_at"])
    return job


def import_job_rerun(*, job_id: int, created_by=None) -> ImportJob:
    """A new job like the given one; it resumes nothing and imports what changed since."""
    job = ImportJob.objects.select_related("repository").get(pk=job_id)
    return import_job_create(
        repository_full_name=job.repository.full_name,
        api=job.api,
        issue_state=job.issue_state,
        since=job.since,
        patches=job.patches,
        created_by=created_by,
    )


@transaction.atomic
def import_job_store_page(
    *,
    job_id: int,
    page: records.Page,
    rules: candidates.Rules,
    checkpoint: dict,
    progress: dict,
) -> PageResult | None:
    """Store a page and advance the job's checkpoint in the same transaction.

    Returns None (and writes nothing) if the job was cancelled meanwhile.
    """
    job = ImportJob.objects.select_for_update().select_related("repository").get(pk=job_id)
    if job.status == ImportJob.Status.CANCELLED:
        return None
    result = reports_store_page(repository=job.repository, page=page, rules=rules)
    job.checkpoint = checkpoint
    job.reports_done += result.reports
    job.comments += result.comments
    job.pull_requests_skipped += result.pull_requests_skipped
    job.fix_links = dict(Counter(job.fix_links) + result.fix_links)
    job.skipped_items = (job.skipped_items + result.skipped)[-200:]
    for name, value in progress.items():
        setattr(job, name, value)
    job.save()
    return result


def import_job_update(*, job_id: int, **fields) -> None:
    """Record progress or a status change (not for cancelled jobs, which stay cancelled)."""
    ImportJob.objects.filter(pk=job_id).exclude(status=ImportJob.Status.CANCELLED).update(
        updated_at=timezone.now(), **fields
    )


@transaction.atomic
def import_job_finish(*, job_id: int, progress: dict, etags: dict, skipped: list[dict]) -> None:
    job = ImportJob.objects.select_for_update().select_related("repository").get(pk=job_id)
    if job.status == ImportJob.Status.CANCELLED:
        return
    sync, _ = SyncState.objects.select_for_update().get_or_create(repository=job.repository)
    until = job.checkpoint.get("max_updated_at")
    if until:
        until = dt.datetime.fromisoformat(until)
        if sync.issues_updated_until is None or until > sync.issues_updated_until:
            sync.issues_updated_until = until
    sync.etags = {**sync.etags, **etags}
    sync.save()
    for name, value in progress.items():
        setattr(job, name, value)
    job.skipped_items = (job.skipped_items + skipped)[-200:]
    job.status = ImportJob.Status.DONE
    job.finished_at = timezone.now()
    job.save()
