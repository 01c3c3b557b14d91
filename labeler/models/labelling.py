"""Labelling: hand-outs (assignments), the labels given and every version of them."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from labeler.models.imports import LabelImport
from labeler.models.studies import Study, StudyItem
from taxonomy.models import Category, Dimension


class SkipReason(models.TextChoices):
    NOT_A_BUG = "not_a_bug", "not a bug report"
    NOT_ENOUGH_INFORMATION = "not_enough_information", "not enough information"
    CANNOT_JUDGE = "cannot_judge", "cannot judge"


class Assignment(models.Model):
    """One annotator's turn at one item: held, then submitted (or skipped, or expired)."""

    class Status(models.TextChoices):
        HELD = "held"
        SUBMITTED = "submitted"
        SKIPPED = "skipped"
        EXPIRED = "expired"

    # Statuses that take one of the item's `needed` places.
    CLAIMING = (Status.HELD, Status.SUBMITTED)

    # Both indexed as first columns of assignment_unique_person and assignment_by_annotator.
    # One composite foreign key checks both, and that the study is the item's:
    # assignment_item_in_study (migration 0010), not a constraint each.
    item = models.ForeignKey(
        StudyItem,
        on_delete=models.CASCADE,
        related_name="assignments",
        db_index=False,
        db_constraint=False,
    )
    study = models.ForeignKey(
        Study,
        on_delete=models.CASCADE,
        related_name="assignments",
        db_index=False,
        db_constraint=False,
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.HELD)
    held_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    skip_reason = models.CharField(max_length=30, choices=SkipReason.choices, blank=True)
    note = models.TextField(blank=True)
    unsure = models.BooleanField(default=False)
    seconds = models.PositiveIntegerField(default=0, help_text="Time spent, over all versions.")
    version = models.PositiveIntegerField(default=0, help_text="0 until first submitted.")
    # A database default too: the hand-out inserts assignments in raw SQL.
    relabel = models.JSONField(
        default=dict,
        db_default={},
        blank=True,
        help_text="Flagged by a codebook migration: {dimension key: [key paths as they were]} "
        "to label again, shown as context; the next submission clears it.",
    )

    class Meta:
        ordering = ["study", "held_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="assignment_unique_person"),
            # What the composite foreign keys of annotations and versions refer to.
            models.UniqueConstraint(
                fields=["id", "item", "annotator"], name="assignment_unique_id_item_annotator"
            ),
            models.CheckConstraint(
                condition=~Q(status="skipped") | ~Q(skip_reason=""),
                name="assignment_skip_has_reason",
            ),
        ]
        indexes = [
            models.Index(
                fields=["study", "held_at"],
                condition=Q(status="held"),
                name="assignment_held_by_age",
            ),
            models.Index(fields=["study", "annotator", "status"], name="assignment_by_annotator"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on item {self.item_id} ({self.status})"


class Annotation(models.Model):
    """The current answer of one annotator for one item and dimension.

    `values` holds category key paths (stable: the study's codebook version is frozen) and
    `categories` the same choice as rows, for agreement queries in SQL.
    """

    # One composite foreign key checks all three, and that the item and the annotator are the
    # assignment's: annotation_of_assignment (migration 0010), not a constraint each (at 100k
    # imported labels, each per-row check costs about a second at commit).
    assignment = models.ForeignKey(
        Assignment, on_delete=models.CASCADE, related_name="annotations", db_constraint=False
    )
    # Indexed as the first column of annotation_unique_answer.
    item = models.ForeignKey(
        StudyItem,
        on_delete=models.CASCADE,
        related_name="annotations",
        db_index=False,
        db_constraint=False,
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="annotations",
        db_constraint=False,
    )
    dimension = models.ForeignKey(Dimension, on_delete=models.PROTECT, related_name="annotations")
    values = models.JSONField(default=list)
    categories = models.ManyToManyField(Category, related_name="annotations")
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["item", "annotator", "dimension__position"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "annotator", "dimension"], name="annotation_unique_answer"
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on item {self.item_id}: {self.dimension.key}={self.values}"


class AnnotationVersion(models.Model):
    """Every submission and revision, as it was: who, when, what, and what changed."""

    # Indexed as the first column of version_unique_number. As for annotations, one composite
    # foreign key checks the three: version_of_assignment (migration 0010).
    assignment = models.ForeignKey(
        Assignment,
        on_delete=models.CASCADE,
        related_name="versions",
        db_index=False,
        db_constraint=False,
    )
    item = models.ForeignKey(
        StudyItem, on_delete=models.CASCADE, related_name="versions", db_constraint=False
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="annotation_versions",
        db_constraint=False,
    )
    number = models.PositiveIntegerField()
    labels = models.JSONField(help_text="{dimension key: [category key paths]}")
    # A database default too: the submission and the imports write versions in raw SQL.
    codes = models.JSONField(
        default=dict,
        db_default={},
        blank=True,
        help_text="Open coding: {dimension key: [codes as written]}.",
    )
    changes = models.JSONField(
        default=dict, help_text="{dimension key: {from: [...], to: [...]}}; empty for version 1."
    )
    note = models.TextField(blank=True)
    unsure = models.BooleanField(default=False)
    seconds = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()
    imported = models.ForeignKey(
        LabelImport,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="versions",
        help_text="The file this version came from; empty when made in the app.",
    )
    migration = models.ForeignKey(
        "CodebookMigration",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="versions",
        help_text="The codebook migration that wrote this version (its labels translated into "
        "the new version); empty when an annotator or an import made it.",
    )
    labelled_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="A migration's version: when the labels it translates were given, the moment "
        "agreement reads it as of; empty: created_at.",
    )

    class Meta:
        ordering = ["item", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "number"], name="version_unique_number")
        ]
        indexes = [
            # Agreement reads only versions made against the study's current scheme: none
            # followed by a migration's version of the same assignment.
            models.Index(
                fields=["assignment", "number"],
                condition=Q(migration__isnull=False),
                name="version_by_migration",
            )
        ]

    def __str__(self) -> str:
        return f"{self.assignment} v{self.number}"
