"""API of adjudication: the disagreement queue and its next item for the adjudication desk,
an item side by side, a lead's decision (refused when the labels changed since they were read)
and reopening, final labels and their history, the study's majority policy.

Access: labeler.common.permissions decides. A study or item in a study the user is no member of
answers 404; what their role may not do or see, 403. Only leads who do not label in the study
(and staff) see the queue and the side-by-side view and decide; annotators see the final
labels of items they labelled once the item is final, never before.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import Conflict, IdLookupMixin, RejectUnknownFieldsMixin
from labeler.adjudication.selectors import (
    QUEUE_ORDERINGS,
    disagreement_after,
    final_labels_visible,
    item_decisions,
    item_decisions_visible,
    item_side_by_side,
    queue_items,
    study_disagreements,
)
from labeler.adjudication.services import (
    LabelsChanged,
    item_adjudicate,
    item_reopen,
    open_round_refused,
    study_majority_set,
)
from labeler.common.api import NamesQuerySerializer
from labeler.common.names import report_ref
from labeler.common.permissions import (
    access_adjudicates,
    access_sees_annotator_names,
    study_access,
    study_get_for_user,
)
from labeler.common.scheme import dimension_get, study_scheme
from labeler.models import DisagreementReason, FinalLabel, FinalMethod, Study, StudyItem

LEADS_ONLY = "only the study's leads who do not label in it adjudicate"


def _dimension_checked(study: Study, key: str | None) -> str | None:
    if key is None:
        return None
    return dimension_get(scheme=study_scheme(study=study), key=key).key


def _item_for(request, pk: str) -> tuple[StudyItem, object]:
    """The item and the user's access to its study; 404 when they are no member of it."""
    item = (
        StudyItem.objects.select_related("study__codebook", "report__repository")
        .filter(pk=pk)
        .first()
    )
    if item is None:
        raise Http404("no such item")
    access = study_access(user=request.user, study=item.study)
    if not access.can_view:
        raise Http404("no such item")
    return item, access


class QueueQuerySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    ignored_fields = ("page",)
    dimension = serializers.CharField(
        required=False, help_text="Only items this dimension is still to be decided on."
    )
    ordering = serializers.ChoiceField(
        choices=QUEUE_ORDERINGS,
        default="split",
        help_text="split: most split first; -split: closest calls first; position: hand-out order.",
    )
    show = serializers.ChoiceField(
        choices=["disputed", "unanimous"],
        default="disputed",
        help_text="disputed: the queue; unanimous: complete items every annotator agreed on.",
    )


class DimensionStateSerializer(serializers.Serializer):
    key = serializers.CharField()
    consensus = serializers.CharField(source="kind", help_text="unanimous, majority or split")
    share = serializers.FloatField(
        source="agreement", help_text="Share of the annotators who gave the most given answer."
    )
    answers = serializers.IntegerField(help_text="Distinct answers.")
    ratings = serializers.IntegerField()
    decided = serializers.BooleanField(help_text="Has a final label.")
    disputed = serializers.BooleanField(help_text="Waits for a lead.")


class QueueEntrySerializer(serializers.Serializer):
    item = serializers.IntegerField(source="item_id")
    report = serializers.CharField()
    title = serializers.CharField()
    batch = serializers.IntegerField()
    position = serializers.IntegerField()
    final = serializers.BooleanField()
    share = serializers.FloatField(
        source="agreement", help_text="The lowest share among the dimensions still to decide."
    )
    disputed = serializers.ListField(child=serializers.CharField())
    dimensions = DimensionStateSerializer(many=True)


class StudyDisagreementsView(generics.GenericAPIView):
    """A study's disagreement queue for its leads: complete items not final yet whose
    annotators differ on a dimension, most split first; `show=unanimous` lists apart the
    complete items every annotator agreed on."""

    serializer_class = QueueEntrySerializer
    filter_backends = []

    @extend_schema(parameters=[QueueQuerySerializer])
    def get(self, request, slug):
        study, access = study_get_for_user(user=request.user, slug=slug)
        if not access_adjudicates(access):
            raise PermissionDenied(LEADS_ONLY)
        query = QueueQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        entries = study_disagreements(
            study=study,
            scheme=study_scheme(study=study),
            dimension=_dimension_checked(study, data.get("dimension")),
            ordering=data["ordering"],
            unanimous=data["show"] == "unanimous",
        )
        page = self.paginate_queryset(entries)
        shown = queue_items(item_ids=[entry.item_id for entry in page])
        rows = [
            {**vars(entry), "disputed": entry.disputed, **shown[entry.item_id]} for entry in page
        ]
        return self.get_paginated_response(QueueEntrySerializer(rows, many=True).data)


