"""The annotations API: the labels you may see."""

from __future__ import annotations

from rest_framework import serializers, viewsets

from config.api import IdLookupMixin
from labeler.api.common import SchemaSafeMixin, report_ref
from labeler.filters import AnnotationFilter
from labeler.models import Annotation
from labeler.selectors import annotation_list_visible


class AnnotationSerializer(serializers.ModelSerializer):
    study = serializers.CharField(source="item.study.slug")
    report = serializers.SerializerMethodField()
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True)
    dimension = serializers.SlugRelatedField(slug_field="key", read_only=True)

    class Meta:
        model = Annotation
        fields = ["id", "study", "item", "report", "annotator", "dimension", "values"]
        fields += ["updated_at"]

    def get_report(self, annotation: Annotation) -> str:
        return report_ref(annotation.item.report)


class AnnotationViewSet(IdLookupMixin, SchemaSafeMixin, viewsets.ReadOnlyModelViewSet):
    """Labels you may see: your own; in studies you lead, everyone's; once adjudicated, all."""

    model = Annotation
    serializer_class = AnnotationSerializer
    filterset_class = AnnotationFilter

    def visible(self, user):
        return annotation_list_visible(user=user)
