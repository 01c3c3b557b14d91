"""Move a study, and its labels, to a revised version of its codebook.

The plan (labeler.revisions.selectors.study_revision_plan, on labeler.revisions.mapping)
says what becomes of every current label. Carried labels are rewritten into the new
version's categories; a label on a split (or removed) category is taken off the assignment,
which is flagged (`Assignment.relabel`, the old value kept as context) and goes back into
its annotator's queue; a final label touching a split category, or resting on an annotation
to label again, is reopened for adjudication. Every assignment gets a new version in its
history pointing to the migration (whose `reason` says from which version to which, and who
ran it); every final label changed or reopened leaves a FinalLabelEvent with that reason.

Locks, in the order writers take them: the study row (one migration at a time), the
study's submitted and held assignments, then its items, all before the labels are read.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from config.api import CONFLICT
from labeler.common.scheme import scheme_forget
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    CodebookMigration,
    FinalLabel,
    FinalLabelEvent,
    Study,
    StudyItem,
)
from labeler.revisions.selectors import RevisionPlan, study_revision_plan
from taxonomy.models import Category, Codebook
from taxonomy.services import codebook_freeze

Status = Assignment.Status
# A migration's counts, in the order and words the command and the page show them.
COUNTS = (
    ("annotations_carried", "labels carried over"),
    ("annotations_relabel", "labels to label again"),
    ("assignments_flagged", "submissions flagged for re-labelling"),
    ("finals_carried", "final labels carried over"),
    ("finals_reopened", "final labels reopened"),
    ("items_reopened", "items back to adjudication"),
)
REOPENED_SPLIT = "the label touches a category that was split or removed; a lead decides again"
REOPENED_RESTING = "an annotator's label on it must be given again; a lead decides again"


@dataclass(frozen=True)
class RevisionOutcome:
    """What a migration did (or, in a dry run, would do): its plan and its counts; `record`
    is the CodebookMigration written (None in a dry run)."""

    plan: RevisionPlan
    counts: dict[str, int]
    record: CodebookMigration | None


@transaction.atomic
def study_revise(
    *, study: Study, codebook: Codebook, user, dry_run: bool = False
) -> RevisionOutcome:
    """Move `study` to `codebook`, a later version of its own, labels and all, in one
    transaction (see the module's docstring). `dry_run` plans and counts, and writes nothing.

    Refused with a ValidationError: the study's own version, a version not revised from it
    (directly or not), an open-coding study, a dimension the new version lacks, and items
    annotators hold right now (their pages show the old version: wait until they are
    submitted or their holds expire)."""
    # The study's row alone, its codebook read once the lock is held: with the codebook
    # joined, a migration that waited here for another one would find no row at all
    # (PostgreSQL re-checks the join against the codebook row it read before the wait). It
    # then finds the study moved, and is refused as a repeat is.
    study = Study.objects.select_for_update().get(pk=study.pk)
    # Locked before the plan reads the labels, so no submission lands between the two.
    assignments = {
        assignment.pk: assignment
        for assignment in Assignment.objects.select_for_update()
        .filter(study=study, status__in=(Status.SUBMITTED, Status.HELD))
        .order_by("pk")
        if assignment.status == Status.SUBMITTED
    }
    list(StudyItem.objects.select_for_update().filter(study=study).order_by("pk"))
    plan = study_revision_plan(study=study, target=codebook)
    if plan.holds:
        raise ValidationError(
            f"{plan.holds} item(s) of study {study.slug!r} are held by annotators right now; "
            "migrate once they are submitted or their holds expire "
            f"(after {study.hold_timeout})",
            code=CONFLICT,
        )
    counts = plan.counts
    if dry_run:
        return RevisionOutcome(plan=plan, counts=counts, record=None)
    now = timezone.now()
    record = CodebookMigration.objects.create(
        study=study,
        from_codebook=plan.source,
        to_codebook=codebook,
        migrated_by=user,
        counts=counts,
        created_at=now,
    )
    codebook_freeze(codebook=codebook)
    study.codebook = codebook
    study.save(update_fields=["codebook"])
    study.dimensions.set(plan.dimensions.values())
    _annotations_move(plan=plan, assignments=assignments, record=record, now=now)
    _finals_move(plan=plan, record=record, user=user, now=now)
    scheme_forget(study_id=study.pk)
    return RevisionOutcome(plan=plan, counts=counts, record=record)


def _categories(plan: RevisionPlan) -> dict[tuple[str, str], Category]:
    found = Category.objects.filter(dimension__in=plan.dimensions.values()).select_related(
        "dimension"
    )
    return {(category.dimension.key, category.path): category for category in found}


def _annotations_move(
    *, plan: RevisionPlan, assignments: dict[int, Assignment], record: CodebookMigration, now
) -> None:
    """Every submitted assignment's labels (`assignments`, locked) into the new version, and
    one version each, read by agreement as of when the labels it translates were given."""
    categories = _categories(plan)
    moves: dict[int, list] = {pk: [] for pk in assignments}
    for move in plan.annotations:
        moves[move.assignment_id].append(move)
    given_at = {
        assignment: labelled_at or created_at
        for assignment, labelled_at, created_at in AnnotationVersion.objects.filter(
            assignment__in=assignments
        )
        .order_by("assignment", "-number")
        .distinct("assignment")
        .values_list("assignment", "labelled_at", "created_at")
    }
    Annotation.objects.filter(assignment__in=assignments).delete()
    added: list[tuple[Annotation, list[Category]]] = []
    versions = []
    for pk, assignment in assignments.items():
        labels, changes = {}, {}
        for move in moves[pk]:
            if move.plan.relabel:
                assignment.relabel[move.key] = {
                    "was": move.old,
                    "into": {path: plan.mapping[move.key].get(path, []) for path in move.old},
                    "suggested": move.plan.values,
                }
                changes[move.key] = {"from": move.old, "to": [], "relabel": True}
                continue
            labels[move.key] = move.plan.values
            if move.plan.values != move.old:
                changes[move.key] = {"from": move.old, "to": move.plan.values}
            dimension = plan.dimensions[move.key]
            annotation = Annotation(
                assignment=assignment,
                item_id=assignment.item_id,
                annotator_id=assignment.annotator_id,
                dimension=dimension,
                values=move.plan.values,
                updated_at=now,
            )
            added.append((annotation, [categories[(move.key, path)] for path in move.plan.values]))
        for key in assignment.relabel:
            # Still to label again after an earlier migration: agreement keeps leaving it out.
            changes.setdefault(key, {"from": [], "to": [], "relabel": True})
        assignment.version += 1
        versions.append(
            AnnotationVersion(
                assignment=assignment,
                item_id=assignment.item_id,
                annotator_id=assignment.annotator_id,
                number=assignment.version,
                labels=labels,
                codes={},
                changes=changes,
                note=assignment.note,
                unsure=assignment.unsure,
                seconds=0,
                created_at=now,
                migration=record,
                labelled_at=given_at.get(pk),
            )
        )
    Annotation.objects.bulk_create([annotation for annotation, _ in added])
    Through = Annotation.categories.through
    Through.objects.bulk_create(
        Through(annotation_id=annotation.pk, category_id=category.pk)
        for annotation, chosen in added
        for category in chosen
    )
    AnnotationVersion.objects.bulk_create(versions)
    Assignment.objects.bulk_update(list(assignments.values()), ["version", "relabel"])


def _finals_move(*, plan: RevisionPlan, record: CodebookMigration, user, now) -> None:
    """Carry final labels over, or reopen them (the item then waits for a lead again)."""
    labels = {
        label.pk: label
        for label in FinalLabel.objects.filter(pk__in=[move.id for move in plan.finals])
    }
    categories = _categories(plan)
    events, reopened, carried = [], [], []

    def event(label, kind, rationale, **fields) -> FinalLabelEvent:
        return FinalLabelEvent(
            item_id=label.item_id,
            dimension_id=label.dimension_id,
            kind=kind,
            values=label.values,
            method=label.method,
            user=user,
            rationale=rationale,
            created_at=now,
            **fields,
        )

    for move in plan.finals:
        label = labels[move.id]
        if plan.reopens(move):
            reopened.append(label)
            why = REOPENED_SPLIT if move.plan.relabel else REOPENED_RESTING
            events.append(event(label, FinalLabelEvent.Kind.REOPENED, f"{record.reason}: {why}"))
            continue
        label.dimension = plan.dimensions[move.key]
        carried.append((label, [categories[(move.key, path)] for path in move.plan.values]))
        if move.plan.values != label.values:
            label.values = move.plan.values
            events.append(
                event(label, FinalLabelEvent.Kind.DECIDED, record.reason, reason=label.reason)
            )
    Through = FinalLabel.categories.through
    Through.objects.filter(finallabel_id__in=list(labels)).delete()
    FinalLabel.objects.filter(pk__in=[label.pk for label in reopened]).delete()
    FinalLabel.objects.bulk_update([label for label, _ in carried], ["dimension", "values"])
    Through.objects.bulk_create(
        Through(finallabel_id=label.pk, category_id=category.pk)
        for label, chosen in carried
        for category in chosen
    )
    FinalLabelEvent.objects.bulk_create(events)
    StudyItem.objects.filter(pk__in={label.item_id for label in reopened}).update(
        adjudicated_at=None
    )
