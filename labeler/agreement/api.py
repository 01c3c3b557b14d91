"""API of agreement: `GET /api/studies/{slug}/agreement/`, the JSON of `agreement --json`.

Leads and researchers of the study (and staff) see it; annotators do not. Leads see
annotators by username, researchers by the study's pseudonyms (A1, A2, …): who agrees with
whom is for those who run the study. An open-coding study has no agreement: 409, with the
reason as `message` and `"applicable": false`.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import Conflict, RejectUnknownFieldsMixin
from labeler.agreement.planning import PLANNED, plan_before_asked, shares_from_text
from labeler.agreement.ratings import (
    BOOTSTRAP,
    BY,
    HALF_WIDTH,
    WINDOW_MIN,
    AgreementNotApplicable,
    study_agreement,
)
from labeler.common.permissions import (
    access_figures_final_only,
    access_sees_agreement,
    access_sees_annotator_names,
    study_get_for_user,
)
from labeler.common.scheme import dimension_get, study_scheme

BOOTSTRAP_MAX = 10_000


class AgreementQuerySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    dimension = serializers.CharField(required=False, help_text="Only this dimension.")
    by = serializers.ChoiceField(
        choices=BY,
        required=False,
        help_text="batch: per batch of items; window: per `window` items in the order they "
        "were labelled.",
    )
    window = serializers.IntegerField(
        required=False, min_value=WINDOW_MIN, help_text="Items per window (implies by=window)."
    )
    bootstrap = serializers.IntegerField(
        required=False,
        default=BOOTSTRAP,
        min_value=0,
        max_value=BOOTSTRAP_MAX,
        help_text="Resamples for every figure's 95% interval, one set shared by all (0: none).",
    )
    half_width = serializers.FloatField(
        required=False,
        default=HALF_WIDTH,
        min_value=0.001,
        max_value=0.999,
        help_text="The half-width of alpha's interval to plan double-coding for "
        "(`double_coding`: how many more double-coded items reach it).",
    )

    def validate(self, data):
        if "window" in data:
            if data.setdefault("by", "window") != "window":
                raise serializers.ValidationError({"window": "only with by=window"})
        elif data.get("by") == "window":
            raise serializers.ValidationError({"window": "give the number of items per window"})
        return data


class StudyAgreementView(APIView):
    """Inter-rater agreement of the study per dimension (and per batch or window of items):
    percent agreement, Cohen's kappa per pair, Fleiss' kappa, Krippendorff's alpha, Gwet's
    AC1, per category, each with its 95% intervals by method (`intervals`: a bootstrap over
    items from one seeded set of draws, stated in `bootstrap`; Gwet's analytic one where it
    applies), the hierarchy alpha on full paths, how many more items to double-code
    (`double_coding`), per batch the change from the batch before, and the reasons leads
    gave for disagreements per category. A figure that cannot be computed is null, with
    a note saying why. An open-coding study has none: 409 saying why."""

    @extend_schema(
        parameters=[AgreementQuerySerializer],
        responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT},
    )
    def get(self, request, slug):
        study, access = study_get_for_user(user=request.user, slug=slug)
        if not access_sees_agreement(access):
            raise PermissionDenied("only the study's leads and researchers see its agreement")
        query = AgreementQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        try:
            result = study_agreement(
                study=study,
                dimension=dimension_get(scheme=study_scheme(study=study), key=data["dimension"]).key
                if "dimension" in data
                else None,
                by=data.get("by"),
                window=data.get("window"),
                bootstrap=data["bootstrap"],
                pseudonyms=not access_sees_annotator_names(access),
                final_only=access_figures_final_only(access),
                half_width=data["half_width"],
            )
        except AgreementNotApplicable as error:
            raise Conflict(str(error), extra={"applicable": False}) from None
        return Response(result)


class DoubleCodingPlanQuerySerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    expected = serializers.FloatField(
        min_value=0.01, max_value=0.99, help_text="The agreement expected (alpha or kappa)."
    )
    shares = serializers.CharField(
        help_text="The categories' expected shares, comma-separated (e.g. 0.2,0.3,0.5); "
        "their number is the number of categories."
    )
    half_width = serializers.FloatField(
        min_value=0.005, max_value=0.5, help_text="The 95% interval's half-width wanted."
    )
    annotators = serializers.IntegerField(
        required=False, default=2, min_value=2, max_value=10, help_text="Annotators per item."
    )
    coefficient = serializers.ChoiceField(
        choices=PLANNED, required=False, default="krippendorff_alpha"
    )
    seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**32 - 1)

    def validate_shares(self, text):
        try:
            return shares_from_text(text)
        except ValueError as error:
            raise serializers.ValidationError(str(error)) from None


class DoubleCodingPlanView(APIView):
    """Before labelling: how many items each of k annotators must label for the coefficient's
    95% interval to have the half-width wanted, simulated with the product's estimator and
    bootstrap (method, draws and seed in the answer). Anyone signed in may ask; it reads no
    study."""

    @extend_schema(parameters=[DoubleCodingPlanQuerySerializer], responses=OpenApiTypes.OBJECT)
    def get(self, request):
        query = DoubleCodingPlanQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(plan_before_asked(query.validated_data))


urlpatterns = [
    path("studies/<slug:slug>/agreement/", StudyAgreementView.as_view(), name="study-agreement"),
    path("agreement/plan/", DoubleCodingPlanView.as_view(), name="agreement-plan"),
]
