"""API shapes of studies, items, assignments and labels. Writes go through the services."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from config.api import RejectUnknownFieldsMixin
from labeler.frames import Candidates, StateFilter
from labeler.labels import FROZEN_SCHEMES_KEPT, Scheme
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    SkipReason,
    Study,
    StudyItem,
    StudyMember,
)
from labeler.sampling import SampleMode
from labeler.services.studies import HOLD_MINUTES_MAX, HOLD_MINUTES_MIN, HOLD_MINUTES_RANGE
from mining.models import BugReport, Comment
from taxonomy.models import Category, Dimension


class StudySerializer(serializers.ModelSerializer):
    codebook = serializers.SerializerMethodField()
    dimensions = serializers.SlugRelatedField(slug_field="key", many=True, read_only=True)
    hold_timeout_seconds = serializers.SerializerMethodField()

    class Meta:
        model = Study
        fields = [
            "slug",
            "name",
            "codebook",
            "dimensions",
            "overlap",
            "guidelines",
            "item_order",
            "hold_timeout_seconds",
            "frame",
            "sampling",
            "seed",
            "created_at",
        ]

    @extend_schema_field(
        {"type": "object", "properties": {"key": {"type": "string"}, "version": {"type": "string"}}}
    )
    def get_codebook(self, study: Study) -> dict:
        return {"key": study.codebook.key, "version": study.codebook.version}

    def get_hold_timeout_seconds(self, study: Study) -> int:
        return int(study.hold_timeout.total_seconds())


@extend_schema_field({"type": "string", "enum": list(StateFilter)})
class StateFilterField(serializers.ChoiceField):
    """Its schema is given here: the name "state" belongs to the report's own state enum."""

    def __init__(self, **kwargs):
        super().__init__(choices=list(StateFilter), **kwargs)


class FrameSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    repositories = serializers.ListField(child=serializers.CharField(), required=False)
    candidates = serializers.ChoiceField(choices=list(Candidates), required=False, allow_null=True)
    state = StateFilterField(default=StateFilter.ALL)
    has_fix = serializers.BooleanField(required=False, allow_null=True, default=None)
    labels = serializers.ListField(child=serializers.CharField(), required=False)
    created_from = serializers.DateField(required=False, allow_null=True)
    created_to = serializers.DateField(required=False, allow_null=True)
    keywords = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Candidate keywords replacing each repository's own (label rules still "
        "count); without `candidates`, the reports mentioning any of them.",
    )


class SampleSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    mode = serializers.ChoiceField(choices=list(SampleMode), default=SampleMode.ALL)
    size = serializers.IntegerField(min_value=1, required=False, allow_null=True)
    confidence = serializers.FloatField(required=False, allow_null=True)
    margin = serializers.FloatField(required=False, allow_null=True)
    stratify = serializers.CharField(required=False, allow_null=True, allow_blank=True)


class SamplePreviewSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    # The rest of a create body: the same body previews, then creates.
    ignored_fields = (
        "slug",
        "name",
        "codebook",
        "codebook_version",
        "dimensions",
        "overlap",
        "guidelines",
        "item_order",
        "hold_minutes",
    )
    frame = FrameSerializer(required=False, default=dict)
    sample = SampleSerializer(required=False, default=dict)
    seed = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=2**62,
        help_text="The draw's seed; the preview picks one when absent. Create with the same "
        "seed to draw exactly what the preview shows.",
    )


class StudyCreateSerializer(SamplePreviewSerializer):
    slug = serializers.SlugField(max_length=100)
    name = serializers.CharField(max_length=200)
    codebook = serializers.SlugField(help_text="Codebook key.")
    codebook_version = serializers.CharField(
        required=False, help_text="Defaults to the newest version."
    )
    dimensions = serializers.ListField(
        child=serializers.SlugField(), required=False, help_text="Defaults to all."
    )
    overlap = serializers.IntegerField(default=2, min_value=1, max_value=20)
    guidelines = serializers.CharField(required=False, allow_blank=True, default="")
    item_order = serializers.ChoiceField(
        choices=Study.ItemOrder.choices, default=Study.ItemOrder.RANDOM
    )
    hold_minutes = serializers.IntegerField(
        required=False,
        min_value=HOLD_MINUTES_MIN,
        max_value=HOLD_MINUTES_MAX,
        error_messages={"min_value": HOLD_MINUTES_RANGE, "max_value": HOLD_MINUTES_RANGE},
        help_text="A held item nobody submits returns to the pool after this many minutes "
        f"({HOLD_MINUTES_MIN} to {HOLD_MINUTES_MAX}); default 30.",
    )


class BatchCreateSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    frame = FrameSerializer(required=False, help_text="Defaults to the study's frame.")
    sample = SampleSerializer(required=False, help_text="Defaults to the study's sampling.")
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**62)


class StratumSerializer(serializers.Serializer):
    key = serializers.CharField(allow_null=True)
    population = serializers.IntegerField()
    sample = serializers.IntegerField()


class SamplePlanSerializer(serializers.Serializer):
    frame_size = serializers.IntegerField()
    sample_size = serializers.IntegerField()
    strata = StratumSerializer(many=True)
    warnings = serializers.ListField(
        child=serializers.CharField(),
        help_text="What the draw does that was not asked for, or why it would draw nothing, "
        "e.g. 'sample capped at the frame size: 43 (asked for 1000)'.",
    )


class SamplePreviewResultSerializer(SamplePlanSerializer):
    seed = serializers.IntegerField()


class BatchSerializer(SamplePlanSerializer):
    number = serializers.IntegerField()
    seed = serializers.IntegerField()


class StudyCreatedSerializer(serializers.Serializer):
    study = StudySerializer()
    batch = BatchSerializer()


class SchemeCategorySerializer(serializers.ModelSerializer):
    parent = serializers.SerializerMethodField()

    class Meta:
        model = Category
        fields = ["key", "path", "name", "parent", "depth", "definition", "include", "exclude"]
        fields += ["examples"]

    def get_parent(self, category: Category) -> str | None:
        return category.path.rpartition("/")[0] or None


class SchemeDimensionSerializer(serializers.ModelSerializer):
    categories = serializers.SerializerMethodField()

    class Meta:
        model = Dimension
        fields = ["key", "name", "help_text", "multiple", "required", "leaf_only", "categories"]

    @extend_schema_field(SchemeCategorySerializer(many=True))
    def get_categories(self, dimension: Dimension) -> list:
        scheme = self.context["scheme"]
        return SchemeCategorySerializer(scheme.categories[dimension.pk], many=True).data


class ReportCommentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Comment
        fields = ["author_login", "body", "created_at"]


class ReportSerializer(serializers.ModelSerializer):
    repository = serializers.CharField(source="repository.full_name")
    comments = ReportCommentSerializer(many=True, read_only=True)

    class Meta:
        model = BugReport
        fields = [
            "id",
            "repository",
            "number",
            "title",
            "body",
            "state",
            "labels",
            "author_login",
            "created_at",
            "closed_at",
            "has_fix",
            "html_url",
            "comments",
        ]


def report_ref(report: BugReport) -> str:
    return f"{report.repository.full_name}#{report.number}"


class AssignmentSerializer(serializers.ModelSerializer):
    study = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True)
    report = serializers.SerializerMethodField()
    skip_reason = serializers.CharField(
        read_only=True, help_text=f"Empty, or one of: {', '.join(SkipReason.values)}."
    )
    labels = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = [
            "id",
            "study",
            "item",
            "report",
            "annotator",
            "status",
            "held_at",
            "submitted_at",
            "skip_reason",
            "note",
            "unsure",
            "seconds",
            "version",
            "labels",
        ]

    def get_report(self, assignment: Assignment) -> str:
        return report_ref(assignment.item.report)

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_labels(self, assignment: Assignment) -> dict:
        return {a.dimension.key: a.values for a in assignment.annotations.all()}


class NextItemSerializer(serializers.Serializer):
    """An item to label: the assignment to submit to, the report, and what to label."""

    # The API schema's description of what next_item_json writes.
    assignment = serializers.IntegerField(source="pk")
    item = serializers.IntegerField(source="item_id")
    status = serializers.CharField()
    held_at = serializers.DateTimeField()
    report = ReportSerializer(source="item.report")
    dimensions = SchemeDimensionSerializer(many=True, read_only=True)


# A frozen scheme never changes, so neither does its JSON: encoded once per process.
_SCHEME_JSON: dict[tuple, bytes] = {}


def scheme_json(scheme: Scheme) -> bytes:
    """The scheme's dimensions with their categories, as the API shows them, in JSON."""
    if scheme.key is not None and scheme.key in _SCHEME_JSON:
        return _SCHEME_JSON[scheme.key]
    data = SchemeDimensionSerializer(scheme.dimensions, many=True, context={"scheme": scheme}).data
    encoded = JSONRenderer().render(data)
    if scheme.key is not None:
        if len(_SCHEME_JSON) >= FROZEN_SCHEMES_KEPT:
            _SCHEME_JSON.clear()
        _SCHEME_JSON[scheme.key] = encoded
    return encoded


