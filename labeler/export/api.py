"""API of the export: `GET /api/studies/{slug}/export/` streams the study's dataset as CSV,
JSON or JSON Lines; `GET /api/studies/{slug}/export/datasheet/` answers its datasheet (in the
JSON export already; a side file for CSV and JSON Lines) as Markdown or JSON.

Leads and researchers of the study (and staff) export; annotators do not (403), non-members
see no study (404). Annotators' own labels come with `annotators=true`, by pseudonym; a lead
may ask for usernames with `names=real`. Whoever labels in the study, whatever else they are,
exports its final items only, as if `final_only=true` (labeler.common.permissions: blind by person).
"""

from __future__ import annotations

import json

from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.views import APIView

from config.api import RejectUnknownFieldsMixin
from labeler.common.permissions import (
    access_exports,
    access_figures_final_only,
    access_sees_annotator_names,
    study_get_for_user,
)
from labeler.export.dataset import ExportOptions
from labeler.export.pipeline import CONTENT_TYPES, FORMATS, Export


class FormatIsOurs(DefaultContentNegotiation):
    """`?format=` names the export's format here, not one of DRF's renderers: errors still
    answer in the API's JSON."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ExportQuerySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    format = serializers.ChoiceField(choices=FORMATS, default="csv")
    annotators = serializers.BooleanField(
        default=False, help_text="Each annotator's labels, notes, unsure flags and seconds."
    )
    final_only = serializers.BooleanField(default=False, help_text="Leave out items not final.")
    names = serializers.ChoiceField(
        choices=["pseudonyms", "real"],
        default="pseudonyms",
        help_text="With annotators=true: real: usernames (leads only); default: A1, A2, …",
    )

    def validate(self, data):
        if data["names"] == "real" and not data["annotators"]:
            raise serializers.ValidationError({"names": "only with annotators=true"})
        return data


class DatasheetQuerySerializer(ExportQuerySerializer):
    format = serializers.ChoiceField(choices=["md", "json"], default="md")
    export_format = serializers.ChoiceField(
        choices=FORMATS, default="csv", help_text="The format of the export it describes."
    )


def _export(request, slug, query_class) -> tuple[Export, dict]:
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access_exports(access):
        raise PermissionDenied("only the study's leads and researchers export it")
    query = query_class(data=request.query_params)
    query.is_valid(raise_exception=True)
    data = query.validated_data
    real = data["names"] == "real"
    if real and not access_sees_annotator_names(access):
        raise PermissionDenied("only the study's leads see annotators' names")
    blind = access_figures_final_only(access)
    options = ExportOptions(
        include_annotators=data["annotators"],
        final_only=data["final_only"] or blind,
        real_names=real,
        blind=blind,
    )
    fmt = data.get("export_format", data["format"])
    return Export(study=study, fmt=fmt, options=options), data


class StudyExportView(APIView):
    """The study's labelled dataset, one record per item, streamed as it is read."""

    content_negotiation_class = FormatIsOurs

    @extend_schema(parameters=[ExportQuerySerializer], responses={200: OpenApiTypes.BINARY})
    def get(self, request, slug):
        export, _ = _export(request, slug, ExportQuerySerializer)
        response = StreamingHttpResponse(export.pieces(), content_type=CONTENT_TYPES[export.fmt])
        response["Content-Disposition"] = f'attachment; filename="{export.filename()}"'
        return response


class StudyDatasheetView(APIView):
    """The datasheet of the study's export, as Markdown (`format=md`) or JSON."""

    content_negotiation_class = FormatIsOurs

    @extend_schema(parameters=[DatasheetQuerySerializer], responses={200: OpenApiTypes.BINARY})
    def get(self, request, slug):
        export, data = _export(request, slug, DatasheetQuerySerializer)
        if data["format"] == "json":
            body, content_type = json.dumps(export.datasheet, indent=2), "application/json"
        else:
            body, content_type = export.datasheet_markdown(), "text/markdown; charset=utf-8"
        response = HttpResponse(body, content_type=content_type)
        name = f"{export.study.slug}.datasheet.{data['format']}"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


urlpatterns = [
    path("studies/<slug:slug>/export/", StudyExportView.as_view(), name="study-export"),
    path(
        "studies/<slug:slug>/export/datasheet/",
        StudyDatasheetView.as_view(),
        name="study-export-datasheet",
    ),
]
