"""The studies API: list, read, preview and create studies, draw batches, read progress."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from django.core.exceptions import PermissionDenied, ValidationError
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from config.api import RejectUnknownFieldsMixin
from config.names import closest_name
from labeler.common.api import NOT_YOURS, SchemaSafeMixin
from labeler.common.filters import StudyFilter
from labeler.common.permissions import study_get_for_user, user_can_create_study
from labeler.labelling.selectors import overlap_warning, study_overlap_warning
from labeler.models import Study
from labeler.studies.frames import Candidates, FrameQuery, StateFilter
from labeler.studies.sampling import SampleMode, SampleSpec, sample_warnings
from labeler.studies.selectors import (
    progress_named,
    study_items_open_to,
    study_list_for_user,
    study_progress,
)
from labeler.studies.services import (
    HOLD_MINUTES_MAX,
    HOLD_MINUTES_MIN,
    HOLD_MINUTES_RANGE,
    new_seed,
    plan_warnings,
    sample_spec_parse,
    study_create,
    study_items_add,
    study_sample_preview,
)
from taxonomy.models import Codebook
from taxonomy.selectors import codebook_newest


class StudySerializer(serializers.ModelSerializer):
    codebook = serializers.SerializerMethodField()
    dimensions = serializers.SlugRelatedField(slug_field="key", many=True, read_only=True)
    # Named as a create or preview body names it: one name in and out.
    hold_minutes = serializers.SerializerMethodField(
        help_text="A held item nobody submits returns to the pool after this many minutes "
        "(as a create takes it)."
    )
    sample = serializers.JSONField(
        source="sampling", read_only=True, help_text="How the first batch drew."
    )

    class Meta:
        model = Study
        fields = [
            "slug",
            "name",
            "kind",
            "codes_shared",
            "codebook",
            "dimensions",
            "overlap",
            "guidelines",
            "item_order",
            "hold_minutes",
            "frame",
            "sample",
            "seed",
            "created_at",
        ]

    @extend_schema_field(
        {"type": "object", "properties": {"key": {"type": "string"}, "version": {"type": "string"}}}
    )
    def get_codebook(self, study: Study) -> dict:
        return {"key": study.codebook.key, "version": study.codebook.version}

    @extend_schema_field({"type": "number"})
    def get_hold_minutes(self, study: Study) -> int | float:
        minutes = study.hold_timeout.total_seconds() / 60
        return int(minutes) if minutes.is_integer() else minutes


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
        "guidelines",
        "item_order",
        "hold_minutes",
        "kind",
        "codes_shared",
        "dimension_names",
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
    overlap = serializers.IntegerField(
        default=2,
        min_value=1,
        max_value=20,
        help_text="Annotators per item, as create takes it: `overlap_warning` says how many "
        "annotators the study then needs.",
    )


class StudyCreateSerializer(SamplePreviewSerializer):
    def to_internal_value(self, data):
        # A closed study needs its codebook, reported with every other problem of the body.
        kind = data.get("kind", Study.Kind.CLOSED) if isinstance(data, Mapping) else None
        self.fields["codebook"].required = kind == Study.Kind.CLOSED
        return super().to_internal_value(data)

    slug = serializers.SlugField(max_length=100)
    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(
        choices=Study.Kind.choices,
        default=Study.Kind.CLOSED,
        help_text="closed: labels from the codebook's categories; open: free-text codes, "
        "besides the categories of the codebook if one is pinned.",
    )
    codes_shared = serializers.BooleanField(
        default=False,
        help_text="Open coding: annotators see, and are offered, the codes others wrote while "
        "the round runs (default: each sees only their own).",
    )
    codebook = serializers.SlugField(
        required=False,
        help_text="Codebook key; an open study may leave it out and name `dimension_names`.",
    )
    codebook_version = serializers.CharField(
        required=False, help_text="Defaults to the newest version."
    )
    dimensions = serializers.ListField(
        child=serializers.SlugField(), required=False, help_text="Defaults to all."
    )
    dimension_names = serializers.ListField(
        child=serializers.CharField(allow_blank=True, max_length=200),
        required=False,
        help_text="An open study without a codebook: the dimensions it codes, e.g. "
        '["root cause", "symptom"]; a codebook version of them, without categories, is made '
        "(key from the slug, version open).",
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
    overlap_warning = serializers.CharField(
        allow_null=True,
        help_text="Why no item would complete: the overlap asks more annotators per item than "
        "the study has (a new study has none until a lead adds them); null when it has enough.",
    )


class BatchSerializer(SamplePlanSerializer):
    number = serializers.IntegerField()
    seed = serializers.IntegerField()


class StudyCreatedSerializer(serializers.Serializer):
    study = StudySerializer()
    batch = BatchSerializer()
    overlap_warning = serializers.CharField(
        allow_null=True,
        help_text="Why no item would complete: the overlap asks more annotators per item than "
        "the study has (a new study has none until a lead adds them); null when it has enough.",
    )


class AnnotatorProgressSerializer(serializers.Serializer):
    annotator = serializers.CharField(
        source="name",
        help_text="A username for the study's leads and for your own row; otherwise the "
        "study's pseudonym (A1, A2, …) as the export gives it, researchers included.",
    )
    username = serializers.CharField(
        allow_null=True,
        help_text="The annotator's username where you may see it (as for `annotator`), else null.",
    )

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["username"] = data["username"] or None
        return data

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
        many=True,
        help_text="Every annotator for leads and researchers (counts, never labels); only "
        "yourself for everyone else.",
    )
    open_to_you = serializers.IntegerField(
        help_text="Items still open to you: those you hold and those you may still take "
        "(short of annotations, not final, not taken by you). Your share of the work done is "
        "your `submitted` out of `submitted` + `open_to_you`."
    )


def _frame_and_sample(data: dict) -> tuple[FrameQuery, SampleSpec]:
    frame = FrameQuery.from_dict(data.get("frame", {}))
    return frame, sample_spec_parse(dict(data.get("sample", {})))


def _require_creator(user) -> None:
    if not user_can_create_study(user):
        raise PermissionDenied("your role may not create studies")


def _batch_data(batch) -> dict:
    return {
        "number": batch.number,
        "seed": batch.seed,
        "frame_size": batch.frame_size,
        "sample_size": batch.sample_size,
        "strata": batch.strata,
        "warnings": sample_warnings(SampleSpec.from_dict(batch.sampling), batch.frame_size),
    }


def _codebook(key: str, version: str | None) -> Codebook:
    """The codebook at that version (default: the newest); a 400 on `codebook` naming what is
    loaded when there is none."""
    codebook = codebook_newest(key=key, version=version)
    if codebook is not None:
        return codebook
    if version is not None:
        versions = list(Codebook.objects.filter(key=key).values_list("version", flat=True))
        if versions:
            raise ValidationError(
                {
                    "codebook_version": f"codebook {key!r} has no version {version!r} "
                    f"(it has: {', '.join(sorted(versions))})"
                }
            )
    keys = sorted(set(Codebook.objects.values_list("key", flat=True)))
    close = closest_name(key, keys)
    hint = f"did you mean {close!r}? " if close else ""
    raise ValidationError(
        {"codebook": f"no codebook {key!r} ({hint}loaded: {', '.join(keys) or 'none'})"}
    )


class StudyViewSet(
    SchemaSafeMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Studies you are a member of (staff: all)."""

    model = Study
    serializer_class = StudySerializer
    filterset_class = StudyFilter
    lookup_field = "slug"

    def visible(self, user):
        return study_list_for_user(user=user)

    def _study(self):
        return study_get_for_user(user=self.request.user, slug=self.kwargs["slug"])

    @extend_schema(request=StudyCreateSerializer, responses={201: StudyCreatedSerializer})
    def create(self, request):
        """Create a study and draw its first batch. Needs a role that may create studies."""
        _require_creator(request.user)
        body = StudyCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if "codebook" in data:
            codebook = _codebook(data["codebook"], data.get("codebook_version"))
        elif "codebook_version" in data:
            raise ValidationError({"codebook_version": "a version of which codebook? give one"})
        else:
            codebook = None
        frame, sample = _frame_and_sample(data)
        hold_minutes = data.get("hold_minutes")
        study, batch = study_create(
            slug=data["slug"],
            name=data["name"],
            codebook=codebook,
            dimension_keys=data.get("dimensions"),
            kind=data["kind"],
            codes_shared=data["codes_shared"],
            dimension_names=data.get("dimension_names"),
            frame=frame,
            sample=sample,
            seed=data.get("seed"),
            overlap=data["overlap"],
            guidelines=data["guidelines"],
            item_order=data["item_order"],
            hold_timeout=None if hold_minutes is None else dt.timedelta(minutes=hold_minutes),
            created_by=request.user,
        )
        payload = {
            "study": study,
            "batch": _batch_data(batch),
            "overlap_warning": study_overlap_warning(study=study),
        }
        return Response(StudyCreatedSerializer(payload).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=SamplePreviewSerializer, responses=SamplePreviewResultSerializer)
    @action(detail=False, methods=["post"])
    def preview(self, request):
        """Frame size, sample size and strata a study would draw with the seed; nothing is
        written."""
        _require_creator(request.user)
        body = SamplePreviewSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        frame, sample = _frame_and_sample(body.validated_data)
        seed = body.validated_data.get("seed")
        seed = new_seed() if seed is None else seed
        plan = study_sample_preview(frame=frame, sample=sample, seed=seed)
        warnings = plan_warnings(plan=plan, frame=frame, sample=sample)
        return Response(
            SamplePreviewResultSerializer(
                {
                    **plan.to_dict(),
                    "seed": seed,
                    "warnings": warnings,
                    "overlap_warning": overlap_warning(
                        overlap=body.validated_data["overlap"], annotators=0
                    ),
                }
            ).data
        )

    @extend_schema(responses=ProgressSerializer)
    @action(detail=True, methods=["get"])
    def progress(self, request, slug=None):
        """Counts of items and annotations; per annotator for leads and researchers (counts,
        never labels), else only your own."""
        study, access = self._study()
        only_user = None if access.can_view_progress else request.user
        progress = progress_named(
            study_progress(study=study, only_user=only_user),
            study=study,
            user=request.user,
            access=access,
        )
        open_to_you = study_items_open_to(study=study, user=request.user)
        return Response(ProgressSerializer({**vars(progress), "open_to_you": open_to_you}).data)

    @extend_schema(request=BatchCreateSerializer, responses={201: BatchSerializer})
    @action(detail=True, methods=["post"], filterset_class=None)
    def batches(self, request, slug=None):
        """Draw another batch of items; earlier items keep their order. Leads only."""
        study, access = self._study()
        if not access.can_lead:
            raise PermissionDenied(NOT_YOURS)
        body = BatchCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        batch = study_items_add(
            study=study,
            frame=FrameQuery.from_dict(data["frame"]) if "frame" in data else None,
            sample=sample_spec_parse(dict(data["sample"])) if "sample" in data else None,
            seed=data.get("seed"),
            created_by=request.user,
        )
        return Response(BatchSerializer(_batch_data(batch)).data, status=status.HTTP_201_CREATED)