# The API's form of a date and time. Every request of `next` and `submit` answers through
# the plain functions below rather than a serializer: building one costs more than the rest
# of the answer. tests/labeler/test_serializers.py holds them to the serializers' output.
api_datetime = serializers.DateTimeField().to_representation


def next_item_json(assignment: Assignment, report: dict, scheme: Scheme) -> bytes:
    """NextItemSerializer's JSON, with the scheme's ready JSON spliced in.

    `report` is the report as labeler.selectors.report_for_labelling gives it.
    """
    held = {
        "assignment": assignment.pk,
        "item": assignment.item_id,
        "status": assignment.status,
        "held_at": api_datetime(assignment.held_at),
        "report": {
            **report,
            "created_at": api_datetime(report["created_at"]),
            "closed_at": api_datetime(report["closed_at"]),
            "comments": [
                {**comment, "created_at": api_datetime(comment["created_at"])}
                for comment in report["comments"]
            ],
        },
    }
    head = JSONRenderer().render(held)
    return head[:-1] + b',"dimensions":' + scheme_json(scheme) + b"}"


class PreviousQuerySerializer(serializers.Serializer):
    before = serializers.IntegerField(
        required=False, min_value=1, help_text="An assignment of yours; default: your latest."
    )


class SubmissionSerializer(serializers.ModelSerializer):
    """What a submit or skip stored, without the report: the caller has it already."""

    labels = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = ["id", "item", "status", "submitted_at", "skip_reason", "note", "unsure"]
        fields += ["seconds", "version", "labels"]

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_labels(self, assignment: Assignment) -> dict:
        return self.context["labels"]


def submission_data(assignment: Assignment, labels: dict) -> dict:
    """SubmissionSerializer's output (see api_datetime)."""
    return {
        "id": assignment.pk,
        "item": assignment.item_id,
        "status": assignment.status,
        "submitted_at": api_datetime(assignment.submitted_at),
        "skip_reason": assignment.skip_reason,
        "note": assignment.note,
        "unsure": assignment.unsure,
        "seconds": assignment.seconds,
        "version": assignment.version,
        "labels": labels,
    }


class SubmitSerializer(serializers.Serializer):
    labels = serializers.DictField(
        child=serializers.JSONField(),
        help_text="{dimension key: category key path, or a list of them for multi-select}",
    )
    # Left out: "" and false on a first submission; a revision keeps what it had.
    note = serializers.CharField(required=False, allow_blank=True, max_length=10_000)
    unsure = serializers.BooleanField(required=False)
    seconds = serializers.IntegerField(required=False, default=0, min_value=0, max_value=86_400)


@extend_schema_field({"type": "string", "enum": SkipReason.values})
class SkipReasonField(serializers.ChoiceField):
    """Its schema is given here: the assignment filter already names the SkipReason enum."""

    def __init__(self, **kwargs):
        super().__init__(choices=SkipReason.choices, **kwargs)


class SkipSerializer(serializers.Serializer):
    reason = SkipReasonField()
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=10_000)


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


class VersionSerializer(serializers.ModelSerializer):
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = AnnotationVersion
        fields = ["number", "annotator", "created_at", "labels", "changes", "note", "unsure"]
        fields += ["seconds"]


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


class AnnotatorProgressSerializer(serializers.Serializer):
    username = serializers.CharField()
    held = serializers.IntegerField()
    submitted = serializers.IntegerField()
    skipped = serializers.IntegerField()
    seconds = serializers.IntegerField()


class ProgressSerializer(serializers.Serializer):
    items = serializers.IntegerField()
    annotations_needed = serializers.IntegerField()
    submitted = serializers.IntegerField()
    complete_items = serializers.IntegerField()
    held = serializers.IntegerField()
    skipped = serializers.IntegerField()
    per_annotator = AnnotatorProgressSerializer(
        many=True, help_text="Every annotator for leads; only yourself for everyone else."
    )


class MemberSerializer(serializers.ModelSerializer):
    username = serializers.SlugRelatedField(source="user", slug_field="username", read_only=True)

    class Meta:
        model = StudyMember
        fields = ["username", "role"]


class MemberAddSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    usernames = serializers.ListField(child=serializers.CharField(max_length=150), min_length=1)
    role = serializers.ChoiceField(choices=StudyMember.Role.choices)
