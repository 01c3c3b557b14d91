"""The labelling API: the next item to label, your previous submission, your assignments
(submit, skip), and the smallest authenticated endpoint."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Prefetch
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import Conflict, IdLookupMixin, query_params_refuse_unknown
from labeler.coding.selectors import assignment_codes
from labeler.common.api import SchemaSafeMixin
from labeler.common.filters import AssignmentFilter
from labeler.common.names import report_ref
from labeler.common.permissions import study_get_for_user
from labeler.common.scheme import (
    CODE_MAX,
    CODES_PER_DIMENSION,
    FROZEN_SCHEMES_KEPT,
    NOTE_MAX,
    Scheme,
    study_scheme_by_id,
)
from labeler.labelling.selectors import (
    assignment_labels,
    assignment_list_visible,
    assignment_previous,
    study_come_back,
    study_items_short_of_annotators,
    study_overlap_warning,
)
from labeler.labelling.services import (
    VersionConflict,
    assignment_next,
    assignment_skip,
    assignment_submit,
)
from labeler.models import Annotation, Assignment, SkipReason, Study
from mining.serializers import ReportDetailSerializer, report_reading
from taxonomy.models import Category, Dimension


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


class AssignmentSerializer(serializers.ModelSerializer):
    study = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True)
    report = serializers.SerializerMethodField()
    skip_reason = serializers.CharField(
        read_only=True, help_text=f"Empty, or one of: {', '.join(SkipReason.values)}."
    )
    labels = serializers.SerializerMethodField()
    codes = serializers.SerializerMethodField(
        help_text="Open coding: {dimension key: [codes as written]}; empty in a closed study."
    )

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
            "codes",
        ]

    def get_report(self, assignment: Assignment) -> str:
        return report_ref(assignment.item.report)

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_labels(self, assignment: Assignment) -> dict:
        return {a.dimension.key: a.values for a in assignment.annotations.all()}

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_codes(self, assignment: Assignment) -> dict:
        # labeler.coding.selectors.current_codes, annotated by the selectors that list assignments.
        return assignment.current_codes or {}


class NextItemSerializer(serializers.Serializer):
    """An item to label: the assignment to submit to, the report, and what to label."""

    # The API schema's description of what next_item_json writes.
    assignment = serializers.IntegerField(source="pk")
    item = serializers.IntegerField(source="item_id")
    status = serializers.CharField()
    held_at = serializers.DateTimeField()
    version = serializers.IntegerField(
        help_text="The version a submit revises: 0 until the assignment is first submitted."
    )
    report = ReportDetailSerializer(
        source="item.report",
        help_text="The report as GET /api/reports/{id}/ shows it, with its comments and fix "
        "links: all a page needs to show it.",
    )
    codes = serializers.SerializerMethodField(
        help_text="Open coding: the assignment's codes, {dimension key: [codes as written]}."
    )
    relabel = serializers.JSONField(
        help_text="A submission of yours a codebook revision flagged for re-labelling (its "
        "labels, note and version: the assignment's own endpoint): {dimension key: {was: [old "
        "key paths], into: {old path: [new paths]}, suggested: [new paths]}}, what to label "
        "again; empty for an item handed out."
    )
    dimensions = SchemeDimensionSerializer(many=True, read_only=True)

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_codes(self, assignment: Assignment) -> dict:
        return self.context.get("codes", {})


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
# of the answer. tests/labeler/labelling/test_api.py holds them to the serializers' output.
api_datetime = serializers.DateTimeField().to_representation


def next_item_json(assignment: Assignment, report: dict, scheme: Scheme, codes: dict) -> bytes:
    """NextItemSerializer's JSON, with the scheme's ready JSON spliced in.

    `report` is the report as mining.serializers.report_reading gives it; `codes` the
    assignment's (labeler.coding.selectors.assignment_codes).
    """
    held = {
        "assignment": assignment.pk,
        "item": assignment.item_id,
        "status": assignment.status,
        "held_at": api_datetime(assignment.held_at),
        "version": assignment.version,
        "report": report,
        "codes": codes,
        "relabel": assignment.relabel,
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
    codes = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = ["id", "item", "status", "submitted_at", "skip_reason", "note", "unsure"]
        fields += ["seconds", "version", "labels", "codes"]

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_labels(self, assignment: Assignment) -> dict:
        return self.context["labels"]

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_codes(self, assignment: Assignment) -> dict:
        return self.context["codes"]


def submission_data(assignment: Assignment, labels: dict, codes: dict) -> dict:
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
        "codes": codes,
    }


NOTE_TOO_LONG = f"at most {NOTE_MAX:,} characters"


class SubmitSerializer(serializers.Serializer):
    labels = serializers.DictField(
        child=serializers.JSONField(),
        help_text="{dimension key: category key path, or a list of them for multi-select}",
    )
    codes = serializers.DictField(
        child=serializers.JSONField(),
        required=False,
        help_text="Open coding only: {dimension key: [code, ...]}, each code 1 to "
        f"{CODE_MAX} characters (trimmed, whitespace collapsed), at most {CODES_PER_DIMENSION} "
        "per dimension, none twice in any case. A required dimension takes a category or a "
        "code. Refused in a closed study.",
    )
    # Left out: "" and false on a first submission; a revision keeps what it had.
    note = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=NOTE_MAX,
        error_messages={"max_length": NOTE_TOO_LONG},
    )
    unsure = serializers.BooleanField(required=False)
    seconds = serializers.IntegerField(required=False, default=0, min_value=0, max_value=86_400)
    version = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="The version these labels revise, as next or previous gave it (0: the first "
        "submission). When another was saved since, the answer is 409 with the current one. "
        "Left out: whatever is stored is revised.",
    )


@extend_schema_field({"type": "string", "enum": SkipReason.values})
class SkipReasonField(serializers.ChoiceField):
    """Its schema is given here: the assignment filter already names the SkipReason enum."""

    def __init__(self, **kwargs):
        super().__init__(choices=SkipReason.choices, **kwargs)


class SkipSerializer(serializers.Serializer):
    reason = SkipReasonField()
    note = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=NOTE_MAX,
        error_messages={"max_length": NOTE_TOO_LONG},
    )


class ComeBackSerializer(serializers.Serializer):
    """Nothing is free for you now, but items that others hold may still come to you."""

    assignment = serializers.IntegerField(allow_null=True, help_text="Always null here.")
    held_by_others = serializers.IntegerField(
        help_text="Items others hold that still need annotations you have not given."
    )
    retry_after_seconds = serializers.IntegerField(
        help_text="When the earliest of those holds expires; also the Retry-After header."
    )


class WaitingForOthersSerializer(serializers.Serializer):
    """Nothing is left for you, and items still wait: the study has fewer annotators than
    each item needs, so they wait for annotators a lead has yet to add."""

    assignment = serializers.IntegerField(allow_null=True, help_text="Always null here.")
    waiting_for_others = serializers.IntegerField(
        help_text="Items still short of annotations that only other annotators can give."
    )
    overlap_warning = serializers.CharField(help_text="Why, in words, and what to do.")


class LabelsNowSerializer(serializers.Serializer):
    labels = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    codes = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    note = serializers.CharField()
    unsure = serializers.BooleanField()
    version = serializers.IntegerField()


class SubmitConflictSerializer(serializers.Serializer):
    message = serializers.CharField()
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    current = LabelsNowSerializer(help_text="What is stored now.")


class StudyLabellingViewSet(viewsets.ViewSet):
    """Labelling in one study: the item to label next, and your submissions to revise."""

    @extend_schema(
        request=None,
        responses={
            200: PolymorphicProxySerializer(
                component_name="NextAnswer",
                serializers=[NextItemSerializer, ComeBackSerializer, WaitingForOthersSerializer],
                resource_type_field_name=None,
            ),
            204: OpenApiResponse(
                description="You are done: nothing is left for you, and nothing can come back."
            ),
        },
    )
    def next(self, request, slug: str):
        """Hold the next item for you to label (the one you already hold comes back first,
        then a submission of yours a codebook revision flagged: `relabel` says what to
        label again; submitting it clears the flag).

        Nothing free now: 204 when nothing can come back to you; else 200 with `assignment`
        null, how many items others hold, and when to look again. When items wait for
        annotators the study does not have yet (fewer than its overlap), 200 with
        `waiting_for_others` instead of the 204."""
        study, access = study_get_for_user(user=request.user, slug=slug)
        if not access.can_label:
            raise PermissionDenied("only the study's annotators label")
        assignment = assignment_next(study=study, user=request.user)
        if assignment is None:
            come_back = study_come_back(study=study, user=request.user)
            if not come_back.held_by_others:
                waiting = study_items_short_of_annotators(study=study)
                if waiting:
                    return Response(
                        {
                            "assignment": None,
                            "waiting_for_others": waiting,
                            "overlap_warning": study_overlap_warning(study=study),
                        }
                    )
                return Response(status=status.HTTP_204_NO_CONTENT)
            return Response(
                {
                    "assignment": None,
                    "held_by_others": come_back.held_by_others,
                    "retry_after_seconds": come_back.retry_after_seconds,
                },
                headers={"Retry-After": str(come_back.retry_after_seconds)},
            )
        report = report_reading(report_id=assignment.item_report_id)
        codes = assignment_codes(assignment=assignment) if study.kind == Study.Kind.OPEN else {}
        # The version read with the assignment: a migration may have committed since `study`
        # was read, and flagged the very item handed out.
        scheme = study_scheme_by_id(study_id=study.pk, codebook_id=assignment.study_codebook_id)
        body = next_item_json(assignment, report, scheme, codes)
        return HttpResponse(body, content_type="application/json")

    @extend_schema(
        parameters=[PreviousQuerySerializer],
        responses={
            200: AssignmentSerializer,
            204: OpenApiResponse(description="You submitted nothing before that."),
        },
    )
    def previous(self, request, slug: str):
        """Your submission before assignment `before` (without it: your latest), to revise it."""
        study, access = study_get_for_user(user=request.user, slug=slug)
        if not access.can_label:
            raise PermissionDenied("only the study's annotators label")
        query_params_refuse_unknown(request.query_params, PreviousQuerySerializer().fields)
        query = PreviousQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        before = None
        if "before" in query.validated_data:
            before_id = query.validated_data["before"]
            before = Assignment.objects.filter(
                pk=before_id, study=study, annotator=request.user
            ).first()
            if before is None:
                raise ValidationError({"before": f"you have no assignment {before_id} here"})
        assignment = assignment_previous(study=study, user=request.user, before=before)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(AssignmentSerializer(assignment).data)


class AssignmentViewSet(
    IdLookupMixin,
    SchemaSafeMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Your assignments; leads also see every assignment of their studies (e.g. skips)."""

    model = Assignment
    serializer_class = AssignmentSerializer
    filterset_class = AssignmentFilter

    def visible(self, user):
        annotations = Annotation.objects.select_related("dimension").order_by("dimension__position")
        return assignment_list_visible(user=user).prefetch_related(
            Prefetch("annotations", queryset=annotations)
        )

    # JSON only: a form body cannot tell a flag left out from one set to false, and a
    # revision keeps what is left out.
    @extend_schema(
        request=SubmitSerializer,
        responses={200: SubmissionSerializer, 409: SubmitConflictSerializer},
    )
    @action(detail=True, methods=["post"], filterset_class=None, parser_classes=[JSONParser])
    def submit(self, request, pk=None):
        """Submit or revise your labels; refused with nothing stored if any label is wrong,
        and with 409 and the stored labels if `version` is not the stored one."""
        body = SubmitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            assignment = assignment_submit(
                assignment_id=pk, user=request.user, as_member=True, **body.validated_data
            )
        except VersionConflict as conflict:
            raise Conflict(
                str(conflict),
                fields={"version": [str(conflict)]},
                extra={"current": conflict.current},
            ) from None
        return Response(submission_data(assignment, assignment.labels, assignment.codes))

    @extend_schema(request=SkipSerializer, responses=SubmissionSerializer)
    @action(detail=True, methods=["post"], filterset_class=None)
    def skip(self, request, pk=None):
        """Give the item back with a reason; it goes to others and the lead sees the reason."""
        body = SkipSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        assignment = assignment_skip(
            assignment_id=pk, user=request.user, as_member=True, **body.validated_data
        )
        labels = assignment_labels(assignment=assignment)
        codes = assignment_codes(assignment=assignment)
        return Response(submission_data(assignment, labels, codes))


class PingView(APIView):
    """The smallest authenticated endpoint: the baseline bench/label_load.py compares with."""

    @extend_schema(responses=inline_serializer("Pong", {"pong": serializers.BooleanField()}))
    def get(self, request):
        return Response({"pong": True})
