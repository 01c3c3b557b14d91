import django_filters
from django.db.models import Q

from config.api import BooleanChoiceSelect, DateOrTimeFilter, StrictBooleanFilter
from mining.models import BugReport

CANDIDATE_FIELDS = {
    "performance": "is_performance_candidate",
    "accuracy": "is_accuracy_candidate",
    "non_bug": "is_non_bug",
}
# A report flagged as none of the kinds above.
NO_CANDIDATE = "none"


class ReportFilter(django_filters.FilterSet):
    """The reports list's filters, for the API and the reports page (labels are the page's)."""

    repository = django_filters.CharFilter(
        field_name="repository__full_name", lookup_expr="iexact", label="Repository"
    )
    state = django_filters.ChoiceFilter(
        choices=BugReport.State.choices, label="State", empty_label="any"
    )
    candidate = django_filters.ChoiceFilter(
        choices=[(k, k.replace("_", "-")) for k in CANDIDATE_FIELDS] + [(NO_CANDIDATE, "none")],
        method="filter_candidate",
        label="Candidate kind",
        empty_label="any",
    )
    has_fix = StrictBooleanFilter(
        label="Fix", widget=BooleanChoiceSelect(yes="with a linked fix", no="without a fix")
    )
    label = django_filters.CharFilter(method="filter_label", label="GitHub label")
    created_after = DateOrTimeFilter(
        field_name="created_at", lookup_expr="gte", label="Opened from"
    )
    created_before = DateOrTimeFilter(
        field_name="created_at", lookup_expr="lt", label="Opened before"
    )
    closed_after = DateOrTimeFilter(field_name="closed_at", lookup_expr="gte", label="Closed from")
    closed_before = DateOrTimeFilter(
        field_name="closed_at", lookup_expr="lt", label="Closed before"
    )
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
