"""Reads of the labelling desk: the assignments and labels a person may see (blind by
person), their previous item, when to come back, and what waits for them."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from django.db.models import (
    Count,
    Exists,
    F,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
)
from django.utils import timezone

from labeler.coding.selectors import current_codes
from labeler.common.permissions import (
    labelled_by,
    studies_labelled_in,
    studies_overseen_by,
    studies_read_whole_by,
    user_is_staff,
)
from labeler.models import (
    Annotation,
    Assignment,
    Study,
    StudyItem,
    StudyMember,
)

Status = Assignment.Status


def annotation_list_visible(*, user) -> QuerySet[Annotation]:
    """Blind by person: everyone sees their own labels; others' only in studies they oversee
    (lead without labelling there), and once the item is final, in studies they lead or
    research in, or on items they labelled themselves; an annotator never sees the labels of a
    final item they did not label. Staff see all but the labels others gave on items not yet
    final in studies they label in."""
    annotations = Annotation.objects.select_related(
        "annotator", "dimension", "item__study", "item__report__repository"
    ).order_by("item__study", "item__position", "annotator__username", "dimension__position")
    if user_is_staff(user):
        return annotations.exclude(
            Q(item__study__in=studies_labelled_in(user))
            & ~Q(annotator=user)
            & Q(item__adjudicated_at__isnull=True)
        )
    final = Q(item__adjudicated_at__isnull=False)
    return annotations.filter(
        Q(annotator=user)
        | Q(item__study__in=studies_overseen_by(user))
        | (final & Q(item__study__in=studies_read_whole_by(user)))
        | (final & labelled_by(user, "item"))
    )


def assignment_previous(*, study: Study, user, before: Assignment | None = None):
    """The user's submission before `before` (or their latest), for a "previous" button, with
    its labels and its `current_codes` (labeler.coding.selectors)."""
    annotations = Annotation.objects.select_related("dimension").order_by("dimension__position")
    submitted = (
        Assignment.objects.filter(study=study, annotator=user, status=Status.SUBMITTED)
        .select_related("study", "annotator", "item__report__repository")
        .prefetch_related(Prefetch("annotations", queryset=annotations))
        .annotate(current_codes=current_codes())
    )
    if before is not None and before.submitted_at is not None:
        submitted = submitted.filter(
            Q(submitted_at__lt=before.submitted_at)
            | Q(submitted_at=before.submitted_at, pk__lt=before.pk)
        )
    return submitted.order_by("-submitted_at", "-pk").first()


# Looking again sooner than this is pointless; a free item that a hand-out skipped because
# another request held it locked at that moment is free again within this.
RETRY_SOON_SECONDS = 5


@dataclass(frozen=True)
class ComeBack:
    """When nothing is free for an annotator: how many items that others hold may still come
    to them, and in how many seconds to look again (None when none may)."""

    held_by_others: int
    retry_after_seconds: int | None


def study_come_back(*, study: Study, user, now: dt.datetime | None = None) -> ComeBack:
    """For `user` with nothing free in `study`: the items still short of annotations that the
    user has not labelled, skipped or held (others hold them), and when the earliest of those
    holds expires. One query."""
    now = now or timezone.now()
    mine = Assignment.objects.filter(item=OuterRef("pk"), annotator=user).exclude(
        status=Status.EXPIRED
    )
    waiting = (
        study.items.filter(adjudicated_at__isnull=True, submitted__lt=F("needed"))
        .exclude(Exists(mine))
        .aggregate(
            count=Count("pk", distinct=True),
            earliest=Min("assignments__held_at", filter=Q(assignments__status=Status.HELD)),
        )
    )
    if not waiting["count"]:
        return ComeBack(held_by_others=0, retry_after_seconds=None)
    if waiting["earliest"] is None:
        return ComeBack(held_by_others=waiting["count"], retry_after_seconds=RETRY_SOON_SECONDS)
    expires = waiting["earliest"] + study.hold_timeout
    seconds = math.ceil((expires - now).total_seconds())
    return ComeBack(
        held_by_others=waiting["count"], retry_after_seconds=max(seconds, RETRY_SOON_SECONDS)
    )


def study_items_waiting(*, user, studies) -> dict[int, int]:
    """Per study (by id) of `studies`, the items the user may label now: the one they hold,
    their submissions flagged for re-labelling, and those with a free place that they have
    not taken. One query."""
    taken = Assignment.objects.filter(item=OuterRef("pk"), annotator=user).exclude(
        status=Status.EXPIRED
    )
    mine_held = Assignment.objects.filter(item=OuterRef("pk"), annotator=user, status=Status.HELD)
    mine_flagged = Assignment.objects.filter(
        item=OuterRef("pk"), annotator=user, status=Status.SUBMITTED
    ).exclude(relabel={})
    rows = (
        StudyItem.objects.filter(study__in=studies, adjudicated_at__isnull=True)
        .filter(
            (Q(claimed__lt=F("needed")) & ~Exists(taken)) | Exists(mine_held) | Exists(mine_flagged)
        )
        .values("study")
        .annotate(count=Count("pk"))
        .order_by()
    )
    return {row["study"]: row["count"] for row in rows}


def assignment_labels(*, assignment: Assignment) -> dict[str, list[str]]:
    """The assignment's current labels as {dimension key: [category key paths]}."""
    return dict(assignment.annotations.values_list("dimension__key", "values"))


def assignment_list_visible(*, user) -> QuerySet[Assignment]:
    """The user's own assignments, plus every assignment of the studies they oversee (lead
    without labelling in them; staff: every study they do not label in); each with its
    `current_codes` (labeler.coding.selectors)."""
    assignments = (
        Assignment.objects.select_related("study", "annotator", "item__report__repository")
        .annotate(current_codes=current_codes())
        .order_by("-held_at", "-pk")
    )
    if user_is_staff(user):
        return assignments.exclude(
            Q(study__in=studies_labelled_in(user))
            & ~Q(annotator=user)
            & Q(item__adjudicated_at__isnull=True)
        )
    return assignments.filter(Q(annotator=user) | Q(study__in=studies_overseen_by(user)))


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


def study_items_short_of_annotators(*, study: Study) -> int:
    """Items that cannot complete because the study has fewer annotators than its overlap:
    those still short of annotations (0 when it has enough annotators)."""
    if study_overlap_warning(study=study) is None:
        return 0
    return study.items.filter(adjudicated_at__isnull=True, submitted__lt=F("needed")).count()
