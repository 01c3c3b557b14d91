"""The items API: the items of the studies you lead, with their counts; leads set priorities;
an item's history."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from config.api import IdLookupMixin
from labeler.common.api import SchemaSafeMixin
from labeler.common.filters import StudyItemFilter
from labeler.common.names import annotator_namer, names_as_labelled, report_ref
from labeler.common.permissions import study_access
from labeler.common.scheme import study_scheme
from labeler.items.selectors import item_history, study_item_list_member, study_item_list_visible
from labeler.models import AnnotationVersion, LabelImport, StudyItem
from labeler.studies.services import study_item_priority_set


class ItemSerializer(serializers.ModelSerializer):
    study = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    report = serializers.SerializerMethodField()
    title = serializers.CharField(source="report.title", read_only=True)
    skipped = serializers.IntegerField(read_only=True)

    class Meta:
        model = StudyItem
        fields = [
            "id",
            "study",
            "report",
            "title",
            "batch",
            "position",
            "priority",
            "needed",
            "claimed",
            "submitted",
            "skipped",
            "adjudicated_at",
        ]
        read_only_fields = [f for f in fields if f != "priority"]

    def get_report(self, item: StudyItem) -> str:
        return report_ref(item.report)


class LabelImportSerializer(serializers.ModelSerializer):
    imported_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = LabelImport
        fields = ["imported_by", "file_name", "sha256", "created_at"]


class CategoryNameSerializer(serializers.Serializer):
    path = serializers.CharField()
    name = serializers.CharField()


class NamedLabelsSerializer(serializers.Serializer):
    dimension = serializers.CharField()
    dimension_name = serializers.CharField()
    categories = CategoryNameSerializer(many=True)


class VersionSerializer(serializers.ModelSerializer):
    annotator = serializers.SerializerMethodField(
        help_text="A username for the study's leads and for your own; otherwise a pseudonym "
        "(A1, A2, …) as the export gives it."
    )
    imported = LabelImportSerializer(
        read_only=True, allow_null=True, help_text="The file it came from; null: made in the app."
    )

    named = serializers.SerializerMethodField(
        help_text="The labels as named when they were written: per dimension (codebook "
        "order) its name and each category's path and name, from the codebook version the "
        "labels were made against, so a later revision does not rename the past."
    )

    class Meta:
        model = AnnotationVersion
        fields = ["number", "annotator", "created_at", "labels", "named", "codes", "changes"]
        fields += ["note", "unsure", "seconds", "imported"]

    def get_annotator(self, version: AnnotationVersion) -> str:
        return self.context["name_of"](version.annotator)

    @extend_schema_field(NamedLabelsSerializer(many=True))
    def get_named(self, version: AnnotationVersion) -> list[dict]:
        names = self.context["names_of"][version.pk]
        return [
            {
                "dimension": key,
                "dimension_name": names.dimension_name(key),
                "categories": [
                    {"path": path, "name": name} for name, path in names.values(key, paths)
                ],
            }
            for key, paths in names.ordered(version.labels)
        ]


class StudyItemViewSet(
    IdLookupMixin,
    SchemaSafeMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Items of the studies you lead, with their counts; leads set priorities."""

    model = StudyItem
    serializer_class = ItemSerializer
    filterset_class = StudyItemFilter
    http_method_names = ["get", "patch", "head", "options"]

    def visible(self, user):
        return study_item_list_visible(user=user)

    def perform_update(self, serializer):
        if "priority" not in serializer.validated_data:
            raise ValidationError({"priority": "give the item's new priority"})
        study_item_priority_set(
            item=serializer.instance, priority=serializer.validated_data["priority"]
        )

    @extend_schema(responses=VersionSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def history(self, request, pk=None):
        """Every submission and revision on the item you may see (blind until adjudicated)."""
        item = study_item_list_member(user=request.user).filter(pk=pk).first()
        if item is None:
            raise Http404("no such item")
        access = study_access(user=request.user, study=item.study)
        versions = item_history(item=item, user=request.user, access=access)
        versions = list(versions)
        context = {
            "name_of": annotator_namer(study=item.study, user=request.user, access=access),
            "names_of": names_as_labelled(
                study=item.study, scheme=study_scheme(study=item.study), versions=versions
            ),
        }
        return Response(VersionSerializer(versions, many=True, context=context).data)
