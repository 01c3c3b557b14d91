"""API endpoints of the mining app, mounted under /api/."""

from rest_framework.routers import SimpleRouter

from mining.api import ImportJobViewSet, ReportViewSet

router = SimpleRouter()
router.register("reports", ReportViewSet, basename="report")
router.register("imports", ImportJobViewSet, basename="import")

urlpatterns = router.urls
