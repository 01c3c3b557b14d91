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
from django.views.decorators.http import require_http_methods

from labeler.forms import (
    InvitationAcceptForm,
    InvitationForm,
    MemberAddForm,
    MemberRoleForm,
    add_service_errors,
)
from labeler.members.selectors import (
    invitation_by_token,
    study_invitations_open,
    study_member_rows,
    study_overlap_warning,
)
from labeler.members.services import (
    study_invitation_accept,
    study_invitation_create,
    study_invitation_revoke,
    study_member_role_change,
)
from labeler.models import StudyInvitation, StudyMember
from labeler.permissions import study_get_for_user
from labeler.services.studies import study_member_remove, study_members_add
from labeler.views.common import require_lead


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
    invite_form = InvitationForm()
    invitation_link = None
    action = request.POST.get("action") if request.method == "POST" else None
    if action == "remove":
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
        return redirect("studies:members", slug=study.slug)
    if action == "role":
        member = get_object_or_404(StudyMember, study=study, pk=_posted_id(request, "member"))
        role_form = MemberRoleForm(request.POST)
        if not role_form.is_valid():
            messages.error(request, "Choose a role: " + ", ".join(StudyMember.Role.values) + ".")
            return redirect("studies:members", slug=study.slug)
        try:
            member = study_member_role_change(
                study=study, member=member, role=role_form.cleaned_data["role"]
            )
        except ValidationError as error:
            messages.error(request, _error_message(error))
        else:
            messages.success(request, f"{member.user} is now {member.role} of the study.")
        return redirect("studies:members", slug=study.slug)
    if action == "revoke":
        invitation = get_object_or_404(
            StudyInvitation, study=study, pk=_posted_id(request, "invitation")
        )
        try:
            study_invitation_revoke(invitation=invitation)
        except ValidationError as error:
            messages.error(request, _error_message(error))
        else:
            messages.success(request, "The invitation link no longer works.")
        return redirect("studies:members", slug=study.slug)
    if action == "invite":
        invite_form = InvitationForm(request.POST)
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
            invite_form = InvitationForm()
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


@login_not_required
@require_http_methods(["GET", "POST"])
def invitation_accept(request, token: str):
    """The invitee chooses a username and password, and lands in the study. A link that no
    longer works says so (with a 200: a 4xx would write the link into the server's log)."""
    invitation = invitation_by_token(token=token)
    usable = invitation is not None and invitation.state() == "open"
    form = InvitationAcceptForm(request.POST or None) if usable else None
    if usable and request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user = study_invitation_accept(
                token=token, username=data["username"], password=data["password"]
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request, f"Welcome, {user}: you are {invitation.role} of {invitation.study.name}."
            )
            return redirect("studies:detail", slug=invitation.study.slug)
    response = render(
        request,
        "labeler/invitation_accept.html",
        {"invitation": invitation if usable else None, "form": form},
    )
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "no-store"
    return response
