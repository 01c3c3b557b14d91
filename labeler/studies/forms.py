"""Forms of the study pages. They turn form input into the values the services take
(FrameQuery, SampleSpec, ...) and put every error next to the field it is about."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re

from django import forms
from django.core.exceptions import ValidationError
from django.forms.utils import pretty_name

from labeler.coding.services import open_dimensions_parse
from labeler.models import Study
from labeler.studies.frames import STRATA, Candidates, FrameQuery, StateFilter
from labeler.studies.sampling import (
    CONFIDENCE_MAX,
    CONFIDENCE_MIN,
    MARGIN_MAX,
    MARGIN_MIN,
    SampleMode,
    SampleSpec,
    SampleSpecError,
)
from labeler.studies.services import (
    HOLD_MINUTES_MAX,
    HOLD_MINUTES_MIN,
    HOLD_MINUTES_RANGE,
    study_kind_check,
)
from mining.models import DEFAULT_PERFORMANCE_KEYWORDS, Repository
from taxonomy.models import Codebook, Dimension

# Where a service's error key belongs on the form ("sample.size" -> the size field).
SERVICE_ERROR_FIELDS = {
    "sample.mode": "sample_mode",
    "sample.size": "sample_size",
    "sample.confidence": "confidence",
    "sample.margin": "margin",
    "sample.stratify": "stratify",
    "mode": "sample_mode",
    "size": "sample_size",
    "username": "usernames",
    "hold_timeout": "hold_minutes",
}


HAS_FIX_CHOICES = [("", "either"), ("yes", "with a linked fix"), ("no", "without a fix")]


def stratify_choices() -> list[tuple[str, str]]:
    """ "No strata", then every field a sample may be stratified by."""
    return [("", "no strata"), *((name, field.label) for name, field in STRATA.items())]


# A service's message naming another field by its key (created_from), as the API has it.
FIELD_KEY = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")


def in_form_words(form: forms.Form, message: str) -> str:
    """The message with the keys of the form's fields in it named as the page names them:
    "must not be before created_from" -> "must not be before “Opened from”"."""

    def label(match: re.Match) -> str:
        name = SERVICE_ERROR_FIELDS.get(match[0], match[0])
        field = form.fields.get(name)
        return f"“{field.label or pretty_name(name)}”" if field is not None else match[0]

    return FIELD_KEY.sub(label, message)


def add_service_errors(form: forms.Form, error: ValidationError) -> None:
    """Put a service's ValidationError on the form fields it names (or on the form), in the
    page's words."""
    if not hasattr(error, "error_dict"):
        for message in error.messages:
            form.add_error(None, in_form_words(form, message))
        return
    for key, messages in error.message_dict.items():
        # "dimension_names[1]" is about the dimension_names field.
        name = key if key in form.fields else SERVICE_ERROR_FIELDS.get(key, key.partition("[")[0])
        for message in messages:
            if name in form.fields:
                form.add_error(name, in_form_words(form, message))
            else:
                form.add_error(None, f"{key}: {in_form_words(form, message)}")