def _real_names(request, access) -> bool:
    query = NamesQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    real = query.validated_data["names"] == "real"
    if real and not access_sees_annotator_names(access):
        raise PermissionDenied("only the study's leads see annotators' names")
    return real


# The side-by-side answer: see labeler.adjudication.selectors.item_side_by_side.
SIDE_BY_SIDE = {200: OpenApiTypes.OBJECT}


class ItemAdjudicationView(IdLookupMixin, APIView):
    """An item side by side, for its study's leads: each annotator's labels, note, unsure flag
    and time (by pseudonym unless `names=real`), per dimension the answers with who gave them,
    whether it is disputed, its final label and the codebook entries of the categories chosen,
    the report's id (render it with the report view) and the history of decisions."""

    lookup_field = "pk"
    lookup_url_kwarg = None

    @extend_schema(parameters=[NamesQuerySerializer], responses=SIDE_BY_SIDE)
    def get(self, request, pk):
        item, access = _item_for(request, pk)
        if not access_adjudicates(access):
            raise PermissionDenied(LEADS_ONLY)
        real = _real_names(request, access)
        scheme = study_scheme(study=item.study)
        return Response(item_side_by_side(item=item, scheme=scheme, real_names=real))


class DecisionSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    value = serializers.JSONField(
        allow_null=True,
        help_text="A category key path, a list of them for a multi-select dimension, or null.",
    )
    rationale = serializers.CharField(max_length=10_000)
    reason = serializers.ChoiceField(
        choices=DisagreementReason.choices, help_text="Why the annotators disagreed."
    )


class SeenSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    assignments = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=2**31 - 1),
        help_text="{assignment id: version} of the submitted labels read.",
    )
    finals = serializers.DictField(
        child=serializers.IntegerField(allow_null=True, min_value=1, max_value=2**63 - 1),
        help_text="{dimension key: final label id, or null} as read.",
    )

    def validate_assignments(self, value: dict) -> dict:
        for key in value:
            if not key.isdigit() or len(key) > 19:
                raise serializers.ValidationError(f"{key!r} is not an assignment id")
        return value


class AdjudicateSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    decisions = serializers.DictField(
        child=DecisionSerializer(),
        allow_empty=False,
        help_text="{dimension key: decision}; any of the study's dimensions.",
    )
    seen = SeenSerializer(
        required=False,
        help_text="The item's labels as you read them: `seen` of the side-by-side answer. "
        "When they changed since, the answer is 409 with `changes` (what changed) and "
        "`current` (the item side by side now), and nothing is decided. Left out: no check.",
    )


class LabelsChangedSerializer(serializers.Serializer):
    message = serializers.CharField()
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    changes = serializers.ListField(
        child=serializers.DictField(),
        help_text="Each change: an annotator's (annotator, change: revised, submitted or "
        "withdrawn, seen_version, version, dimensions) or a final label's (dimension, change: "
        "decided, withdrawn or replaced), with its text.",
    )
    current = serializers.DictField(help_text="The item side by side now.")


