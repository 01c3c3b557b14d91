from django.urls import path

from taxonomy import views

app_name = "taxonomy"

# `codebook` (taxonomy.converters): any stored key or version has an address.
urlpatterns = [
    path("", views.codebook_index, name="codebook-list"),
    path("<codebook:key>/<codebook:version>/", views.codebook_detail, name="codebook-detail"),
    path("<codebook:key>/<codebook:version>/yaml/", views.codebook_file, name="codebook-file"),
    path(
        "<codebook:key>/<codebook:version>/diff/",
        views.codebook_diff_pick,
        name="codebook-diff-pick",
    ),
    path(
        "<codebook:key>/diff/<codebook:old>/<codebook:new>/",
        views.codebook_diff,
        name="codebook-diff",
    ),
]
