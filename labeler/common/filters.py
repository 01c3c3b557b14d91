"""Query-string filters of the API lists."""

import django_filters
from django.db.models import F, Q

from config.api import StrictBooleanFilter
from labeler.common.permissions import user_is_staff
from labeler.models import Annotation, Assignment, Study, StudyItem, StudyMember


class StudyFilter(django_filters.FilterSet):
    codebook = django_filters.CharFilter(field_name="codebook__key", help_text="Codebook key.")
    role = django_filters.ChoiceFilter(
        choices=StudyMember.Role.choices, method="filter_role", help_text="Your role in it."
    )

    class Meta:
        model = Study
        fields = ["codebook", "role"]

    def filter_role(self, queryset, name, value):
        mine = StudyMember.objects.filter(user=self.request.user, role=value).values("study")
        return queryset.filter(pk__in=mine)


class StudyItemFilter(django_filters.FilterSet):
    study = django_filters.CharFilter(field_name="study__slug")
    complete = StrictBooleanFilter(method="filter_complete")
    adjudicated = StrictBooleanFilter(
        field_name="adjudicated_at", lookup_expr="isnull", exclude=True
    )
    skipped = StrictBooleanFilter(method="filter_skipped", help_text="Skipped by anyone.")

    class Meta:
        model = StudyItem
        fields = ["study", "batch", "complete", "adjudicated", "skipped"]

    def filter_complete(self, queryset, name, value):
        complete = {"submitted__gte": F("needed")}
        return queryset.filter(**complete) if value else queryset.exclude(**complete)

    def filter_skipped(self, queryset, name, value):
        return queryset.filter(skipped__gt=0) if value else queryset.filter(skipped=0)


class AssignmentFilter(django_filters.FilterSet):
    study = django_filters.CharFilter(field_name="study__slug")
    annotator = django_filters.CharFilter(field_name="annotator__username")

    class Meta:
        model = Assignment
        fields = ["study", "status", "annotator", "item", "skip_reason"]


class AnnotationFilter(django_filters.FilterSet):
    study = django_filters.CharFilter(field_name="item__study__slug")
    annotator = django_filters.CharFilter(
        method="filter_annotator",
        help_text="A username: your own, or anyone's in studies you lead (elsewhere annotators "
        "go by pseudonym, and a username finds nothing).",
    )
    dimension = django_filters.CharFilter(field_name="dimension__key")

    class Meta:
        model = Annotation
        fields = ["study", "item", "annotator", "dimension"]

    def filter_annotator(self, queryset, name, value):
        user = self.request.user
        named = Q()
        if not user_is_staff(user):
            led = StudyMember.objects.filter(user=user, role=StudyMember.Role.LEAD)
            named = Q(annotator=user) | Q(item__study__in=led.values("study"))
        return queryset.filter(named, annotator__username=value)
