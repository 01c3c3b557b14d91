"""Pages of the mining app (reports, imports)."""

app_name = "mining"

urlpatterns: list = []
