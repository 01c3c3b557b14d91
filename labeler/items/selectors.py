"""Reads of a study's items: for its leads, counts and states (no labels); an item's history,
with the blind rule."""

from __future__ import annotations

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import Count, F, OuterRef, Q, QuerySet

from labeler.common.permissions import StudyAccess, studies_led_by, user_is_staff
from labeler.models import (
    AnnotationVersion,
    Assignment,
    FinalLabel,
    Study,
    StudyItem,
    StudyMember,
)

Status = Assignment.Status


def study_item_list_visible(*, user) -> QuerySet[StudyItem]:
    """Items of the studies the user leads (staff: all) in hand-out order, with how often
    each was skipped."""
    items = (
        StudyItem.objects.select_related("study", "report__repository")
        .annotate(skipped=Count("assignments", filter=Q(assignments__status=Status.SKIPPED)))
        .order_by("study", "position")
    )
    if user_is_staff(user):
        return items
    return items.filter(study__in=studies_led_by(user))


# The states a lead filters a study's items by: what each means, and its condition.
ITEM_STATES = {
    "open": ("nobody has taken it yet", Q(claimed=0, adjudicated_at__isnull=True)),
    "in-progress": (
        "taken, still short of its annotations",
        Q(claimed__gt=0, submitted__lt=F("needed"), adjudicated_at__isnull=True),
    ),
    "complete": (
        "every annotation in, not adjudicated",
        Q(submitted__gte=F("needed"), adjudicated_at__isnull=True),
    ),
    "final": (
        "every dimension decided: unanimous, by majority, adjudicated or imported",
        Q(adjudicated_at__isnull=False),
    ),
}


def study_items_overview(*, study: Study, state: str | None = None) -> QuerySet[StudyItem]:
    """The study's items in hand-out order with how often each was skipped, for its leads:
    counts only, no labels (those are on each item's history, with the blind rule), and
    `final_methods`, how its final labels were reached (FinalMethod values, each once, in no
    set order; empty until one is decided). `state` is a key of ITEM_STATES, or None for every
    item."""
    methods = FinalLabel.objects.filter(item=OuterRef("pk")).order_by().values("method").distinct()
    items = (
        study.items.select_related("report__repository")
        .annotate(
            skipped=Count("assignments", filter=Q(assignments__status=Status.SKIPPED)),
            held=F("claimed") - F("submitted"),
            final_methods=ArraySubquery(methods),
        )
        .order_by("position", "pk")
    )
    return items.filter(ITEM_STATES[state][1]) if state else items


def study_item_state_counts(*, study: Study) -> dict[str, int]:
    """How many of the study's items are in each of ITEM_STATES, and "all": one query."""
    return study.items.aggregate(
        all=Count("pk"), **{name: Count("pk", filter=q) for name, (_, q) in ITEM_STATES.items()}
    )


def study_item_list_member(*, user) -> QuerySet[StudyItem]:
    """Items of every study the user is a member of (staff: all)."""
    items = StudyItem.objects.select_related("study", "report__repository")
    if user_is_staff(user):
        return items
    return items.filter(study__in=StudyMember.objects.filter(user=user).values("study"))


def item_history(*, item: StudyItem, user, access: StudyAccess) -> QuerySet[AnnotationVersion]:
    """Every version of every submission on the item that the user may see, oldest first:
    all of them for its overseeing leads, and once the item is final for its leads,
    researchers and staff and for whoever labelled it; otherwise only the user's own."""
    versions = item.versions.select_related(
        "annotator",
        "imported__imported_by",
        "migration__from_codebook",
        "migration__to_codebook",
        "migration__migrated_by",
    ).order_by("created_at", "pk")
    if access.sees_all_labels:
        return versions
    if item.adjudicated_at is not None and (
        access.can_view_progress
        or item.assignments.filter(annotator=user, status=Assignment.Status.SUBMITTED).exists()
    ):
        return versions
    return versions.filter(annotator=user)
