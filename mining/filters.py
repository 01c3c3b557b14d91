import django_filters
from django.db.models import Q

from mining.models import BugReport

CANDIDATE_FIELDS = {
    "performance": "is_performance_candidate",
    "accuracy": "is_accuracy_candidate",
    "non_bug": "is_non_bug",
}
# A report flagged as none of the kinds above.
NO_CANDIDATE = "none"


class ReportFilter(django_filters.FilterSet):
    repository = django_filters.CharFilter(field_name="repository__full_name", lookup_expr="iexact")
    state = django_filters.ChoiceFilter(choices=BugReport.State.choices)
    candidate = django_filters.ChoiceFilter(
        choices=[(k, k.replace("_", "-")) for k in CANDIDATE_FIELDS] + [(NO_CANDIDATE, "none")],
        method="filter_candidate",
    )
    has_fix = django_filters.BooleanFilter()
    label = django_filters.CharFilter(method="filter_label")
    created_after = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")
    closed_after = django_filters.IsoDateTimeFilter(field_name="closed_at", lookup_expr="gte")
    closed_before = django_filters.IsoDateTimeFilter(field_name="closed_at", lookup_expr="lt")
    q = django_filters.CharFilter(method="filter_text", label="Text")

    class Meta:
        model = BugReport
        fields = ["repository", "state", "candidate", "has_fix", "label"]

    def filter_candidate(self, queryset, name, value):
        if value == NO_CANDIDATE:
            return queryset.filter(**dict.fromkeys(CANDIDATE_FIELDS.values(), False))
        return queryset.filter(**{CANDIDATE_FIELDS[value]: True})

    def filter_label(self, queryset, name, value):
        return queryset.filter(labels__contains=[value])

    def filter_text(self, queryset, name, value):
        return queryset.filter(Q(title__icontains=value) | Q(body__icontains=value))
