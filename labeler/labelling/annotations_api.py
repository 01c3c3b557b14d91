"""The annotations API: the labels you may see."""

from __future__ import annotations

from rest_framework import serializers, viewsets

from config.api import IdLookupMixin
from labeler.common.api import SchemaSafeMixin
from labeler.common.filters import AnnotationFilter
from labeler.common.names import annotator_namer, report_ref
from labeler.common.permissions import study_access
from labeler.labelling.selectors import annotation_list_visible
from labeler.models import Annotation, Study


class AnnotationSerializer(serializers.ModelSerializer):
    study = serializers.CharField(source="item.study.slug")
    report = serializers.SerializerMethodField()
    annotator = serializers.SerializerMethodField(
        help_text="A username in studies you lead and for your own labels; otherwise the "
        "study's pseudonym (A1, A2, …) as the export gives it."
    )
    dimension = serializers.SlugRelatedField(slug_field="key", read_only=True)

    class Meta:
        model = Annotation
        fields = ["id", "study", "item", "report", "annotator", "dimension", "values"]
        fields += ["updated_at"]

    def get_report(self, annotation: Annotation) -> str:
        return report_ref(annotation.item.report)

    def get_annotator(self, annotation: Annotation) -> str:
        return self.context["names"].of(annotation.item.study, annotation.annotator)


class AnnotatorNames:
    """Annotators named as the requesting user reads them, study by study
    (labeler.common.names.annotator_namer), each study's names looked up once."""

    def __init__(self, user):
        self.user = user
        self.namers = {}

    def of(self, study: Study, annotator) -> str:
        if study.pk not in self.namers:
            access = study_access(user=self.user, study=study)
            self.namers[study.pk] = annotator_namer(study=study, user=self.user, access=access)
        return self.namers[study.pk](annotator)


class AnnotationViewSet(IdLookupMixin, SchemaSafeMixin, viewsets.ReadOnlyModelViewSet):
    """Labels you may see: your own; in studies you lead, everyone's; once adjudicated, all."""

    model = Annotation
    serializer_class = AnnotationSerializer
    filterset_class = AnnotationFilter

    def visible(self, user):
        return annotation_list_visible(user=user)

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "names": AnnotatorNames(self.request.user)}
