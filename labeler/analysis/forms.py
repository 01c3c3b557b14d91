"""The analysis page's form: which figures, over which labels and groups."""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms

from labeler.analysis.study import LEVELS, REPOSITORY, axis_choices, final_label_choices
from labeler.common.scheme import Scheme


class StudyAnalysisForm(forms.Form):
    """What a study's analysis page crosses, compares and follows over time."""

    GROUP_QUERY_HELP = "More filters in the query string syntax of /api/reports/, e.g. has_fix=true"

    rows = forms.ChoiceField(label="Rows")
    columns = forms.ChoiceField(label="Columns")
    level = forms.ChoiceField(label="Count", choices=LEVELS.items())
    a_final = forms.ChoiceField(label="Final label", required=False)
    a_not = forms.BooleanField(label="All but this label", required=False)
    a_query = forms.CharField(label="Other filters", required=False, help_text=GROUP_QUERY_HELP)
    b_final = forms.ChoiceField(label="Final label", required=False)
    b_not = forms.BooleanField(label="All but this label", required=False)
    b_query = forms.CharField(label="Other filters", required=False, help_text=GROUP_QUERY_HELP)
    trend = forms.ChoiceField(label="Final label")

    def __init__(self, data, *, scheme: Scheme):
        super().__init__(data)
        axes = axis_choices(scheme)
        finals = final_label_choices(scheme)
        self.fields["rows"].choices = axes
        self.fields["columns"].choices = axes
        for name in ("a_final", "b_final"):
            self.fields[name].choices = [("", "every item of the study"), *finals]
        self.fields["trend"].choices = finals

    @staticmethod
    def defaults(scheme: Scheme) -> dict:
        """The first dimension by the second (or by repository), and its first category
        against all the others."""
        keys = [dimension.key for dimension in scheme.dimensions]
        first = next(iter(final_label_choices(scheme)), ("", ""))[0]
        return {
            "rows": keys[0] if keys else REPOSITORY,
            "columns": keys[1] if len(keys) > 1 else REPOSITORY,
            "level": "category",
            "a_final": first,
            "b_final": first,
            "b_not": True,
            "trend": first,
        }

    def group_query(self, name: str, *, study_slug: str) -> str:
        """Group `name`'s QUERY (see labeler.analysis.groups)."""
        data = self.cleaned_data
        parts = [("study", study_slug)]
        if data[f"{name}_final"]:
            parts.append(("final_not" if data[f"{name}_not"] else "final", data[f"{name}_final"]))
        more = data[f"{name}_query"].strip().lstrip("?&")
        return urlencode(parts) + (f"&{more}" if more else "")

    def trend_queries(self, *, study_slug: str) -> tuple[str, str]:
        """The trend's group (the final label) and its base (the items with a final label on
        the same dimension)."""
        label = self.cleaned_data["trend"]
        dimension = label.partition(":")[0]
        return (
            urlencode([("study", study_slug), ("final", label)]),
            urlencode([("study", study_slug), ("final", dimension)]),
        )
