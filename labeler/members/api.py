"""The members API of a study: who is in it with which role and their progress; its leads
add members (existing users), change their roles, remove them, and invite new people."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.response import Response

from config.api import RejectUnknownFieldsMixin
from labeler.common.api import NOT_YOURS
from labeler.common.permissions import study_get_for_user
from labeler.members.selectors import study_invitations_open, study_member_rows
from labeler.members.services import (
    study_invitation_create,
    study_invitation_revoke,
    study_member_role_change,
)
from labeler.models import StudyInvitation, StudyMember
from labeler.studies.services import study_member_remove, study_members_add


class MemberSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="member.pk", help_text="The membership (one role).")
    username = serializers.CharField(source="member.user.username")
    role = serializers.ChoiceField(source="member.role", choices=StudyMember.Role.choices)
    submitted = serializers.IntegerField(
        allow_null=True,
        help_text="Annotators: items they submitted; null for other roles, and for members "
        "who may not see the study's progress.",
    )
    assigned = serializers.IntegerField(
        allow_null=True,
        help_text="Annotators: items they took (held or submitted); null as for `submitted`.",
    )


class MemberAddSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    usernames = serializers.ListField(child=serializers.CharField(max_length=150), min_length=1)
    role = serializers.ChoiceField(choices=StudyMember.Role.choices)


class MemberRoleSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    role = serializers.ChoiceField(choices=StudyMember.Role.choices)


class InvitationSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    state = serializers.SerializerMethodField(help_text="open, used, revoked or expired.")

    class Meta:
        model = StudyInvitation
        fields = ["id", "role", "email", "created_by", "created_at", "expires_at", "state"]

    def get_state(self, invitation) -> str:
        return invitation.state()


class InvitationCreatedSerializer(InvitationSerializer):
    link = serializers.CharField(
        help_text="The invitation link: given only in this answer (only its hash is stored)."
    )
    emailed = serializers.BooleanField(
        help_text="Whether it was sent to `email` (when the site's e-mail is set up)."
    )

    class Meta(InvitationSerializer.Meta):
        fields = [*InvitationSerializer.Meta.fields, "link", "emailed"]


class InvitationCreateSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    role = serializers.ChoiceField(choices=StudyMember.Role.choices)
    email = serializers.EmailField(required=False, default="", allow_blank=True)


def _members(study, access) -> list:
    rows = study_member_rows(study=study)
    data = MemberSerializer(rows, many=True).data
    for row in data:
        if row["role"] != StudyMember.Role.ANNOTATOR or not access.can_view_progress:
            row["submitted"] = row["assigned"] = None
    return data


def _study_as_lead(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access.can_lead:
        raise PermissionDenied(NOT_YOURS)
    return study, access


class StudyMemberViewSet(viewsets.ViewSet):
    """Who is in the study with which role; leads add members (existing users), change a
    member's role and remove members (their labels stay)."""

    @extend_schema(responses=MemberSerializer(many=True))
    def list(self, request, slug: str):
        study, access = study_get_for_user(user=request.user, slug=slug)
        return Response(_members(study, access))

    @extend_schema(request=MemberAddSerializer, responses={200: MemberSerializer(many=True)})
    def create(self, request, slug: str):
        study, access = _study_as_lead(request, slug)
        body = MemberAddSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        study_members_add(
            study=study,
            usernames=body.validated_data["usernames"],
            role=body.validated_data["role"],
        )
        return Response(_members(study, access))

    @extend_schema(request=MemberRoleSerializer, responses={200: MemberSerializer(many=True)})
    def partial_update(self, request, slug: str, member_id: int):
        """Change the member's role. Refused (400 on `role`) for the study's last lead, or
        when they have that role already. Leads only."""
        study, access = _study_as_lead(request, slug)
        member = get_object_or_404(StudyMember, study=study, pk=member_id)
        body = MemberRoleSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        study_member_role_change(study=study, member=member, role=body.validated_data["role"])
        return Response(_members(study, access))

    @extend_schema(responses={204: OpenApiResponse(description="Removed; their labels stay.")})
    def destroy(self, request, slug: str, member_id: int):
        """Take the role away; the labels they gave stay, marked as by a removed member.
        Refused (400 on `role`) for the study's last lead. Leads only."""
        study, _access = _study_as_lead(request, slug)
        member = get_object_or_404(StudyMember, study=study, pk=member_id)
        study_member_remove(study=study, user=member.user, role=member.role)
        return Response(status=status.HTTP_204_NO_CONTENT)


class StudyInvitationViewSet(viewsets.ViewSet):
    """Invitation links for people without an account; leads only."""

    @extend_schema(responses=InvitationSerializer(many=True))
    def list(self, request, slug: str):
        """The invitations that still work (never their links)."""
        study, _access = _study_as_lead(request, slug)
        invitations = study_invitations_open(study=study).select_related("created_by")
        return Response(InvitationSerializer(invitations, many=True).data)

    @extend_schema(request=InvitationCreateSerializer, responses={201: InvitationCreatedSerializer})
    def create(self, request, slug: str):
        """A new invitation link with a role, working once until it expires (INVITATION_DAYS);
        the link is in this answer only, and goes to `email` when the site's e-mail is set."""
        study, _access = _study_as_lead(request, slug)
        body = InvitationCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        invitation, link, emailed = study_invitation_create(
            study=study,
            role=body.validated_data["role"],
            email=body.validated_data["email"],
            created_by=request.user,
            link_for=lambda token: request.build_absolute_uri(
                reverse("invitation-accept", args=[token])
            ),
        )
        invitation.link = link
        invitation.emailed = emailed
        return Response(InvitationCreatedSerializer(invitation).data, status=201)

    @extend_schema(responses={204: OpenApiResponse(description="The link no longer works.")})
    def destroy(self, request, slug: str, invitation_id: int):
        """Revoke an invitation: its link stops working. 400 when it was used already."""
        study, _access = _study_as_lead(request, slug)
        invitation = get_object_or_404(StudyInvitation, study=study, pk=invitation_id)
        study_invitation_revoke(invitation=invitation)
        return Response(status=status.HTTP_204_NO_CONTENT)
