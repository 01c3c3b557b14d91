"""Reads about a study's people: members with their progress, open invitations, whether the
study has the annotators its overlap asks for, and who labelled in it but was removed."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q
from django.utils import timezone

from labeler.members.invitations import invitation_token_hash
from labeler.models import (
    Assignment,
    Study,
    StudyInvitation,
    StudyMember,
)

Status = Assignment.Status


@dataclass(frozen=True)
class MemberRow:
    """A member (one role of one user) and, as an annotator, their progress: submissions of
    the items they took (held or submitted)."""

    member: StudyMember
    submitted: int
    assigned: int


def study_member_rows(*, study: Study) -> list[MemberRow]:
    """The study's members by username and role, each with their progress, in two queries."""
    counts = {
        row["annotator"]: row
        for row in Assignment.objects.filter(study=study)
        .values("annotator")
        .annotate(
            submitted=Count("pk", filter=Q(status=Status.SUBMITTED)),
            assigned=Count("pk", filter=Q(status__in=Assignment.CLAIMING)),
        )
        .order_by()
    }
    members = study.members.select_related("user").order_by("user__username", "role")
    rows = []
    for member in members:
        row = counts.get(member.user_id, {})
        rows.append(
            MemberRow(
                member=member,
                submitted=row.get("submitted", 0),
                assigned=row.get("assigned", 0),
            )
        )
    return rows


def study_invitations_open(*, study: Study):
    """Invitations of the study that still work, newest first."""
    return study.invitations.filter(
        used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=timezone.now()
    ).order_by("-created_at", "-pk")


def invitation_by_token(*, token: str) -> StudyInvitation | None:
    return (
        StudyInvitation.objects.select_related("study")
        .filter(token_hash=invitation_token_hash(token))
        .first()
    )


def user_study_roles(*, user) -> dict[int, list[str]]:
    """The user's roles in each of their studies, by study id (roles in the order of
    StudyMember.Role)."""
    found: dict[int, list[str]] = {}
    if not user.is_authenticated:
        return found
    order = {role: number for number, role in enumerate(StudyMember.Role.values)}
    rows = StudyMember.objects.filter(user=user).values_list("study_id", "role")
    for study_id, role in sorted(rows, key=lambda row: (row[0], order.get(row[1], 99))):
        found.setdefault(study_id, []).append(role)
    return found
