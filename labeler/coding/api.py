"""API of open coding: `GET /api/studies/{slug}/codes/`, the codes in use (what the labelling
page offers while a code is typed), and `GET /api/studies/{slug}/saturation/`.

Annotators get only the codes they wrote themselves, unless the study shares codes while the
round runs; leads, researchers and staff who do not label in the study get every code, and
leads each code's number of uses. Saturation is for leads and researchers, annotators by
username for leads and by the study's pseudonyms for researchers, as agreement shows them.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import path
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import RejectUnknownFieldsMixin
from labeler.coding.selectors import (
    COMPLETIONS,
    COMPLETIONS_MAX,
    study_codes_in_use,
    study_saturation,
)
from labeler.common.permissions import (
    access_sees_agreement,
    access_sees_all_codes,
    access_sees_annotator_names,
    study_get_for_user,
)
from labeler.common.scheme import CODE_MAX, dimension_get, study_scheme
from labeler.models import Study

RESOLVED = "codes as the board resolves them now: after renames and merges"


def open_study_get_for_user(*, user, slug: str):
    """study_get_for_user, refusing a closed study: it has no codes."""
    study, access = study_get_for_user(user=user, slug=slug)
    if study.kind != Study.Kind.OPEN:
        raise ValidationError(
            f"study {slug!r} is a closed-coding study: it labels with its codebook and has no codes"
        )
    return study, access


class CodesQuerySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    dimension = serializers.CharField(required=False, help_text="Only this dimension's codes.")
    q = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=CODE_MAX,
        trim_whitespace=False,
        help_text="Codes whose name contains this, in any case.",
    )
    limit = serializers.IntegerField(
        required=False, default=COMPLETIONS, min_value=1, max_value=COMPLETIONS_MAX
    )


class CodeSerializer(serializers.Serializer):
    dimension = serializers.CharField()
    name = serializers.CharField()
    uses = serializers.IntegerField(required=False, help_text="Leads only.")


class CodesSerializer(serializers.Serializer):
    only_yours = serializers.BooleanField(
        help_text="True: only the codes you wrote, as you wrote them (the study does not "
        "share codes); false: every annotator's, as the board names them now."
    )
    results = CodeSerializer(many=True)


class StudyCodesView(APIView):
    """The codes in use in an open-coding study, most used first: yours only while the study
    keeps codes independent, everyone's for leads and researchers (and when the study
    shares them)."""

    @extend_schema(parameters=[CodesQuerySerializer], responses=CodesSerializer)
    def get(self, request, slug):
        study, access = open_study_get_for_user(user=request.user, slug=slug)
        query = CodesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        dimension = None
        if "dimension" in data:
            dimension = dimension_get(scheme=study_scheme(study=study), key=data["dimension"])
        everyone = access_sees_all_codes(access, shared=study.codes_shared)
        codes = study_codes_in_use(
            study=study,
            user=request.user,
            everyone=everyone,
            dimension=dimension,
            query=data["q"],
            limit=data["limit"],
        )
        with_uses = access.sees_all_labels
        results = [
            {"dimension": code.dimension, "name": code.name}
            | ({"uses": code.uses} if with_uses else {})
            for code in codes
        ]
        return Response({"only_yours": not everyone, "results": results})


class SaturationQuerySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    dimension = serializers.CharField(required=False, help_text="Only this dimension's codes.")


def saturation_data(found) -> dict:
    """labeler.coding.selectors.StudySaturation as the API gives it."""
    curves = found.saturation
    return {
        "dimension": found.dimension.key if found.dimension is not None else None,
        "resolved": RESOLVED,
        "reports": curves.reports,
        "codes": curves.codes,
        "team": list(curves.team),
        "annotators": [
            {"annotator": name, "reports": len(curve), "curve": list(curve)}
            for name, curve in curves.annotators.items()
        ],
    }


SaturationSerializer = inline_serializer(
    "Saturation",
    {
        "dimension": serializers.CharField(allow_null=True),
        "resolved": serializers.CharField(),
        "reports": serializers.IntegerField(help_text="Distinct reports coded."),
        "codes": serializers.IntegerField(help_text="Distinct codes now."),
        "team": serializers.ListField(
            child=serializers.IntegerField(),
            help_text="[n - 1]: distinct codes in the first n reports, each report where "
            "anyone first coded it, with everyone's codes.",
        ),
        "annotators": inline_serializer(
            "AnnotatorSaturation",
            {
                "annotator": serializers.CharField(),
                "reports": serializers.IntegerField(),
                "curve": serializers.ListField(
                    child=serializers.IntegerField(),
                    help_text="[n - 1]: distinct codes of theirs in their first n reports.",
                ),
            },
            many=True,
        ),
    },
)


class StudySaturationView(APIView):
    """Saturation of an open-coding study: the distinct codes after each N reports coded,
    cumulative, for the team and per annotator, with the codes as the board resolves them
    now (after merges). Leads and researchers."""

    @extend_schema(parameters=[SaturationQuerySerializer], responses=SaturationSerializer)
    def get(self, request, slug):
        study, access = open_study_get_for_user(user=request.user, slug=slug)
        if not access_sees_agreement(access):
            raise PermissionDenied("only the study's leads and researchers see its saturation")
        if not access_sees_all_codes(access, shared=study.codes_shared):
            raise PermissionDenied(
                "you code in this study, so its saturation (every annotator's codes, report by "
                "report) is hidden from you while it does not share codes"
            )
        query = SaturationQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        dimension = None
        if "dimension" in query.validated_data:
            key = query.validated_data["dimension"]
            dimension = dimension_get(scheme=study_scheme(study=study), key=key)
        found = study_saturation(
            study=study, dimension=dimension, pseudonyms=not access_sees_annotator_names(access)
        )
        return Response(saturation_data(found))


urlpatterns = [
    path("studies/<slug:slug>/codes/", StudyCodesView.as_view(), name="study-codes"),
    path("studies/<slug:slug>/saturation/", StudySaturationView.as_view(), name="study-saturation"),
]
