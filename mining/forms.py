"""Forms of the mining pages: they turn form input into what the services take."""

from django import forms
from django.core.exceptions import ValidationError

from mining.candidates import RULE_FIELDS

HELP = "One per line. Labels match exactly (ignoring case); keywords on word boundaries."


class CandidateRulesForm(forms.Form):
    performance_labels = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False)
    performance_keywords = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 10}), required=False
    )
    accuracy_labels = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False)
    accuracy_keywords = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}), required=False)
    non_bug_labels = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}), required=False)

    @classmethod
    def initial_from(cls, rules) -> dict[str, str]:
        return {name: "\n".join(getattr(rules, name)) for name in RULE_FIELDS}

    def values(self) -> dict[str, list[str]]:
        """The rule lists, one entry per line."""
        return {name: self.cleaned_data[name].splitlines() for name in RULE_FIELDS}

    def add_service_errors(self, error: ValidationError) -> None:
        for name, messages in error.message_dict.items():
            for message in messages:
                self.add_error(
                    name if name in self.fields else None, message.replace("entry", "line")
                )
