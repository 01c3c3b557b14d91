"""API endpoints of studies and labelling, mounted under /api/."""

urlpatterns: list = []
