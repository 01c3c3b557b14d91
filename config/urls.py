"""Root URLs: each app's pages and API endpoints, included by name (this package imports no
app), plus what belongs to no app: sign-in, the admin, the API schema and its docs."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import SimpleRouter

from config import account
from config.auth import AdminLoginForm, LoginForm, ObtainTokenView, TokenViewSet
from config.errors import api_not_found

auth_router = SimpleRouter()
auth_router.register("auth/tokens", TokenViewSet, basename="api-tokens")

api_patterns = [
    path("auth/token/", ObtainTokenView.as_view(), name="api-token"),
    *auth_router.urls,
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("taxonomy.api_urls")),
    # The labeler's before mining's: its /api/reports/compare/ would otherwise be taken by
    # mining's /api/reports/{id}/.
    path("", include("labeler.api_urls")),
    path("", include("mining.api_urls")),
    # Last: whatever no endpoint takes answers the API's JSON 404, DEBUG on or off.
    re_path(r"^(?P<path>.*)$", api_not_found, name="api-not-found"),
]

admin.site.login_form = AdminLoginForm

# Under /api/ these answer the API's JSON error body, elsewhere HTML pages.
handler400 = "config.errors.bad_request"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"

urlpatterns = [
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(
            redirect_authenticated_user=True, authentication_form=LoginForm
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", account.account, name="account"),
    path("accounts/password/", account.password_change, name="account-password"),
    path("accounts/token/revoke/", account.token_revoke, name="account-token-revoke"),
    path(
        "accounts/sign-out-everywhere/",
        account.sign_out_everywhere,
        name="account-sign-out-everywhere",
    ),
    path("codebooks/", include("taxonomy.urls")),
    path("", include("mining.urls")),
    path("", include("labeler.urls")),
    path("admin/", admin.site.urls),
    path(
        "docs/api/",
        # Its script in a file of its own, as the Content-Security-Policy allows no inline one.
        login_required(
            SpectacularSwaggerSplitView.as_view(
                url_name="api-schema", template_name="api_docs.html"
            )
        ),
        name="api-docs",
    ),
    path("api/", include(api_patterns)),
]
