"""Signing in and API tokens: failed sign-ins are throttled per account and per address
(django-axes), on the sign-in pages and on the token endpoint alike; a user lists and revokes
their own API token.

Axes counts failures in the database and refuses an account, or an address, after
AXES_FAILURE_LIMIT of them within AXES_COOLOFF_TIME; each further attempt while refused
counts too, so the wait is always the whole cool-off from the last attempt. A successful
sign-in clears that account's failures (not the address's: an attacker with an account of
their own could otherwise clear the failures they made against someone else's).
"""

from axes.helpers import get_cool_off
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from rest_framework import exceptions, mixins, serializers, viewsets
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.response import Response

from config.api import IdLookupMixin
from config.errors import api_error, is_api, sentence

# The start of a token, enough to tell one from another and useless to sign in with.
TOKEN_PREFIX_LENGTH = 8


def token_prefix(token: Token) -> str:
    return token.key[:TOKEN_PREFIX_LENGTH]


def cool_off_seconds() -> int:
    return int(get_cool_off().total_seconds())


def lockout_message() -> str:
    minutes = -(-cool_off_seconds() // 60)
    return (
        "too many failed sign-ins for this account or from this address: "
        f"try again in {minutes} minute{'s' if minutes != 1 else ''}"
    )


def client_address(request) -> str | None:
    """The client's address: REMOTE_ADDR, or, behind TRUSTED_PROXY_COUNT proxies, the address
    the outermost of them saw (entries further left in X-Forwarded-For may be forged)."""
    count = settings.TRUSTED_PROXY_COUNT
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    if count and len(forwarded) >= count and forwarded[-count]:
        return forwarded[-count]
    return request.META.get("REMOTE_ADDR")


class LockoutMessageMixin:
    """A sign-in form that says when the account or address is refused, and for how long."""

    def clean(self):
        try:
            cleaned = super().clean()
        except ValidationError:
            if getattr(self.request, "axes_locked_out", False):
                raise ValidationError(sentence(lockout_message()), code="locked_out") from None
            raise
        if self.user_cache is not None:
            axes_reset(username=self.user_cache.get_username())
        return cleaned


class LoginForm(LockoutMessageMixin, AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "Your username and password didn't match. Please try again.",
    }


class AdminLoginForm(LockoutMessageMixin, AdminAuthenticationForm):
    pass


def lockout_response(request, original_response, credentials):
    """Axes' answer to a refused sign-in (AXES_LOCKOUT_CALLABLE): 429 with Retry-After; the
    sign-in page as the form rendered it (it names the wait), or the API's error body."""
    retry = str(cool_off_seconds())
    if is_api(request) or original_response is None:
        return api_error(429, lockout_message(), **{"Retry-After": retry})
    original_response.status_code = 429
    original_response["Retry-After"] = retry
    return original_response


class LockedOut(exceptions.Throttled):
    def __init__(self):
        super().__init__(detail=lockout_message())
        self.wait = cool_off_seconds()


class ObtainTokenView(ObtainAuthToken):
    """Your API token for your username and password (created on first use); refused with 429
    and Retry-After after too many failed attempts on the account or from the address."""

    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        try:
            serializer.is_valid(raise_exception=True)
        except exceptions.ValidationError:
            # Axes marks the request it was given: DRF's, not Django's.
            if getattr(request, "axes_locked_out", False):
                raise LockedOut() from None
            raise
        user = serializer.validated_data["user"]
        axes_reset(username=user.get_username())
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


class TokenSerializer(serializers.ModelSerializer):
    id = serializers.IntegerField(source="user_id", read_only=True, help_text="Its owner's id.")
    prefix = serializers.SerializerMethodField(help_text="The start of the token, not secret.")

    class Meta:
        model = Token
        fields = ["id", "prefix", "created"]

    def get_prefix(self, token: Token) -> str:
        return token_prefix(token)


class TokenViewSet(
    IdLookupMixin, mixins.ListModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Your API tokens (an account has at most one, its id is the account's): never the key
    itself. Deleting one revokes it; `POST /api/auth/token/` makes a new one. A password change
    or a deactivation revokes them too."""

    serializer_class = TokenSerializer
    lookup_field = "user_id"
    lookup_url_kwarg = "id"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema, built with no one signed in
            return Token.objects.none()
        return Token.objects.filter(user=self.request.user).order_by("created")
