"""The label-import page's form: the file and how to read it."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError


class LabelsImportForm(forms.Form):
    MAX_BYTES = 20 * 1024 * 1024

    file = forms.FileField(
        label="CSV file",
        help_text="A header row, then item,annotator,dimension,value[,note] per row; item is "
        "owner/name#number, value a category key path (several joined with ;).",
    )
    create_missing_reports = forms.BooleanField(
        label="Create placeholders for reports not imported yet",
        required=False,
        help_text="The next GitHub import of their repository fills them in.",
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > self.MAX_BYTES:
            raise ValidationError(
                f"{upload.name} has {upload.size // 1024 // 1024} MB; at most 20 MB at a time"
            )
        return upload
