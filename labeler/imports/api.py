"""API of a study's background label imports: GET /api/studies/{slug}/label-imports/{id}/,
the job's state and progress, polled by its page.

Access: the study's leads, and staff; annotators and researchers get 403, non-members 404.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.urls import path, reverse
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import MAX_ID
from labeler.common.permissions import study_get_for_user
from labeler.imports.selectors import label_import_job_get
from labeler.models import LabelImportJob

LEADS_ONLY = "only the study's leads see its label imports"


def job_id_of(value: str) -> int | None:
    """A numeric id from the path; None for anything else or a number too large."""
    if not (value.isascii() and value.isdigit()) or len(value) > len(str(MAX_ID)):
        return None
    number = int(value)
    return number if number <= MAX_ID else None


class LabelImportJobSerializer(serializers.ModelSerializer):
    study = serializers.CharField(source="study.slug")
    imported_by = serializers.CharField(source="imported_by.username", default=None)
    state_display = serializers.CharField(source="get_state_display")
    problems = serializers.SerializerMethodField()
    page = serializers.SerializerMethodField()

    class Meta:
        model = LabelImportJob
        fields = [
            "id",
            "study",
            "file_name",
            "sha256",
            "rows",
            "state",
            "state_display",
            "rows_checked",
            "rows_written",
            "submissions",
            "items_added",
            "users_created",
            "problems",
            "problem_count",
            "imported_by",
            "created_at",
            "started_at",
            "finished_at",
            "page",
        ]

    def get_problems(self, job: LabelImportJob) -> list[str]:
        """Why it failed: each problem with its file and line (empty unless failed)."""
        return job.error.splitlines()

    def get_page(self, job: LabelImportJob) -> str:
        return reverse("studies:import-job", args=[job.study.slug, job.pk])


class LabelImportJobView(APIView):
    """A background label import: its state (queued, running, done, failed), the rows checked
    and written out of `rows`, what it wrote, or its problems by line."""

    @extend_schema(responses=LabelImportJobSerializer)
    def get(self, request, slug: str, job_id: str):
        number = job_id_of(job_id)
        if number is None:
            raise exceptions.NotFound()
        study, access = study_get_for_user(user=request.user, slug=slug)
        if not access.can_lead:
            raise PermissionDenied(LEADS_ONLY)
        try:
            job = label_import_job_get(study=study, job_id=number)
        except LabelImportJob.DoesNotExist:
            raise exceptions.NotFound() from None
        job.study = study
        return Response(LabelImportJobSerializer(job).data)


urlpatterns = [
    path(
        "studies/<slug:slug>/label-imports/<str:job_id>/",
        LabelImportJobView.as_view(),
        name="study-label-import",
    ),
]
