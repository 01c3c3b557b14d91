"""Reads of a study's label-import jobs."""

from __future__ import annotations

from labeler.models import (
    LabelImportJob,
    Study,
)


def label_import_job_get(*, study: Study, job_id: int) -> LabelImportJob:
    """One of the study's background label imports (DoesNotExist if it has none of that id)."""
    return (
        LabelImportJob.objects.filter(study=study)
        .select_related("imported_by")
        .defer("data")
        .get(pk=job_id)
    )
