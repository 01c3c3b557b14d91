"""The members API of a study: who is in it with which role; its leads add members."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.response import Response

from config.api import RejectUnknownFieldsMixin
from labeler.common.api import NOT_YOURS
from labeler.common.permissions import study_get_for_user
from labeler.models import StudyMember
from labeler.studies.services import study_members_add


class MemberSerializer(serializers.ModelSerializer):
    username = serializers.SlugRelatedField(source="user", slug_field="username", read_only=True)

    class Meta:
        model = StudyMember
        fields = ["username", "role"]


class MemberAddSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    usernames = serializers.ListField(child=serializers.CharField(max_length=150), min_length=1)
    role = serializers.ChoiceField(choices=StudyMember.Role.choices)


def _members(study) -> list:
    members = StudyMember.objects.filter(study=study).select_related("user")
    return MemberSerializer(members.order_by("user__username", "role"), many=True).data


class StudyMemberViewSet(viewsets.ViewSet):
    """Who is in the study with which role; leads add members (existing users)."""

    @extend_schema(responses=MemberSerializer(many=True))
    def list(self, request, slug: str):
        study, _access = study_get_for_user(user=request.user, slug=slug)
        return Response(_members(study))

    @extend_schema(request=MemberAddSerializer, responses={200: MemberSerializer(many=True)})
    def create(self, request, slug: str):
        study, access = study_get_for_user(user=request.user, slug=slug)
        if not access.can_lead:
            raise PermissionDenied(NOT_YOURS)
        body = MemberAddSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        study_members_add(
            study=study,
            usernames=body.validated_data["usernames"],
            role=body.validated_data["role"],
        )
        return Response(_members(study))
