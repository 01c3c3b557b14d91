"""The report comparison API: two groups of reports compared on the mining measures.

It lives beside the studies because a group may be a study's final labels; its address is the
reports', /api/reports/compare/.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from config.names import closest_name
from labeler.analysis.comparison import comparison_json, reports_compare
from labeler.analysis.groups import groups_prioritised, report_groups

QUERY_HELP = (
    "A group, in the query string syntax of /api/reports/ (URL-encoded as a whole), e.g. "
    "repository=pytorch/pytorch&candidate=performance&has_fix=true; a study's leads and "
    "researchers may add study=SLUG&final=DIMENSION:PATH (or final_not=DIMENSION:PATH)."
)


class CompareQuerySerializer(serializers.Serializer):
    a = serializers.CharField(allow_blank=True, trim_whitespace=False, help_text=QUERY_HELP)
    b = serializers.CharField(allow_blank=True, trim_whitespace=False, help_text=QUERY_HELP)


class GroupSerializer(serializers.Serializer):
    query = serializers.CharField()
    n = serializers.IntegerField(help_text="Reports in the group.")


class StatisticsSerializer(serializers.Serializer):
    n = serializers.IntegerField(help_text="Reports with a value for the measure.")
    median = serializers.FloatField(allow_null=True)
    mean = serializers.FloatField(allow_null=True)
    q1 = serializers.FloatField(allow_null=True)
    q3 = serializers.FloatField(allow_null=True)


class MeasureSerializer(serializers.Serializer):
    measure = serializers.CharField()
    a = StatisticsSerializer()
    b = StatisticsSerializer()
    mann_whitney_u = serializers.FloatField(allow_null=True, help_text="U of group a.")
    p_value = serializers.FloatField(allow_null=True, help_text="Two-sided.")
    cliffs_delta = serializers.FloatField(allow_null=True)
    magnitude = serializers.CharField(
        allow_null=True, help_text="negligible, small, medium or large."
    )


class PrioritisedSerializer(serializers.Serializer):
    studies = serializers.ListField(child=serializers.CharField())
    note = serializers.CharField(allow_null=True)


class ComparisonSerializer(serializers.Serializer):
    a = GroupSerializer()
    b = GroupSerializer()
    measures = MeasureSerializer(many=True)
    prioritised = PrioritisedSerializer(
        help_text="The studies a group names (study=SLUG) of which a screening model drew some "
        "items: a group of their items is no random sample of the frame, and `note` says so."
    )


# DRF's own: ?format=json picks the renderer.
PARAMETERS = ("a", "b", "format")


class ReportCompareView(APIView):
    """Two groups of imported reports compared on every measure: each group's n, median,
    mean and quartiles, the two-sided Mann-Whitney U test and Cliff's delta."""

    @extend_schema(parameters=[CompareQuerySerializer], responses=ComparisonSerializer)
    def get(self, request):
        unknown = {
            name: [
                f"unknown parameter {name!r}"
                + (
                    f"; did you mean {close!r}?"
                    if (close := closest_name(name, PARAMETERS[:2]))
                    else "; give each group's filters inside a and b, URL-encoded"
                )
            ]
            for name in request.query_params
            if name not in PARAMETERS
        }
        if unknown:
            raise ValidationError(unknown)
        form = CompareQuerySerializer(data=request.query_params)
        form.is_valid(raise_exception=True)
        a, b = report_groups(
            queries={"a": form.validated_data["a"], "b": form.validated_data["b"]},
            user=request.user,
        )
        prioritised = groups_prioritised(
            queries=[form.validated_data["a"], form.validated_data["b"]]
        )
        return Response({**comparison_json(reports_compare(a=a, b=b)), "prioritised": prioritised})
