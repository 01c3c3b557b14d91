"""Reads of studies: the studies a person may see, each study's progress (annotators named as
the reader may see them), and its recent label-import jobs."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Sum

from labeler.common.names import study_pseudonyms
from labeler.common.permissions import StudyAccess, access_sees_annotator_names, user_is_staff
from labeler.models import (
    Assignment,
    LabelImportJob,
    Study,
    StudyMember,
)

Status = Assignment.Status


def study_list_for_user(*, user) -> QuerySet[Study]:
    """Studies the user is a member of (any role); staff see every study."""
    studies = Study.objects.select_related("codebook").prefetch_related("dimensions")
    if user_is_staff(user):
        return studies
    return studies.filter(pk__in=StudyMember.objects.filter(user=user).values("study"))


@dataclass(frozen=True)
class AnnotatorProgress:
    user_id: int
    username: str
    held: int
    submitted: int
    skipped: int
    seconds: int
    # How the reader knows the annotator (progress_named); the
    # username is blanked where the reader goes by pseudonyms.
    name: str = ""


@dataclass(frozen=True)
class StudyProgress:
    items: int
    annotations_needed: int
    submitted: int
    complete_items: int
    held: int
    skipped: int
    per_annotator: list[AnnotatorProgress] = field(default_factory=list)


def study_progress(*, study: Study, only_user=None) -> StudyProgress:
    """Counts of the whole study; per annotator for everyone, or only for `only_user`."""
    totals = study.items.aggregate(
        item_count=Count("pk"),
        needed_sum=Sum("needed"),
        submitted_sum=Sum("submitted"),
        complete_count=Count("pk", filter=Q(submitted__gte=F("needed"))),
    )
    counts = Assignment.objects.filter(study=study).aggregate(
        held=Count("pk", filter=Q(status=Status.HELD)),
        skipped=Count("pk", filter=Q(status=Status.SKIPPED)),
    )
    assignments = Assignment.objects.filter(study=study)
    if only_user is not None:
        assignments = assignments.filter(annotator=only_user)
    rows = (
        assignments.values("annotator", "annotator__username")
        .annotate(
            held=Count("pk", filter=Q(status=Status.HELD)),
            submitted=Count("pk", filter=Q(status=Status.SUBMITTED)),
            skipped=Count("pk", filter=Q(status=Status.SKIPPED)),
            seconds=Sum("seconds"),
        )
        .order_by("annotator__username")
    )
    annotators = [
        AnnotatorProgress(
            user_id=row["annotator"],
            username=row["annotator__username"],
            held=row["held"],
            submitted=row["submitted"],
            skipped=row["skipped"],
            seconds=row["seconds"] or 0,
        )
        for row in rows
    ]
    return StudyProgress(
        items=totals["item_count"],
        annotations_needed=totals["needed_sum"] or 0,
        submitted=totals["submitted_sum"] or 0,
        complete_items=totals["complete_count"],
        held=counts["held"],
        skipped=counts["skipped"],
        per_annotator=annotators,
    )


def study_items_open_to(*, study: Study, user) -> int:
    """How many of the study's items are still open to `user`: those they hold, and those
    still short of annotations, not final, that they have not taken (or only held until the
    hold ran out). Items others hold are not counted, though some may come back."""
    theirs = Assignment.objects.filter(item=OuterRef("pk"), annotator=user)
    return (
        study.items.filter(
            Q(Exists(theirs.filter(status=Status.HELD)))
            | (
                Q(claimed__lt=F("needed"), adjudicated_at__isnull=True)
                & ~Exists(theirs.exclude(status=Status.EXPIRED))
            )
        )
        .order_by()
        .count()
    )


NO_PSEUDONYM_YET = "(no submission yet)"


def progress_named(progress: StudyProgress, *, study: Study, user, access: StudyAccess):
    """The study's progress with each annotator named as `user` reads them (as
    annotator_namer does): usernames for its leads (and staff) and for themselves, the
    study's pseudonyms for everyone else, researchers included, whose rows then carry no
    username. An annotator with no submission yet has no pseudonym."""
    if access_sees_annotator_names(access):
        rows = [replace(row, name=row.username) for row in progress.per_annotator]
        return replace(progress, per_annotator=rows)
    pseudonyms = study_pseudonyms(study=study)
    rows = [
        replace(row, name=row.username)
        if row.user_id == user.pk
        else replace(row, name=pseudonyms.get(row.user_id, NO_PSEUDONYM_YET), username="")
        for row in progress.per_annotator
    ]
    rows.sort(key=lambda row: (row.name == NO_PSEUDONYM_YET, _pseudonym_order(row.name)))
    return replace(progress, per_annotator=rows)


def _pseudonym_order(name: str) -> tuple:
    return (0, int(name[1:]), "") if name[:1] == "A" and name[1:].isdigit() else (1, 0, name)


# How many of a study's label-import jobs its pages list.
RECENT_JOBS = 5


def label_import_jobs_recent(*, study: Study) -> QuerySet[LabelImportJob]:
    """The study's background label imports, newest first, without their files."""
    return (
        LabelImportJob.objects.filter(study=study)
        .select_related("imported_by")
        .defer("data")
        .order_by("-created_at", "-pk")
    )
