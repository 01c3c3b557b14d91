"""API of screening: POST /api/studies/{slug}/triage/ starts a run, GET
/api/studies/{slug}/triage/{id}/ answers its progress and then {"model", "scores",
"estimate"}; POST /api/studies/{slug}/triage/{id}/batch/ adds a prioritised batch.

Access: the study's leads and staff who do not label in it. Whoever labels in the study
(annotator, whatever else they are) gets 403: no annotator sees a score, a rank or a model's
guess. Researchers get 403 (the scores are the leads' tool), non-members 404.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import MAX_ID
from labeler.common.permissions import SCREENING_LEADS_ONLY as LEADS_ONLY
from labeler.common.permissions import access_screens, study_get_for_user
from labeler.models import TriageRun
from labeler.screening.selectors import KEYWORD_FIELDS, triage_run_answer, triage_run_get
from labeler.screening.services import (
    PRIORITISED_MAX,
    PRIORITY_BY,
    prioritised_batch_add,
    triage_run_create,
)
from labeler.screening.tasks import enqueue_triage_run


def study_for_screening(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access_screens(access):
        raise PermissionDenied(LEADS_ONLY)
    return study


def run_of(study, run_id: int) -> TriageRun:
    if run_id > MAX_ID:
        raise exceptions.NotFound()
    try:
        run = triage_run_get(study=study, run_id=run_id)
    except TriageRun.DoesNotExist:
        raise exceptions.NotFound() from None
    run.study = study
    return run


def _drf(error: ValidationError) -> exceptions.ValidationError:
    return exceptions.ValidationError(error.message_dict)


class TriageInput(serializers.Serializer):
    dimension = serializers.CharField(max_length=100)
    positive = serializers.CharField(max_length=500, help_text="Key path of the positive class.")
    reports = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="The reports to score as a /api/reports/ query (repository=a/b&state=closed); "
        "empty: the study's frame.",
    )
    keyword_rule = serializers.ChoiceField(
        choices=list(KEYWORD_FIELDS),
        required=False,
        allow_null=True,
        default=None,
        help_text="The candidate flag to compare with; default the frame's, or any.",
    )

    threshold = serializers.FloatField(
        required=False,
        default=0.5,
        help_text="Score from which the model says positive, for its precision and recall.",
    )


class BatchInput(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=PRIORITISED_MAX)
    by = serializers.ChoiceField(choices=list(PRIORITY_BY), default="score")


class TriageView(APIView):
    """Start a triage run: a model trained on the study's final labels of `dimension`,
    `positive` (and what lies under it) being the positive class. 202 with the run, which a
    Celery task carries out; GET its address for progress and results."""

    @extend_schema(request=TriageInput, responses={202: dict})
    def post(self, request, slug: str):
        study = study_for_screening(request, slug)
        data = TriageInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            run = triage_run_create(study=study, created_by=request.user, **data.validated_data)
        except ValidationError as error:
            raise _drf(error) from None
        enqueue_triage_run(run.pk)
        run.study = study
        return Response(triage_run_answer(run=run), status=status.HTTP_202_ACCEPTED)


class TriageRunView(APIView):
    """A triage run: state and progress; once done, the model's cross-validated quality beside
    the keyword rule's, the scores (highest first) and the estimates, each with its method."""

    @extend_schema(
        parameters=[OpenApiParameter("limit", int, description="Only the first N scores.")],
        responses=dict,
    )
    def get(self, request, slug: str, run_id: int):
        study = study_for_screening(request, slug)
        run = run_of(study, run_id)
        limit = request.query_params.get("limit")
        if limit is not None and not (limit.isascii() and limit.isdigit()):
            raise exceptions.ValidationError({"limit": "a whole number of scores"})
        return Response(triage_run_answer(run=run, limit=int(limit) if limit is not None else None))


class TriageBatchView(APIView):
    """Add a prioritised batch: the `count` reports not yet in the study with the highest
    scores (`by` score) or closest to 0.5 (`by` uncertainty), marked non-random."""

    @extend_schema(request=BatchInput, responses={201: dict})
    def post(self, request, slug: str, run_id: int):
        study = study_for_screening(request, slug)
        run = run_of(study, run_id)
        data = BatchInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            batch = prioritised_batch_add(
                study=study, run=run, created_by=request.user, **data.validated_data
            )
        except ValidationError as error:
            raise _drf(error) from None
        return Response(
            {
                "number": batch.number,
                "sample_size": batch.sample_size,
                "prioritised": batch.prioritised,
            },
            status=status.HTTP_201_CREATED,
        )


urlpatterns = [
    path("studies/<slug:slug>/triage/", TriageView.as_view(), name="study-triage"),
    path(
        "studies/<slug:slug>/triage/<int:run_id>/",
        TriageRunView.as_view(),
        name="study-triage-run",
    ),
    path(
        "studies/<slug:slug>/triage/<int:run_id>/batch/",
        TriageBatchView.as_view(),
        name="study-triage-batch",
    ),
]
