"""API endpoints of studies and labelling, mounted under /api/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from labeler.adjudication import api as adjudication
from labeler.agreement import api as agreement
from labeler.analysis.api import ReportCompareView
from labeler.coding import api as coding
from labeler.coding.board import api as board
from labeler.export import api as export
from labeler.imports import api as label_imports
from labeler.items.api import StudyItemViewSet
from labeler.labelling.annotations_api import AnnotationViewSet
from labeler.labelling.api import AssignmentViewSet, PingView, StudyLabellingViewSet
from labeler.members.api import StudyInvitationViewSet, StudyMemberViewSet
from labeler.revisions import api as revisions
from labeler.screening import api as screening_api
from labeler.studies.api import StudyViewSet

router = SimpleRouter()
router.register("studies", StudyViewSet, basename="study")
router.register("items", StudyItemViewSet, basename="study-item")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("annotations", AnnotationViewSet, basename="annotation")

# A study's members and its labelling are resources of their own under the study's address.
study_patterns = [
    path(
        "studies/<slug:slug>/members/",
        StudyMemberViewSet.as_view({"get": "list", "post": "create"}),
        name="study-members",
    ),
    path(
        "studies/<slug:slug>/members/<int:member_id>/",
        StudyMemberViewSet.as_view({"patch": "partial_update", "delete": "destroy"}),
        name="study-member",
    ),
    path(
        "studies/<slug:slug>/invitations/",
        StudyInvitationViewSet.as_view({"get": "list", "post": "create"}),
        name="study-invitations",
    ),
    path(
        "studies/<slug:slug>/invitations/<int:invitation_id>/",
        StudyInvitationViewSet.as_view({"delete": "destroy"}),
        name="study-invitation",
    ),
    path(
        "studies/<slug:slug>/next/",
        StudyLabellingViewSet.as_view({"post": "next"}),
        name="study-next",
    ),
    path(
        "studies/<slug:slug>/previous/",
        StudyLabellingViewSet.as_view({"get": "previous"}),
        name="study-previous",
    ),
]

urlpatterns = [
    path("ping/", PingView.as_view(), name="api-ping"),
    path("reports/compare/", ReportCompareView.as_view(), name="api-reports-compare"),
    *study_patterns,
    *agreement.urlpatterns,
    *coding.urlpatterns,
    *adjudication.urlpatterns,
    *export.urlpatterns,
    *revisions.urlpatterns,
    *board.urlpatterns,
    *label_imports.urlpatterns,
    *screening_api.urlpatterns,
    *router.urls,
]
