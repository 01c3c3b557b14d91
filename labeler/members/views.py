"""The members page of a study: its leads add and remove members."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import capfirst
from django.views.decorators.http import require_http_methods

from labeler.common.permissions import study_get_for_user
from labeler.common.views import require_lead
from labeler.models import StudyMember
from labeler.studies.forms import MemberAddForm, add_service_errors
from labeler.studies.services import study_member_remove, study_members_add


@require_http_methods(["GET", "POST"])
def study_members(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    require_lead(access)
    form = MemberAddForm()
    if request.method == "POST":
        if request.POST.get("action") == "remove":
            member_id = request.POST.get("member", "")
            member = get_object_or_404(
                StudyMember, study=study, pk=int(member_id) if member_id.isdigit() else 0
            )
            try:
                study_member_remove(study=study, user=member.user, role=member.role)
            except ValidationError as error:
                messages.error(request, capfirst(" ".join(error.messages)) + ".")
            else:
                messages.success(request, f"{member.user} is no longer {member.role} of the study.")
            return redirect("studies:members", slug=study.slug)
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
    members = study.members.select_related("user").order_by("user__username", "role")
    return render(
        request,
        "labeler/study_members.html",
        {"study": study, "members": members, "form": form},
    )
