"""The label-import pages of a study: upload a file of labels, and follow its job."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from config.api import MAX_ID
from labeler.common.label_csv import row_count
from labeler.common.permissions import (
    study_get_for_user,
)
from labeler.common.views import require_lead
from labeler.imports.forms import LabelsImportForm
from labeler.imports.label_import import (
    AnnotationImportError,
    label_import_store,
    labels_csv_example,
)
from labeler.imports.label_import_jobs import WEB_MISSING_HINT, label_import_job_create
from labeler.imports.selectors import label_import_job_get
from labeler.imports.tasks import enqueue_label_import
from labeler.models import LabelImportJob
from labeler.studies.selectors import RECENT_JOBS, label_import_jobs_recent


@require_http_methods(["GET", "POST"])
def study_import(request, slug: str):
    """Labels made elsewhere, from a CSV upload: every problem listed by line, or all written.
    A file of more than LABEL_IMPORT_BACKGROUND_ROWS rows becomes a background job, and the
    lead is sent to its page; a smaller one is imported within the request."""
    study, access = study_get_for_user(user=request.user, slug=slug)
    require_lead(access)
    form = LabelsImportForm()
    problems: list[str] = []
    problem_count = 0
    if request.method == "POST":
        form = LabelsImportForm(request.POST, request.FILES)
        if form.is_valid():
            upload = form.cleaned_data["file"]
            data = upload.read()
            rows = row_count(data)
            # Past the cap the import refuses the file at once, naming both counts.
            if rows is not None and (
                settings.LABEL_IMPORT_BACKGROUND_ROWS < rows <= settings.LABEL_IMPORT_MAX_ROWS
            ):
                with transaction.atomic():
                    job = label_import_job_create(
                        study=study,
                        data=data,
                        file_name=upload.name,
                        rows=rows,
                        create_missing_reports=form.cleaned_data["create_missing_reports"],
                        imported_by=request.user,
                    )
                    enqueue_label_import(job.pk)
                return redirect("studies:import-job", slug=study.slug, job_id=job.pk)
            try:
                summary = label_import_store(
                    study=study,
                    data=data,
                    source=upload.name,
                    create_missing_reports=form.cleaned_data["create_missing_reports"],
                    imported_by=request.user,
                    max_rows=settings.LABEL_IMPORT_MAX_ROWS,
                    create_missing_hint=WEB_MISSING_HINT,
                )
            except AnnotationImportError as error:
                problems, problem_count = error.problems, error.count
            except ValidationError as error:
                problems = error.messages
                problem_count = len(problems)
            else:
                messages.success(request, _imported_text(summary))
                return redirect("studies:detail", slug=study.slug)
    return render(
        request,
        "labeler/study_import.html",
        {
            "study": study,
            "form": form,
            "problems": problems,
            "problem_count": problem_count,
            "example": labels_csv_example(study=study),
            "background_rows": settings.LABEL_IMPORT_BACKGROUND_ROWS,
            "jobs": label_import_jobs_recent(study=study)[:RECENT_JOBS],
        },
    )


@require_GET
def study_import_job(request, slug: str, job_id: int):
    """A background label import's page: its progress, polled from the API by
    static/js/label_import_job.js, then what it wrote or its problems by line."""
    if job_id > MAX_ID:
        raise Http404("no such label import")
    study, access = study_get_for_user(user=request.user, slug=slug)
    require_lead(access)
    try:
        job = label_import_job_get(study=study, job_id=job_id)
    except LabelImportJob.DoesNotExist:
        raise Http404("no such label import") from None
    return render(
        request,
        "labeler/label_import_job.html",
        {"study": study, "job": job, "problems": job.error.splitlines()},
    )


def _counted(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def _imported_text(summary) -> str:
    return (
        f"Imported {_counted(summary.submissions, 'submission')} "
        f"({_counted(summary.rows, 'row')}): {_counted(summary.items_added, 'new item')}, "
        f"{_counted(summary.users_created, 'new annotator')}."
    )
