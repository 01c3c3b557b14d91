"""Pages of the labeler app: the home page, and studies (set-up, labelling, progress)."""

from django.urls import include, path

from labeler import study_views as views
from labeler.views import home

study_patterns = [
    path("studies/", views.study_list, name="list"),
    path("studies/new/", views.study_new, name="new"),
    path("studies/<slug:slug>/", views.study_detail, name="detail"),
    path("studies/<slug:slug>/batches/", views.study_batch_add, name="batch-add"),
    path("studies/<slug:slug>/members/", views.study_members, name="members"),
    path("studies/<slug:slug>/import/", views.study_import, name="import"),
    path("studies/<slug:slug>/label/", views.study_label, name="label"),
    path("studies/<slug:slug>/items/", views.study_items, name="items"),
    path(
        "studies/<slug:slug>/items/<int:item_id>/history/",
        views.item_history_page,
        name="item-history",
    ),
    path(
        "studies/<slug:slug>/items/<int:item_id>/report/",
        views.item_report,
        name="item-report",
    ),
]

urlpatterns = [
    path("", home, name="home"),
    path("", include((study_patterns, "studies"))),
]
