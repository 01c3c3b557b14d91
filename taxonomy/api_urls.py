"""API endpoints of the taxonomy app, mounted under /api/."""

from rest_framework.routers import SimpleRouter

from taxonomy.api import CodebookViewSet

router = SimpleRouter()
router.register("codebooks", CodebookViewSet, basename="codebook")

urlpatterns = router.urls
