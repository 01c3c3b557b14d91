"""Pages of studies: setup, labelling, progress."""

app_name = "studies"

urlpatterns: list = []
