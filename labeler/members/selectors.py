"""Reads about a study's people: members with their progress, open invitations, whether the
study has the annotators its overlap asks for, and who labelled in it but was removed."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from labeler.members.invitations import invitation_token_hash
from labeler.models import Assignment, Study, StudyInvitation, StudyMember

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


def study_annotator_count(*, study: Study) -> int:
    return study.members.filter(role=StudyMember.Role.ANNOTATOR).count()


def overlap_warning(*, overlap: int, annotators: int | None) -> str | None:
    """Why items cannot complete when the study asks more annotators per item than it has;
    None when it has enough. `annotators` None: a study being set up, which has none yet."""
    if annotators is None:
        return (
            f"each item needs {overlap} different annotator{'s' if overlap != 1 else ''} "
            f"(overlap {overlap}): add at least {overlap} on the study's Members page, or no "
            "item completes"
        )
    if annotators >= overlap:
        return None
    have = "no annotator" if annotators == 0 else f"only {annotators}"
    return (
        f"each item needs {overlap} different annotators (overlap {overlap}) and the study has "
        f"{have}: no item completes until {overlap - annotators} more "
        f"{'join' if overlap - annotators != 1 else 'joins'}; add annotators on the Members page"
    )


def study_overlap_warning(*, study: Study) -> str | None:
    return overlap_warning(overlap=study.overlap, annotators=study_annotator_count(study=study))


def study_removed_annotators(*, study_id: int) -> set[int]:
    """Ids of users who labelled in the study (a submission) and annotate in it no more."""
    annotates = StudyMember.objects.filter(
        study_id=study_id, user=OuterRef("annotator"), role=StudyMember.Role.ANNOTATOR
    )
    return set(
        Assignment.objects.filter(study_id=study_id, status=Status.SUBMITTED)
        .exclude(Exists(annotates))
        .values_list("annotator", flat=True)
        .distinct()
    )


REMOVED_MARK = " (removed)"


def name_marked(name: str, *, removed: bool) -> str:
    """A labeller's name as shown beside their labels: marked when they were removed."""
    return name + REMOVED_MARK if removed else name
