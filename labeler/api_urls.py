"""API endpoints of studies and labelling, mounted under /api/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from labeler.api import adjudication, agreement
from labeler.api_views import (
    AnnotationViewSet,
    AssignmentViewSet,
    PingView,
    StudyItemViewSet,
    StudyViewSet,
)

router = SimpleRouter()
router.register("studies", StudyViewSet, basename="study")
router.register("items", StudyItemViewSet, basename="study-item")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("annotations", AnnotationViewSet, basename="annotation")

urlpatterns = [
    path("ping/", PingView.as_view(), name="api-ping"),
    *agreement.urlpatterns,
    *adjudication.urlpatterns,
    *router.urls,
]
