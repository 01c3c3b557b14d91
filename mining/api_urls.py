"""API endpoints of the mining app, mounted under /api/."""

urlpatterns: list = []
