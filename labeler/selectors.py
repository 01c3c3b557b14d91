"""Reads of studies, items, assignments and labels, with the blind rule applied here."""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import NamedTuple

from django.contrib.postgres.expressions import ArraySubquery
from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, F, Min, OuterRef, Prefetch, Q, QuerySet, Sum
from django.utils import timezone

from labeler.adjudication import study_pseudonyms
from labeler.codebook_migration import (
    REMOVED,
    PlanError,
    ValuePlan,
    category_changes,
    mapping_compose,
    value_plan,
)
from labeler.coding import current_codes
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    FinalLabel,
    LabelImportJob,
    Study,
    StudyItem,
    StudyMember,
)
from labeler.permissions import StudyAccess, access_sees_annotator_names, user_is_staff
from taxonomy.models import Category, Codebook, Dimension

Status = Assignment.Status


def study_list_for_user(*, user) -> QuerySet[Study]:
    """Studies the user is a member of (any role); staff see every study."""
    studies = Study.objects.select_related("codebook").prefetch_related("dimensions")
    if user_is_staff(user):
        return studies
    return studies.filter(pk__in=StudyMember.objects.filter(user=user).values("study"))


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
    return items.filter(study__in=_led_studies(user))


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


def assignment_list_visible(*, user) -> QuerySet[Assignment]:
    """The user's own assignments, plus every assignment of the studies they oversee (lead
    without labelling in them; staff: every study they do not label in); each with its
    `current_codes` (labeler.coding)."""
    assignments = (
        Assignment.objects.select_related("study", "annotator", "item__report__repository")
        .annotate(current_codes=current_codes())
        .order_by("-held_at", "-pk")
    )
    if user_is_staff(user):
        return assignments.exclude(
            Q(study__in=_annotated_studies(user))
            & ~Q(annotator=user)
            & Q(item__adjudicated_at__isnull=True)
        )
    return assignments.filter(Q(annotator=user) | Q(study__in=_overseen_studies(user)))


def _led_studies(user):
    return StudyMember.objects.filter(user=user, role=StudyMember.Role.LEAD).values("study")


def _annotated_studies(user):
    return StudyMember.objects.filter(user=user, role=StudyMember.Role.ANNOTATOR).values("study")


def _overseen_studies(user):
    """Studies the user leads without labelling in them: whoever labels stays blind."""
    return _led_studies(user).exclude(study__in=_annotated_studies(user))


def _progress_studies(user):
    """Studies whose final items the user reads whole: those they lead or research in."""
    return StudyMember.objects.filter(
        user=user, role__in=[StudyMember.Role.LEAD, StudyMember.Role.RESEARCHER]
    ).values("study")


def _labelled_by(user, item: str = "item"):
    """Whether the user submitted labels for the rows' item (`item`: the path to it)."""
    return Exists(
        Assignment.objects.filter(
            item=OuterRef(item), annotator=user, status=Assignment.Status.SUBMITTED
        )
    )


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
            Q(item__study__in=_annotated_studies(user))
            & ~Q(annotator=user)
            & Q(item__adjudicated_at__isnull=True)
        )
    final = Q(item__adjudicated_at__isnull=False)
    return annotations.filter(
        Q(annotator=user)
        | Q(item__study__in=_overseen_studies(user))
        | (final & Q(item__study__in=_progress_studies(user)))
        | (final & _labelled_by(user, "item"))
    )


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


def assignment_previous(*, study: Study, user, before: Assignment | None = None):
    """The user's submission before `before` (or their latest), for a "previous" button, with
    its labels and its `current_codes` (labeler.coding)."""
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


@dataclass(frozen=True)
class ComeBack:
    """When nothing is free for an annotator: how many items that others hold may still come
    to them, and in how many seconds to look again (None when none may)."""

    held_by_others: int
    retry_after_seconds: int | None


# Looking again sooner than this is pointless; a free item that a hand-out skipped because
# another request held it locked at that moment is free again within this.
RETRY_SOON_SECONDS = 5


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


class FinalLabelRow(NamedTuple):
    item_id: int
    report_id: int
    dimension: str
    values: tuple[str, ...]


def study_final_labels(*, study: Study) -> list[FinalLabelRow]:
    """The study's final labels: (item id, report id, dimension key, category key paths) per
    item and dimension that has one, by item and dimension position. Only items that are
    final now count (a reopened item is not, until it is decided again)."""
    rows = (
        FinalLabel.objects.filter(item__study=study, item__adjudicated_at__isnull=False)
        .order_by("item__position", "item_id", "dimension__position")
        .values_list("item_id", "item__report_id", "dimension__key", "values")
    )
    return [
        FinalLabelRow(item_id, report_id, dimension, tuple(sorted(values)))
        for item_id, report_id, dimension, values in rows
    ]


def label_import_jobs_recent(*, study: Study) -> QuerySet[LabelImportJob]:
    """The study's background label imports, newest first, without their files."""
    return (
        LabelImportJob.objects.filter(study=study)
        .select_related("imported_by")
        .defer("data")
        .order_by("-created_at", "-pk")
    )


def label_import_job_get(*, study: Study, job_id: int) -> LabelImportJob:
    """One of the study's background label imports (DoesNotExist if it has none of that id)."""
    return label_import_jobs_recent(study=study).get(pk=job_id)


@dataclass(frozen=True)
class CategoryMove:
    """One old category in a codebook migration's plan: what became of it, where it goes,
    and how many current labels (annotations) and final labels use it."""

    dimension: str
    path: str
    change: str
    into: list[str]
    annotations: int
    finals: int


@dataclass(frozen=True)
class LabelMove:
    """One annotation's or final label's value (`old`) and its plan in the new version."""

    id: int
    item_id: int
    assignment_id: int | None
    key: str
    old: list[str]
    plan: ValuePlan