class ItemAdjudicateView(IdLookupMixin, APIView):
    """A lead decides final labels of a complete item: one of the annotators' answers or
    another, with a rationale and why they disagreed. The item is final once every dimension
    has a final label. Answers the item side by side."""

    lookup_field = "pk"
    lookup_url_kwarg = None
    parser_classes = [JSONParser]

    @extend_schema(
        request=AdjudicateSerializer, responses={**SIDE_BY_SIDE, 409: LabelsChangedSerializer}
    )
    def post(self, request, pk):
        item, access = _item_for(request, pk)
        if not access_adjudicates(access):
            raise PermissionDenied(LEADS_ONLY)
        open_round_refused(item.study)
        body = AdjudicateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            item = item_adjudicate(
                item_id=item.pk,
                user=request.user,
                decisions=body.validated_data["decisions"],
                seen=body.validated_data.get("seen"),
            )
        except LabelsChanged as changed:
            current = item_side_by_side(item=item, scheme=study_scheme(study=item.study))
            raise Conflict(
                str(changed),
                fields={"seen": [str(changed)]},
                extra={"changes": changed.changes, "current": current},
            ) from None
        scheme = study_scheme(study=item.study)
        return Response(item_side_by_side(item=item, scheme=scheme))


class NextQuerySerializer(NamesQuerySerializer):
    after = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2**63 - 1,
        help_text="The item you are reading: the answer is the one after it in the queue "
        "(wrapping round to those passed over), never it. Default: the queue's head.",
    )
    dimension = serializers.CharField(
        required=False, help_text="Only items this dimension is still to be decided on."
    )
    ordering = serializers.ChoiceField(
        choices=QUEUE_ORDERINGS,
        default="split",
        help_text="As the queue's: split, -split or position.",
    )


class StudyDisagreementNextView(APIView):
    """The next disagreement for a lead to decide, side by side (as the item's adjudication
    endpoint gives it), with `queue`: how many items wait for a lead, the one asked `after`
    included. 204 when no other item waits: the queue is done."""

    @extend_schema(
        parameters=[NextQuerySerializer],
        responses={**SIDE_BY_SIDE, 204: None},
    )
    def get(self, request, slug):
        study, access = study_get_for_user(user=request.user, slug=slug)
        if not access_adjudicates(access):
            raise PermissionDenied(LEADS_ONLY)
        open_round_refused(study)
        query = NextQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        if data["names"] == "real" and not access_sees_annotator_names(access):
            raise PermissionDenied("only the study's leads see annotators' names")
        scheme = study_scheme(study=study)
        entries = study_disagreements(
            study=study,
            scheme=scheme,
            dimension=_dimension_checked(study, data.get("dimension")),
            ordering=data["ordering"],
        )
        entry = disagreement_after(entries=entries, after=data.get("after"))
        if entry is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        item = StudyItem.objects.select_related("study__codebook", "report__repository").get(
            pk=entry.item_id
        )
        side = item_side_by_side(item=item, scheme=scheme, real_names=data["names"] == "real")
        return Response({**side, "queue": len(entries)})


class ReopenSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    rationale = serializers.CharField(max_length=10_000)
    dimensions = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        allow_empty=False,
        help_text="Dimensions whose final labels to withdraw; default: all.",
    )


class ItemReopenView(IdLookupMixin, APIView):
    """A lead withdraws an item's final labels (all, or those of `dimensions`) with a
    rationale: the item is no longer final and waits for a lead."""

    lookup_field = "pk"
    lookup_url_kwarg = None
    parser_classes = [JSONParser]

    @extend_schema(request=ReopenSerializer, responses=SIDE_BY_SIDE)
    def post(self, request, pk):
        item, access = _item_for(request, pk)
        if not access_adjudicates(access):
            raise PermissionDenied(LEADS_ONLY)
        body = ReopenSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        item = item_reopen(
            item_id=item.pk,
            user=request.user,
            rationale=body.validated_data["rationale"],
            dimensions=body.validated_data.get("dimensions"),
        )
        scheme = study_scheme(study=item.study)
        return Response(item_side_by_side(item=item, scheme=scheme))


class ItemDecisionsView(IdLookupMixin, APIView):
    """An item's final labels, the dimensions its annotators disagreed on, and every decision
    and reopening: for its leads as they happen; for the study's other members once the item
    is final (annotators: on items they labelled)."""

    lookup_field = "pk"
    lookup_url_kwarg = None

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, pk):
        item, access = _item_for(request, pk)
        if not item_decisions_visible(item=item, user=request.user, access=access):
            raise PermissionDenied(
                "an item's final labels are shown once it is final, to the annotators who "
                "labelled it and to the study's leads and researchers"
            )
        scheme = study_scheme(study=item.study)
        return Response(item_decisions(item=item, scheme=scheme, majority=item.study.majority))


class FinalLabelQuerySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    ignored_fields = ("page",)
    item = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    dimension = serializers.CharField(required=False)
    method = serializers.ChoiceField(choices=FinalMethod.choices, required=False)


class FinalLabelSerializer(serializers.ModelSerializer):
    report = serializers.SerializerMethodField()
    dimension = serializers.SlugRelatedField(slug_field="key", read_only=True)
    decided_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    final = serializers.SerializerMethodField(help_text="Whether the whole item is final.")

    class Meta:
        model = FinalLabel
        fields = ["id", "item", "report", "final", "dimension", "values", "method"]
        fields += ["decided_by", "decided_at", "rationale", "reason"]

    def get_report(self, label: FinalLabel) -> str:
        return report_ref(label.item.report)

    def get_final(self, label: FinalLabel) -> bool:
        return label.item.adjudicated_at is not None


class StudyFinalLabelsView(generics.GenericAPIView):
    """A study's final labels you may see: leads who do not label, all of them as they are
    decided; its other leads, researchers and staff, those of final items; annotators, those
    of final items they labelled. Never who labelled what."""

    serializer_class = FinalLabelSerializer
    filter_backends = []

    @extend_schema(parameters=[FinalLabelQuerySerializer])
    def get(self, request, slug):
        study, access = study_get_for_user(user=request.user, slug=slug)
        query = FinalLabelQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        labels = final_labels_visible(study=study, user=request.user, access=access)
        if "item" in data:
            labels = labels.filter(item_id=data["item"])
        if "dimension" in data:
            labels = labels.filter(dimension__key=_dimension_checked(study, data["dimension"]))
        if "method" in data:
            labels = labels.filter(method=data["method"])
        page = self.paginate_queryset(labels)
        return self.get_paginated_response(FinalLabelSerializer(page, many=True).data)


class PolicySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    majority = serializers.ChoiceField(
        choices=Study.Majority.choices,
        help_text="auto: a majority answer becomes final on its own; lead: it goes to a lead. "
        "Unanimous answers always become final on their own.",
    )


class PolicyResultSerializer(serializers.Serializer):
    majority = serializers.CharField()
    finalised = serializers.IntegerField(
        required=False, help_text="Items that became final under the new policy."
    )


class StudyPolicyView(APIView):
    """The study's policy for majority answers; its leads change it, which decides at once the
    complete items the new policy accepts."""

    parser_classes = [JSONParser]

    @extend_schema(responses=PolicyResultSerializer)
    def get(self, request, slug):
        study, _ = study_get_for_user(user=request.user, slug=slug)
        return Response({"majority": study.majority})

    @extend_schema(request=PolicySerializer, responses=PolicyResultSerializer)
    def put(self, request, slug):
        study, access = study_get_for_user(user=request.user, slug=slug)
        if not access.can_lead:
            raise PermissionDenied("only the study's leads set its policy")
        body = PolicySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        finalised = study_majority_set(study=study, majority=body.validated_data["majority"])
        return Response({"majority": study.majority, "finalised": finalised})


urlpatterns = [
    path(
        "studies/<slug:slug>/disagreements/",
        StudyDisagreementsView.as_view(),
        name="study-disagreements",
    ),
    path(
        "studies/<slug:slug>/final-labels/",
        StudyFinalLabelsView.as_view(),
        name="study-final-labels",
    ),
    path("studies/<slug:slug>/policy/", StudyPolicyView.as_view(), name="study-policy"),
    path(
        "studies/<slug:slug>/disagreements/next/",
        StudyDisagreementNextView.as_view(),
        name="study-disagreements-next",
    ),
    path("items/<str:pk>/adjudication/", ItemAdjudicationView.as_view(), name="item-adjudication"),
    path("items/<str:pk>/adjudicate/", ItemAdjudicateView.as_view(), name="item-adjudicate"),
    path("items/<str:pk>/reopen/", ItemReopenView.as_view(), name="item-reopen"),
    path("items/<str:pk>/decisions/", ItemDecisionsView.as_view(), name="item-decisions"),
]
