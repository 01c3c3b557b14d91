"""Everyone's account page: change the password, see and revoke the API token, sign out
everywhere. Site admins keep the admin for everything else about accounts.

A new password signs out every other session (Django ties a session to the password's hash)
and revokes the API token (labeler.signals); this session stays signed in. Signing out
everywhere ends every session of the account, this one too, and revokes its token."""

from django.contrib import messages
from django.contrib.auth import logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm
from django.contrib.sessions.models import Session
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from rest_framework.authtoken.models import Token

from config.auth import token_prefix


def account_sessions_end(*, user) -> int:
    """Delete every unexpired session signed in as `user`; returns how many. Sessions do not
    index their user, so each live one is decoded: fine for a team's few hundred sessions."""
    ended = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if session.get_decoded().get("_auth_user_id") == str(user.pk)
    ]
    Session.objects.filter(pk__in=ended).delete()
    return len(ended)


def _page(request, *, password_form=None, status=200):
    token = Token.objects.filter(user=request.user).first()
    return render(
        request,
        "account.html",
        {
            "password_form": password_form or PasswordChangeForm(request.user),
            "token_prefix": token_prefix(token) if token else None,
            "token_created": token.created if token else None,
        },
        status=status,
    )


@require_GET
@login_required
def account(request):
    return _page(request)


@require_POST
@login_required
def password_change(request):
    form = PasswordChangeForm(request.user, request.POST)
    if not form.is_valid():
        return _page(request, password_form=form, status=400)
    user = form.save()
    update_session_auth_hash(request, user)
    messages.success(
        request,
        "Your password is changed. Your other sessions are signed out and your API token is "
        "revoked (ask for a new one with POST /api/auth/token/).",
    )
    return redirect("account")


@require_POST
@login_required
def token_revoke(request):
    revoked, _ = Token.objects.filter(user=request.user).delete()
    messages.success(
        request,
        "Your API token is revoked: scripts using it are refused from now on."
        if revoked
        else "You have no API token to revoke.",
    )
    return redirect("account")


@require_POST
@login_required
def sign_out_everywhere(request):
    user = request.user
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        account_sessions_end(user=user)
    logout(request)
    return redirect("login")
