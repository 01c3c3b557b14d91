"""Hand items out, take labels in. Safe under many annotators at once.

Every change to an item's `claimed` and `submitted` counters is one UPDATE on the locked
row; the database refuses more than `needed` claims and a second assignment of the same
person. Writers lock an assignment before its item (handing out locks a fresh item and
inserts a new assignment), so no two wait on each other in a circle.
"""

from __future__ import annotations

from collections import Counter

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from labeler.labels import Scheme, labels_paths, labels_validate, study_scheme
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    SkipReason,
    Study,
    StudyItem,
)

Status = Assignment.Status
# Held items expire in small bites so one request never does much of the sweeping.
EXPIRE_BATCH = 100


@transaction.atomic
def assignment_expire_stale(*, study: Study) -> int:
    """Return held items nobody submitted within the study's hold timeout to the pool."""
    cutoff = timezone.now() - study.hold_timeout
    stale = list(
        Assignment.objects.select_for_update(skip_locked=True)
        .filter(study=study, status=Status.HELD, held_at__lt=cutoff)
        .order_by("held_at")
        .values_list("pk", "item_id")[:EXPIRE_BATCH]
    )
    if not stale:
        return 0
    Assignment.objects.filter(pk__in=[pk for pk, _ in stale]).update(status=Status.EXPIRED)
    for item_id, count in sorted(Counter(item_id for _, item_id in stale).items()):
        StudyItem.objects.filter(pk=item_id).update(claimed=F("claimed") - count)
    return len(stale)


def assignment_next(*, study: Study, user) -> Assignment | None:
    """The item `user` should label next, held for them; None when nothing is left for them.

    An item the user already holds comes back first (a reload does not lose it). Otherwise:
    the first item in the study's order that still needs annotations, that the user has not
    held, submitted or skipped, and that no other request is handing out at this moment.
    """
    assignment_expire_stale(study=study)
    now = timezone.now()
    held = (
        Assignment.objects.filter(
            study=study,
            annotator=user,
            status=Status.HELD,
            held_at__gte=now - study.hold_timeout,
        )
        .select_related("item__report__repository")
        .order_by("held_at", "pk")
        .first()
    )
    if held is not None:
        return held
    return _assignment_claim(study=study, user=user, now=now)


@transaction.atomic
def _assignment_claim(*, study: Study, user, now) -> Assignment | None:
    taken = Assignment.objects.filter(item=OuterRef("pk"), annotator=user).exclude(
        status=Status.EXPIRED
    )
    expired = Assignment.objects.filter(item=OuterRef("pk"), annotator=user, status=Status.EXPIRED)
    order = (
        ("-priority", "position") if study.item_order == Study.ItemOrder.PRIORITY else ("position",)
    )
    item = (
        StudyItem.objects.filter(study=study, claimed__lt=F("needed"), adjudicated_at__isnull=True)
        .exclude(Exists(taken))
        .annotate(had_expired=Exists(expired))
        .select_related("report__repository")
        .select_for_update(skip_locked=True, of=("self",))
        .order_by(*order)
        .first()
    )
    if item is None:
        return None
    if item.had_expired:
        assignment = Assignment.objects.get(item=item, annotator=user)
        assignment.status = Status.HELD
        assignment.held_at = now
        assignment.save(update_fields=["status", "held_at"])
    else:
        assignment = Assignment.objects.create(
            item=item, study=study, annotator=user, status=Status.HELD, held_at=now
        )
    StudyItem.objects.filter(pk=item.pk).update(claimed=F("claimed") + 1)
    item.claimed += 1
    assignment.item = item
    return assignment


def _locked_own(*, assignment_id: int, user) -> Assignment:
    """Lock the user's assignment; its item is read, not locked (see _item_counters_update)."""
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("item__study__codebook")
        .get(pk=assignment_id)
    )
    if assignment.annotator_id != user.pk:
        raise PermissionDenied("this assignment belongs to another annotator")
    return assignment


def _item_counters_update(*, item: StudyItem, claimed: int, submitted: int, reclaim: bool) -> None:
    """Change the item's counters as the transaction's last write.

    The item row is locked only from here to the commit, so annotators of the same item do
    not queue behind each other's whole submission. The conditions re-check, under the lock,
    what was read earlier without it; if they no longer hold, everything rolls back.
    """
    conditions = {"pk": item.pk, "adjudicated_at__isnull": True}
    if reclaim:
        conditions["claimed__lt"] = F("needed")
    updated = StudyItem.objects.filter(**conditions).update(
        claimed=F("claimed") + claimed, submitted=F("submitted") + submitted
    )
    if updated:
        return
    if StudyItem.objects.filter(pk=item.pk, adjudicated_at__isnull=False).exists():
        raise ValidationError(ADJUDICATED)
    raise ValidationError(
        "your hold on this item expired and other annotators took it; ask for the next one"
    )