class DimensionCheckboxes(forms.CheckboxSelectMultiple):
    """Dimension checkboxes that say which codebook they belong to, so the page can show
    only the chosen codebook's dimensions."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        instance = getattr(value, "instance", None)
        if instance is not None:
            option["attrs"]["data-codebook"] = str(instance.codebook_id)
        return option


class DimensionChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Dimension) -> str:
        return f"{obj.name} ({obj.codebook.key} v{obj.codebook.version})"


class SampleFieldsMixin(forms.Form):
    """How many items to draw and how to spread them over strata."""

    sample_mode = forms.ChoiceField(
        label="Sample",
        choices=[
            (SampleMode.ALL.value, "every report of the frame"),
            (SampleMode.SIZE.value, "a fixed number of reports"),
            (SampleMode.CONFIDENCE.value, "enough for a confidence level and margin of error"),
        ],
        initial=SampleMode.ALL.value,
        widget=forms.RadioSelect,
    )
    sample_size = forms.IntegerField(label="Sample size", min_value=1, required=False)
    # Their bounds are the sampling module's, which words the error (as for the API).
    confidence = forms.FloatField(
        label="Confidence level",
        initial=0.95,
        required=False,
        widget=forms.NumberInput(
            attrs={"step": "0.01", "min": CONFIDENCE_MIN, "max": CONFIDENCE_MAX}
        ),
    )
    margin = forms.FloatField(
        label="Margin of error",
        initial=0.05,
        required=False,
        widget=forms.NumberInput(attrs={"step": "0.005", "min": MARGIN_MIN, "max": MARGIN_MAX}),
    )
    stratify = forms.ChoiceField(label="Stratify by", choices=(), required=False)
    seed = forms.IntegerField(
        label="Seed",
        required=False,
        min_value=0,
        help_text="The same frame, sample and seed always draw the same items; "
        "left empty, one is chosen at preview.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["stratify"].choices = stratify_choices()
        self.fields["stratify"].error_messages["invalid_choice"] = (
            f"%(value)s is not a field to stratify by (allowed: {', '.join(STRATA)})"
        )

    def sample_spec(self) -> SampleSpec | None:
        """The sampling specification, or None after putting the problem on its field."""
        data = self.cleaned_data
        mode = data.get("sample_mode") or SampleMode.ALL.value
        spec = {"mode": mode, "stratify": data.get("stratify") or None}
        if mode == SampleMode.SIZE:
            spec["size"] = data.get("sample_size")
        if mode == SampleMode.CONFIDENCE:
            spec["confidence"] = data.get("confidence")
            spec["margin"] = data.get("margin")
        try:
            sample = SampleSpec.from_dict(spec)
            sample.bounds_check()
            return sample
        except SampleSpecError as error:
            field, _, message = str(error).partition(": ")
            self.add_error(SERVICE_ERROR_FIELDS.get(field, field), message)
            return None

    def fingerprint(self) -> str:
        """Changes whenever an input that shapes the draw changes: a create must follow the
        preview of exactly these settings."""
        values = {
            name: self.data.getlist(name) if hasattr(self.data, "getlist") else self.data.get(name)
            for name in sorted(self.fields)
            if name not in {"previewed", "guidelines", "name", "slug", "hold_minutes"}
        }
        canonical = json.dumps(values, sort_keys=True, default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()


class StudySetupForm(SampleFieldsMixin):
    # The seed study's keyword list, which the page offers to fill in.
    seed_keywords = "\n".join(DEFAULT_PERFORMANCE_KEYWORDS)
    seed_keyword_count = len(DEFAULT_PERFORMANCE_KEYWORDS)

    name = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=100, help_text="In the study's address: /studies/<slug>/")
    kind = forms.ChoiceField(
        label="Coding",
        choices=[
            (Study.Kind.CLOSED.value, "closed: label with a codebook's categories"),
            (
                Study.Kind.OPEN.value,
                "open: annotators write their own codes (besides a codebook's categories, if "
                "one is chosen), to sort into a codebook on the study's board",
            ),
        ],
        initial=Study.Kind.CLOSED.value,
        required=False,
        widget=forms.RadioSelect,
    )
    codebook = forms.ModelChoiceField(
        queryset=Codebook.objects.order_by("key", "version"),
        required=False,
        help_text="Open coding may start without one: name its dimensions below.",
    )
    dimensions = DimensionChoiceField(
        queryset=Dimension.objects.select_related("codebook").order_by("codebook", "position"),
        required=False,
        widget=DimensionCheckboxes,
        help_text="None ticked: every dimension of the codebook.",
    )
    dimension_names = forms.CharField(
        label="Dimensions to code (open coding without a codebook)",
        required=False,
        widget=forms.TextInput(attrs={"placeholder": "root cause, symptom"}),
        help_text="Comma-separated. A codebook version of these dimensions, without "
        "categories, is made for the study.",
    )
    codes_shared = forms.BooleanField(
        label="Annotators see each other's codes while the round runs",
        required=False,
        help_text="Open coding. Off (the default) keeps each annotator's codes independent "
        "of the others', at the cost of more synonyms to merge on the board.",
    )
    repositories = forms.ModelMultipleChoiceField(
        queryset=Repository.objects.order_by("full_name"),
        to_field_name="full_name",
        required=False,
        widget=forms.CheckboxSelectMultiple(attrs={"class": "checklist"}),
        help_text="None ticked: every imported repository.",
    )
    candidates = forms.ChoiceField(
        label="Candidate kind",
        required=False,
        choices=[("", "every report"), *((c.value, c.value) for c in Candidates)],
    )
    state = forms.ChoiceField(
        choices=[(s.value, s.value) for s in StateFilter], initial=StateFilter.ALL.value
    )
    has_fix = forms.ChoiceField(label="Fix", choices=HAS_FIX_CHOICES, required=False)
    labels = forms.CharField(
        label="GitHub labels",
        required=False,
        help_text="Comma-separated; a report with any of them is in the frame.",
    )
    keywords = forms.CharField(
        label="Candidate keywords",
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="One per line; empty: each repository's own rules. With keywords, a report "
        "is a candidate by a label rule of its repository or by one of these words.",
    )
    created_from = forms.DateField(
        label="Opened from", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    created_to = forms.DateField(
        label="Opened until", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    overlap = forms.IntegerField(
        min_value=1, max_value=20, initial=2, help_text="Independent annotations each item needs."
    )
    item_order = forms.ChoiceField(
        label="Hand out",
        choices=Study.ItemOrder.choices,
        initial=Study.ItemOrder.RANDOM,
        widget=forms.RadioSelect,
        help_text="The default is the first: every annotator gets the items in the same seeded "
        "random order, so items complete one after another. With their own order each, "
        "order effects (fatigue, learning, the item just before) do not line up across "
        "annotators.",
    )
    hold_minutes = forms.IntegerField(
        label="Hold time (minutes)",
        min_value=HOLD_MINUTES_MIN,
        max_value=HOLD_MINUTES_MAX,
        initial=30,
        required=False,
        error_messages={"min_value": HOLD_MINUTES_RANGE, "max_value": HOLD_MINUTES_RANGE},
        help_text="An item held this long without a submission returns to the pool "
        f"({HOLD_MINUTES_MIN} to {HOLD_MINUTES_MAX}; empty: 30).",
    )
    guidelines = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}), required=False, help_text="Markdown."
    )
    previewed = forms.CharField(widget=forms.HiddenInput, required=False)

    field_order = [
        "name",
        "slug",
        "kind",
        "codebook",
        "dimensions",
        "dimension_names",
        "codes_shared",
        "repositories",
        "candidates",
        "state",
        "has_fix",
        "labels",
        "keywords",
        "created_from",
        "created_to",
        "sample_mode",
        "sample_size",
        "confidence",
        "margin",
        "stratify",
        "seed",
        "overlap",
        "item_order",
        "hold_minutes",
        "guidelines",
    ]

    def clean(self):
        data = super().clean()
        codebook, dimensions = data.get("codebook"), data.get("dimensions") or []
        if codebook is not None:
            foreign = [d for d in dimensions if d.codebook_id != codebook.pk]
            if foreign:
                self.add_error(
                    "dimensions",
                    f"{foreign[0].name} is a dimension of {foreign[0].codebook}, not of {codebook}",
                )
        # Checked before the preview, as the creation will check them.
        if "kind" in data:
            data["kind"] = data["kind"] or Study.Kind.CLOSED.value
            try:
                study_kind_check(
                    kind=data["kind"],
                    codebook=codebook,
                    codes_shared=data.get("codes_shared", False),
                    dimension_names=self.dimension_name_list(),
                    dimension_keys=self.dimension_keys(),
                )
                if codebook is None and self.dimension_name_list():
                    open_dimensions_parse(self.dimension_name_list(), "dimension_names")
            except ValidationError as error:
                add_service_errors(self, error)
        return data

    def dimension_name_list(self) -> list[str]:
        """The dimensions an open study without a codebook names, in order."""
        text = self.cleaned_data.get("dimension_names") or ""
        return [name.strip() for name in text.split(",") if name.strip()]

    def frame_query(self) -> FrameQuery | None:
        """The frame, or None after putting the problem on its field."""
        data = self.cleaned_data
        has_fix = {"yes": True, "no": False}.get(data.get("has_fix") or "")
        labels = [label.strip() for label in (data.get("labels") or "").split(",")]
        try:
            return FrameQuery.from_dict(
                {
                    "repositories": [r.full_name for r in data.get("repositories") or []],
                    "candidates": data.get("candidates") or None,
                    "state": data.get("state") or StateFilter.ALL.value,
                    "has_fix": has_fix,
                    "labels": [label for label in labels if label],
                    "created_from": data.get("created_from"),
                    "created_to": data.get("created_to"),
                    "keywords": self.keyword_list(),
                }
            )
        except ValidationError as error:
            add_service_errors(self, error)
            return None

    def keyword_list(self) -> list[str]:
        lines = (self.cleaned_data.get("keywords") or "").splitlines()
        return [line.strip() for line in lines if line.strip()]

    def dimension_keys(self) -> list[str]:
        return [d.key for d in self.cleaned_data.get("dimensions") or []]

    def hold_timeout(self) -> dt.timedelta | None:
        minutes = self.cleaned_data.get("hold_minutes")
        return None if minutes is None else dt.timedelta(minutes=minutes)


class BatchForm(SampleFieldsMixin):
    """Another draw from the study's frame; reports already in the study are left out."""

    previewed = forms.CharField(widget=forms.HiddenInput, required=False)
