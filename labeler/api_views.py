"""API of studies and labelling. Views check input and access, then call one service.

Access: labeler.permissions decides; a study a user is no member of answers 404, an action
their role does not allow answers 403, an anonymous request 401.
"""

from __future__ import annotations

import datetime as dt

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Prefetch
from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import IdLookupMixin, closest_name
from labeler.filters import AnnotationFilter, AssignmentFilter, StudyFilter, StudyItemFilter
from labeler.frames import FrameQuery
from labeler.labels import study_scheme
from labeler.models import Annotation, Assignment, Study, StudyItem, StudyMember
from labeler.permissions import (
    assignment_require_own,
    study_access,
    study_get_for_user,
    user_can_create_study,
)
from labeler.sampling import SampleSpec, sample_warnings
from labeler.selectors import (
    annotation_list_visible,
    assignment_labels,
    assignment_list_visible,
    assignment_previous,
    item_history,
    study_item_list_member,
    study_item_list_visible,
    study_list_for_user,
    study_progress,
)
from labeler.serializers import (
    AnnotationSerializer,
    AssignmentSerializer,
    BatchCreateSerializer,
    BatchSerializer,
    ItemSerializer,
    MemberAddSerializer,
    MemberSerializer,
    NextItemSerializer,
    PreviousQuerySerializer,
    ProgressSerializer,
    SamplePreviewResultSerializer,
    SamplePreviewSerializer,
    SkipSerializer,
    StudyCreatedSerializer,
    StudyCreateSerializer,
    StudySerializer,
    SubmissionSerializer,
    SubmitSerializer,
    VersionSerializer,
    next_item_json,
    submission_data,
)
from labeler.services.assignment import assignment_next, assignment_skip, assignment_submit
from labeler.services.studies import (
    new_seed,
    plan_warnings,
    sample_spec_parse,
    study_create,
    study_item_priority_set,
    study_items_add,
    study_members_add,
    study_sample_preview,
)
from mining.selectors import report_for_labelling
from taxonomy.models import Codebook
from taxonomy.selectors import codebook_newest

NOT_YOURS = "only the study's leads may do this"


class SchemaSafeMixin:
    """The schema generator builds views without a user; give it an empty queryset."""

    model = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.model.objects.none()
        return self.visible(self.request.user)


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
        codebook = _codebook(data["codebook"], data.get("codebook_version"))
        frame, sample = _frame_and_sample(data)
        hold_minutes = data.get("hold_minutes")
        study, batch = study_create(
            slug=data["slug"],
            name=data["name"],
            codebook=codebook,
            dimension_keys=data.get("dimensions"),
            frame=frame,
            sample=sample,
            seed=data.get("seed"),
            overlap=data["overlap"],
            guidelines=data["guidelines"],
            item_order=data["item_order"],
            hold_timeout=None if hold_minutes is None else dt.timedelta(minutes=hold_minutes),
            created_by=request.user,
        )
        payload = {"study": study, "batch": _batch_data(batch)}
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
                {**plan.to_dict(), "seed": seed, "warnings": warnings}
            ).data
        )

    @extend_schema(
        request=None,
        responses={
            200: NextItemSerializer,
            204: OpenApiResponse(description="Nothing is left for you to label."),
        },
    )
    @action(detail=True, methods=["post"])
    def next(self, request, slug=None):
        """Hold the next item for you to label (the one you already hold comes back first)."""
        study, access = self._study()
        if not access.can_label:
            raise PermissionDenied("only the study's annotators label")
        assignment = assignment_next(study=study, user=request.user)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        report = report_for_labelling(report_id=assignment.item_report_id)
        body = next_item_json(assignment, report, study_scheme(study=study))
        return HttpResponse(body, content_type="application/json")

    @extend_schema(
        parameters=[PreviousQuerySerializer],
        responses={
            200: AssignmentSerializer,
            204: OpenApiResponse(description="You submitted nothing before that."),
        },
    )
    @action(detail=True, methods=["get"], filterset_class=None)
    def previous(self, request, slug=None):
        """Your submission before assignment `before` (without it: your latest), to revise it."""
        study, access = self._study()
        if not access.can_label:
            raise PermissionDenied("only the study's annotators label")
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

    @extend_schema(responses=ProgressSerializer)
    @action(detail=True, methods=["get"])
    def progress(self, request, slug=None):
        """Counts of items and annotations; per annotator for leads and researchers (counts,
        never labels), else only your own."""
        study, access = self._study()
        only_user = None if access.can_view_progress else request.user
        return Response(ProgressSerializer(study_progress(study=study, only_user=only_user)).data)

    @extend_schema(methods=["get"], responses=MemberSerializer(many=True))
    @extend_schema(
        methods=["post"], request=MemberAddSerializer, responses=MemberSerializer(many=True)
    )
    @action(detail=True, methods=["get", "post"], pagination_class=None, filterset_class=None)
    def members(self, request, slug=None):
        """Who is in the study with which role; leads add members (existing users)."""
        study, access = self._study()
        if request.method == "POST":
            if not access.can_lead:
                raise PermissionDenied(NOT_YOURS)
            body = MemberAddSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            study_members_add(
                study=study,
                usernames=body.validated_data["usernames"],
                role=body.validated_data["role"],
            )
        members = StudyMember.objects.filter(study=study).select_related("user")
        return Response(
            MemberSerializer(members.order_by("user__username", "role"), many=True).data
        )

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