@dataclass
class MigrationPlan:
    """A study's move to a revised version of its codebook, as it would go now.

    `mapping` is composed from the study's version (`source`) to `target`; `dimensions` are
    the target's dimensions the study labels, by key. `holds` counts the items annotators
    hold at this moment: a migration waits until they are submitted or expire."""

    study: Study
    source: Codebook
    target: Codebook
    mapping: dict
    dimensions: dict[str, Dimension]
    categories: list[CategoryMove]
    annotations: list[LabelMove]
    finals: list[LabelMove]
    holds: int

    @cached_property
    def relabelled(self) -> set[tuple[int, str]]:
        """(item id, dimension key) where an annotation needs re-labelling."""
        return {(move.item_id, move.key) for move in self.annotations if move.plan.relabel}

    def reopens(self, final: LabelMove) -> bool:
        """A final label is reopened when it touches a split (or removed) category, or when
        an annotation it rests on must be labelled again."""
        return final.plan.relabel or (final.item_id, final.key) in self.relabelled

    @property
    def counts(self) -> dict[str, int]:
        reopened = [final for final in self.finals if self.reopens(final)]
        relabel = [move for move in self.annotations if move.plan.relabel]
        return {
            "annotations_carried": len(self.annotations) - len(relabel),
            "annotations_relabel": len(relabel),
            "assignments_flagged": len({move.assignment_id for move in relabel}),
            "finals_carried": len(self.finals) - len(reopened),
            "finals_reopened": len(reopened),
            "items_reopened": len({final.item_id for final in reopened}),
        }


def codebook_lineage(*, source: Codebook, target: Codebook) -> list[Codebook]:
    """The versions after `source` up to `target`, each revised from the one before it; a
    ValidationError when `target` is `source` or does not derive from it."""
    if target.pk == source.pk:
        raise ValidationError(
            f"the study is on {source.key} v{source.version} already: choose a later version"
        )
    chain = [target]
    while chain[-1].derived_from_id not in (None, source.pk):
        chain.append(Codebook.objects.get(pk=chain[-1].derived_from_id))
    if chain[-1].derived_from_id != source.pk:
        raise ValidationError(
            f"{target.key} v{target.version} does not derive from the study's version "
            f"({source.key} v{source.version}): a study moves only to a revision of its version"
        )
    return chain[::-1]


def codebook_revisions_after(*, codebook: Codebook) -> list[Codebook]:
    """Every version revised, directly or not, from `codebook`, oldest first."""
    found: list[Codebook] = []
    frontier = [codebook.pk]
    while frontier:
        revised = list(Codebook.objects.filter(derived_from__in=frontier).order_by("pk"))
        found += revised
        frontier = [c.pk for c in revised]
    return found


def study_codebook_migration_plan(*, study: Study, target: Codebook) -> MigrationPlan:
    """How the study's labels would move to `target` now (see labeler.codebook_migration).

    Refused with a ValidationError naming the problem: the same version, a version that does
    not derive from the study's, an open-coding study (its round builds a codebook), a
    dimension of the study the target lacks."""
    source = study.codebook
    lineage = codebook_lineage(source=source, target=target)
    if study.kind == Study.Kind.OPEN:
        raise ValidationError(
            f"study {study.slug!r} is an open-coding study: its round builds a codebook; "
            "migrate a closed study's labels"
        )
    mapping = mapping_compose([version.mapping for version in lineage])
    keys = list(study.dimensions.order_by("position").values_list("key", flat=True))
    dimensions = {d.key: d for d in target.dimensions.filter(key__in=keys)}
    missing = [key for key in keys if key not in dimensions]
    if missing:
        raise ValidationError(
            f"{target.key} v{target.version} has no dimension {', '.join(map(repr, missing))}, "
            f"which study {study.slug!r} labels"
        )
    annotations = [
        LabelMove(pk, item_id, assignment_id, key, values, _value_plan(mapping, key, values))
        for pk, item_id, assignment_id, key, values in Annotation.objects.filter(item__study=study)
        .order_by("pk")
        .values_list("pk", "item_id", "assignment_id", "dimension__key", "values")
    ]
    finals = [
        LabelMove(pk, item_id, None, key, values, _value_plan(mapping, key, values))
        for pk, item_id, key, values in FinalLabel.objects.filter(item__study=study)
        .order_by("pk")
        .values_list("pk", "item_id", "dimension__key", "values")
    ]
    uses = Counter((move.key, path) for move in annotations for path in move.old)
    final_uses = Counter((move.key, path) for move in finals for path in move.old)
    categories = []
    for key in keys:
        changes = category_changes(mapping.get(key, {}))
        for path in (
            Category.objects.filter(dimension__codebook=source, dimension__key=key)
            .order_by("position")
            .values_list("path", flat=True)
        ):
            categories.append(
                CategoryMove(
                    dimension=key,
                    path=path,
                    change=changes.get(path, REMOVED),
                    into=mapping.get(key, {}).get(path, []),
                    annotations=uses[(key, path)],
                    finals=final_uses[(key, path)],
                )
            )
    holds = study.assignments.filter(
        status=Status.HELD, held_at__gte=timezone.now() - study.hold_timeout
    ).count()
    return MigrationPlan(
        study=study,
        source=source,
        target=target,
        mapping=mapping,
        dimensions=dimensions,
        categories=categories,
        annotations=annotations,
        finals=finals,
        holds=holds,
    )


def _value_plan(mapping: dict, key: str, values: list[str]) -> ValuePlan:
    try:
        return value_plan(mapping.get(key, {}), values)
    except PlanError as problem:
        raise ValidationError(f"dimension {key!r}: {problem}") from None
