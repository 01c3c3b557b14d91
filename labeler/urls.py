from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token
from rest_framework.routers import DefaultRouter

from labeler import views
from taxonomy.api import CodebookViewSet

router = DefaultRouter()
router.register("codebooks", CodebookViewSet, basename="codebook")

api_patterns = [
    path("auth/token/", obtain_auth_token, name="api-token"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include(router.urls)),
    path("", include("mining.api_urls")),
    path("", include("labeler.study_api_urls")),
]

urlpatterns = [
    path("", views.home, name="home"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("codebooks/", include("taxonomy.urls")),
    path("", include("mining.urls")),
    path("", include("labeler.study_urls")),
    path("admin/", admin.site.urls),
    path(
        "docs/api/",
        login_required(SpectacularSwaggerView.as_view(url_name="api-schema")),
        name="api-docs",
    ),
    path("api/", include(api_patterns)),
]