class StudyItemViewSet(
    IdLookupMixin,
    SchemaSafeMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Items of the studies you lead, with their counts; leads set priorities."""

    model = StudyItem
    serializer_class = ItemSerializer
    filterset_class = StudyItemFilter
    http_method_names = ["get", "patch", "head", "options"]

    def visible(self, user):
        return study_item_list_visible(user=user)

    def perform_update(self, serializer):
        if "priority" not in serializer.validated_data:
            raise ValidationError({"priority": "give the item's new priority"})
        study_item_priority_set(
            item=serializer.instance, priority=serializer.validated_data["priority"]
        )

    @extend_schema(responses=VersionSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def history(self, request, pk=None):
        """Every submission and revision on the item you may see (blind until adjudicated)."""
        item = study_item_list_member(user=request.user).filter(pk=pk).first()
        if item is None:
            raise Http404("no such item")
        access = study_access(user=request.user, study=item.study)
        versions = item_history(item=item, user=request.user, access=access)
        return Response(VersionSerializer(versions, many=True).data)


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
    @extend_schema(request=SubmitSerializer, responses=SubmissionSerializer)
    @action(detail=True, methods=["post"], filterset_class=None, parser_classes=[JSONParser])
    def submit(self, request, pk=None):
        """Submit or revise your labels; refused with nothing stored if any label is wrong."""
        assignment_require_own(user=request.user, assignment_id=pk)
        body = SubmitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        assignment = assignment_submit(assignment_id=pk, user=request.user, **body.validated_data)
        return Response(submission_data(assignment, assignment.labels))

    @extend_schema(request=SkipSerializer, responses=SubmissionSerializer)
    @action(detail=True, methods=["post"], filterset_class=None)
    def skip(self, request, pk=None):
        """Give the item back with a reason; it goes to others and the lead sees the reason."""
        assignment_require_own(user=request.user, assignment_id=pk)
        body = SkipSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        assignment = assignment_skip(assignment_id=pk, user=request.user, **body.validated_data)
        labels = assignment_labels(assignment=assignment)
        return Response(submission_data(assignment, labels))


class AnnotationViewSet(IdLookupMixin, SchemaSafeMixin, viewsets.ReadOnlyModelViewSet):
    """Labels you may see: your own; in studies you lead, everyone's; once adjudicated, all."""

    model = Annotation
    serializer_class = AnnotationSerializer
    filterset_class = AnnotationFilter

    def visible(self, user):
        return annotation_list_visible(user=user)


class PingView(APIView):
    """The smallest authenticated endpoint: the baseline bench/label_load.py compares with."""

    @extend_schema(responses=inline_serializer("Pong", {"pong": serializers.BooleanField()}))
    def get(self, request):
        return Response({"pong": True})
