"""Pages of the mining app (reports, imports)."""

from django.urls import path

from mining import views

app_name = "mining"

urlpatterns = [
    path("reports/", views.report_list, name="report-list"),
    path("reports/<int:pk>/", views.report_detail, name="report-detail"),
    path("imports/", views.import_list, name="import-list"),
    path("imports/start/", views.import_start, name="import-start"),
    path("imports/<int:pk>/cancel/", views.import_cancel, name="import-cancel"),
    path("imports/<int:pk>/rerun/", views.import_rerun, name="import-rerun"),
    path("imports/rules/<int:repository_id>/", views.candidate_rules, name="candidate-rules"),
]
