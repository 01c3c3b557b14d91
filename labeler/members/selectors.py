"""Reads about a study's people: members with their progress, open invitations, whether the
study has the annotators its overlap asks for, and who labelled in it but was removed."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import BooleanField, Count, Exists, ExpressionWrapper, F, OuterRef, Q
from django.utils import timezone

from labeler.members.invitations import invitation_token_hash
from labeler.models import (
    Assignment,
    Study,
    StudyInvitation,
    StudyMember,
    StudyMemberRemoval,
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


def study_annotator_count(*, study: Study) -> int:
    return study.members.filter(role=StudyMember.Role.ANNOTATOR).count()


def overlap_warning(*, overlap: int, annotators: int) -> str | None:
    """Why items cannot complete when the study asks more annotators per item than it has
    (a study being set up has none yet); None when it has enough."""
    if annotators >= overlap:
        return None
    have = "no annotator yet" if annotators == 0 else f"only {annotators}"
    more = overlap - annotators
    return (
        f"each item needs {overlap} different annotators (overlap {overlap}) and the study has "
        f"{have}: no item completes until {more} more {'joins' if more == 1 else 'join'} (a "
        "lead adds them on the study's Members page)"
    )


def study_overlap_warning(*, study: Study) -> str | None:
    return overlap_warning(overlap=study.overlap, annotators=study_annotator_count(study=study))


def study_removed_annotators(*, study_id: int) -> set[int]:
    """Ids of users a lead removed as annotators of the study who annotate in it no more."""
    annotates = StudyMember.objects.filter(
        study_id=study_id, user=OuterRef("user"), role=StudyMember.Role.ANNOTATOR
    )
    return set(
        StudyMemberRemoval.objects.filter(study_id=study_id, role=StudyMember.Role.ANNOTATOR)
        .exclude(Exists(annotates))
        .values_list("user", flat=True)
    )


def annotator_removed(*, study: str = "study", user: str = "annotator") -> ExpressionWrapper:
    """Whether the row's annotator (the `user` path) was removed as annotator of the row's
    study (the `study` path) and annotates there no more: a column, for rows already read."""
    removed = StudyMemberRemoval.objects.filter(
        study=OuterRef(study), user=OuterRef(user), role=StudyMember.Role.ANNOTATOR
    )
    annotates = StudyMember.objects.filter(
        study=OuterRef(study), user=OuterRef(user), role=StudyMember.Role.ANNOTATOR
    )
    return ExpressionWrapper(Exists(removed) & ~Exists(annotates), output_field=BooleanField())


REMOVED_MARK = " (removed)"


def name_marked(name: str, *, removed: bool) -> str:
    """A labeller's name as shown beside their labels: marked when they were removed."""
    return name + REMOVED_MARK if removed else name


def study_items_short_of_annotators(*, study: Study) -> int:
    """Items that cannot complete because the study has fewer annotators than its overlap:
    those still short of annotations (0 when it has enough annotators)."""
    if study_overlap_warning(study=study) is None:
        return 0
    return study.items.filter(adjudicated_at__isnull=True, submitted__lt=F("needed")).count()


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
