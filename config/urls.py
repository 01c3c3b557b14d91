"""Root URLs: each app's pages and API endpoints, included by name (this package imports no
app), plus what belongs to no app: sign-in, the admin, the API schema and its docs."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

api_patterns = [
    path("auth/token/", obtain_auth_token, name="api-token"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("taxonomy.api_urls")),
    path("", include("mining.api_urls")),
    path("", include("labeler.api_urls")),
]

urlpatterns = [
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("codebooks/", include("taxonomy.urls")),
    path("", include("mining.urls")),
    path("", include("labeler.urls")),
    path("admin/", admin.site.urls),
    path(
        "docs/api/",
        login_required(
            SpectacularSwaggerView.as_view(url_name="api-schema", template_name="api_docs.html")
        ),
        name="api-docs",
    ),
    path("api/", include(api_patterns)),
]