ADJUDICATED = "this item is adjudicated; its labels can no longer change"


def _changes(old: dict, new: dict) -> dict:
    return {
        key: {"from": old.get(key, []), "to": new.get(key, [])}
        for key in sorted(set(old) | set(new))
        if old.get(key, []) != new.get(key, [])
    }


def _submission_fields(*, note, unsure, seconds) -> tuple[str, bool, int]:
    errors = {}
    if not isinstance(note, str):
        errors["note"] = "must be text"
    elif "\x00" in note:
        errors["note"] = "must not contain the NUL character"
    if not isinstance(unsure, bool):
        errors["unsure"] = "must be true or false"
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= 86_400:
        errors["seconds"] = "must be a whole number of seconds between 0 and 86400"
    if errors:
        raise ValidationError(errors)
    return note, unsure, seconds


@transaction.atomic
def assignment_submit(
    *,
    assignment_id: int,
    user,
    labels: dict,
    note: str = "",
    unsure: bool = False,
    seconds: int = 0,
    scheme: Scheme | None = None,
) -> Assignment:
    """Store the user's labels for their assignment: a first submission or a revision.

    Every submission becomes a numbered version in the item's history with what changed.
    Refused, with nothing stored: someone else's assignment, an adjudicated or skipped item,
    a hold that expired after others took the item, and any label `labels_validate` refuses.
    """
    note, unsure, seconds = _submission_fields(note=note, unsure=unsure, seconds=seconds)
    assignment = _locked_own(assignment_id=assignment_id, user=user)
    item = assignment.item
    if item.adjudicated_at is not None:
        raise ValidationError(ADJUDICATED)
    if assignment.status == Status.SKIPPED:
        raise ValidationError("you skipped this item; it went to other annotators")
    scheme = scheme or study_scheme(study=item.study)
    chosen = labels_validate(scheme=scheme, labels=labels)
    reclaim = assignment.status == Status.EXPIRED
    first = assignment.status != Status.SUBMITTED
    now = timezone.now()

    new = labels_paths(chosen)
    if first:
        changes = {}
    else:
        old = dict(assignment.annotations.values_list("dimension__key", "values"))
        changes = _changes(old, new)
        if note != assignment.note:
            changes["note"] = {"from": assignment.note, "to": note}
        if unsure != assignment.unsure:
            changes["unsure"] = {"from": assignment.unsure, "to": unsure}
        assignment.annotations.all().delete()
    dimensions = {d.key: d for d in scheme.dimensions}
    annotations = Annotation.objects.bulk_create(
        [
            Annotation(
                assignment=assignment,
                item=item,
                annotator=user,
                dimension=dimensions[key],
                values=paths,
                updated_at=now,
            )
            for key, paths in new.items()
        ]
    )
    Annotation.categories.through.objects.bulk_create(
        [
            Annotation.categories.through(annotation_id=annotation.pk, category_id=category.pk)
            for annotation in annotations
            for category in chosen[annotation.dimension.key]
        ]
    )
    assignment.version += 1
    AnnotationVersion.objects.create(
        assignment=assignment,
        item=item,
        annotator=user,
        number=assignment.version,
        labels=new,
        changes=changes,
        note=note,
        unsure=unsure,
        seconds=seconds,
        created_at=now,
    )
    assignment.status = Status.SUBMITTED
    if first:
        assignment.submitted_at = now
    assignment.note = note
    assignment.unsure = unsure
    assignment.seconds += seconds
    assignment.save(
        update_fields=["status", "submitted_at", "note", "unsure", "seconds", "version"]
    )
    _item_counters_update(item=item, claimed=int(reclaim), submitted=int(first), reclaim=reclaim)
    return assignment


@transaction.atomic
def assignment_skip(*, assignment_id: int, user, reason: str, note: str = "") -> Assignment:
    """Give the item back with a reason; it goes to other annotators and the lead sees why."""
    if reason not in SkipReason.values:
        raise ValidationError(
            {"reason": f"{reason!r} is not one of {', '.join(SkipReason.values)}"}
        )
    note, _, _ = _submission_fields(note=note, unsure=False, seconds=0)
    assignment = _locked_own(assignment_id=assignment_id, user=user)
    if assignment.status == Status.SUBMITTED:
        raise ValidationError("you submitted labels for this item; revise them instead")
    if assignment.status == Status.SKIPPED:
        raise ValidationError("you skipped this item already")
    was_held = assignment.status == Status.HELD
    assignment.status = Status.SKIPPED
    assignment.skip_reason = reason
    assignment.note = note
    assignment.save(update_fields=["status", "skip_reason", "note"])
    if was_held:
        StudyItem.objects.filter(pk=assignment.item_id).update(claimed=F("claimed") - 1)
    return assignment
