from django.urls import path

from taxonomy import views

app_name = "taxonomy"

urlpatterns = [
    path("", views.codebook_index, name="codebook-list"),
    path("<slug:key>/<str:version>/", views.codebook_detail, name="codebook-detail"),
    path("<slug:key>/<str:version>/yaml/", views.codebook_file, name="codebook-file"),
    path("<slug:key>/<str:version>/diff/", views.codebook_diff_pick, name="codebook-diff-pick"),
    path("<slug:key>/diff/<str:old>/<str:new>/", views.codebook_diff, name="codebook-diff"),
]
