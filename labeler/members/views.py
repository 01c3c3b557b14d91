"""The members page of a study: its leads add members (by name or by an invitation link),
change their roles and remove them; and the invitation page, where an invitee joins."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import capfirst
from django.views.decorators.http import require_GET, require_http_methods

from labeler.common.permissions import study_get_for_user
from labeler.common.views import require_lead
from labeler.labelling.selectors import study_overlap_warning
from labeler.members.forms import (
    InvitationAcceptForm,
    InvitationForm,
    MemberAddForm,
    MemberRoleForm,
)
from labeler.members.selectors import invitation_by_token, study_invitations_open, study_member_rows
from labeler.members.services import (
    study_invitation_accept,
    study_invitation_create,
    study_invitation_revoke,
    study_member_role_change,
)
from labeler.models import StudyInvitation, StudyMember
from labeler.studies.forms import add_service_errors
from labeler.studies.services import study_member_remove, study_members_add

# The invitation form's fields have ids of their own: the add form beside it has a role too.
INVITE_IDS = "id_invite_%s"


def _posted_id(request, name: str) -> int:
    value = request.POST.get(name, "")
    return int(value) if value.isdigit() else 0


def _error_message(error: ValidationError) -> str:
    return capfirst(" ".join(error.messages)) + "."


@require_http_methods(["GET", "POST"])
def study_members(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    require_lead(access)
    form = MemberAddForm()
    invite_form = InvitationForm(auto_id=INVITE_IDS)
    invitation_link = None
    action = request.POST.get("action") if request.method == "POST" else None
    if action in _CHANGES:
        _CHANGES[action](request, study)
        return redirect("studies:members", slug=study.slug)
    if action == "invite":
        invite_form = InvitationForm(request.POST, auto_id=INVITE_IDS)
        if invite_form.is_valid():
            data = invite_form.cleaned_data
            _invitation, invitation_link, mailed = study_invitation_create(
                study=study,
                role=data["role"],
                email=data["email"],
                created_by=request.user,
                link_for=lambda token: request.build_absolute_uri(
                    reverse("invitation-accept", args=[token])
                ),
            )
            if mailed:
                messages.success(request, f"The invitation was sent to {data['email']}.")
            invite_form = InvitationForm(auto_id=INVITE_IDS)
    elif action is not None:
        form = MemberAddForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                study_members_add(
                    study=study,
                    usernames=data["usernames"],
                    role=data["role"],
                    create_users=data["create_users"],
                )
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(
                    request, f"{', '.join(data['usernames'])}: now {data['role']} of the study."
                )
                return redirect("studies:members", slug=study.slug)
    response = render(
        request,
        "labeler/study_members.html",
        {
            "study": study,
            "rows": study_member_rows(study=study),
            "roles": StudyMember.Role.choices,
            "form": form,
            "invite_form": invite_form,
            "invitation_link": invitation_link,
            "invitations": study_invitations_open(study=study),
            "overlap_warning": study_overlap_warning(study=study),
            "invitation_days": settings.INVITATION_DAYS,
        },
    )
    if invitation_link:
        # The link is shown once: a page holding it is never cached.
        response["Cache-Control"] = "no-store"
    return response


# The invitation a visitor opened the link of, kept in their session: the form is posted to
# an address without the token, so that no log line of a refused post can carry it.
SESSION_INVITATION = "invitation_id"


@login_not_required
@require_GET
def invitation_open(request, token: str):
    """The link itself: a working one takes the visitor to the form; one that no longer works
    says so (with a 200: a 4xx would write the link into the server's log)."""
    invitation = invitation_by_token(token=token)
    if invitation is None or invitation.state() != "open":
        return _invitation_page(request, None, None)
    request.session[SESSION_INVITATION] = invitation.pk
    return redirect("invitation-join")


@login_not_required
@require_http_methods(["GET", "POST"])
def invitation_join(request):
    """The invitee chooses a username and password, and lands in the study."""
    invitation = (
        StudyInvitation.objects.select_related("study")
        .filter(pk=request.session.get(SESSION_INVITATION, 0))
        .first()
    )
    if invitation is None or invitation.state() != "open":
        return _invitation_page(request, None, None)
    form = InvitationAcceptForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user = study_invitation_accept(
                invitation_id=invitation.pk, username=data["username"], password=data["password"]
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            request.session.pop(SESSION_INVITATION, None)
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request,
                f"Welcome, {user}: you joined {invitation.study.name} as {invitation.role}.",
            )
            return redirect("studies:detail", slug=invitation.study.slug)
    return _invitation_page(request, invitation, form)


def _invitation_page(request, invitation, form):
    response = render(
        request, "labeler/invitation_accept.html", {"invitation": invitation, "form": form}
    )
    response["Cache-Control"] = "no-store"
    return response


def _member_remove(request, study) -> None:
    member = get_object_or_404(StudyMember, study=study, pk=_posted_id(request, "member"))
    try:
        study_member_remove(study=study, user=member.user, role=member.role)
    except ValidationError as error:
        messages.error(request, _error_message(error))
    else:
        messages.success(
            request,
            f"{member.user} is no longer {member.role} of the study; the labels they gave "
            "stay, marked as by a removed member.",
        )


def _member_role_change(request, study) -> None:
    member = get_object_or_404(StudyMember, study=study, pk=_posted_id(request, "member"))
    role_form = MemberRoleForm(request.POST)
    if not role_form.is_valid():
        messages.error(request, "Choose a role: " + ", ".join(StudyMember.Role.values) + ".")
        return
    try:
        member = study_member_role_change(
            study=study, member=member, role=role_form.cleaned_data["role"]
        )
    except ValidationError as error:
        messages.error(request, _error_message(error))
    else:
        messages.success(request, f"{member.user} is now {member.role} of the study.")


def _invitation_revoke(request, study) -> None:
    invitation = get_object_or_404(
        StudyInvitation, study=study, pk=_posted_id(request, "invitation")
    )
    try:
        study_invitation_revoke(invitation=invitation)
    except ValidationError as error:
        messages.error(request, _error_message(error))
    else:
        messages.success(request, "The invitation link no longer works.")


# The members page's changes that answer with the page again (a redirect), by `action`.
_CHANGES = {
    "remove": _member_remove,
    "role": _member_role_change,
    "revoke": _invitation_revoke,
}
