"""Adjudication: final labels, how each was reached, and their history."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from labeler.models.studies import StudyItem
from taxonomy.models import Category, Dimension


class DisagreementReason(models.TextChoices):
    CODEBOOK_AMBIGUITY = "codebook_ambiguity", "the codebook is ambiguous"
    ANNOTATOR_SLIP = "annotator_slip", "an annotator slipped"
    REPORT_UNCLEAR = "report_unclear", "the report is unclear"
    OTHER = "other", "other"


class FinalMethod(models.TextChoices):
    UNANIMOUS = "unanimous"
    MAJORITY = "majority"
    ADJUDICATED = "adjudicated"
    IMPORTED = "imported"


# Methods of decisions taken without a person: a revision before the item is final redoes them.
AUTOMATIC_METHODS = (FinalMethod.UNANIMOUS, FinalMethod.MAJORITY)


class FinalLabel(models.Model):
    """The label an item ends with on one dimension, and how it was reached.

    `values` and `categories` as on Annotation. `decided_by` is the lead who adjudicated
    (empty when automatic or imported); `reason` says why the annotators disagreed (only for
    adjudicated labels). Every decision and reopening is also kept in FinalLabelEvent.
    """

    # Indexed as the first column of final_unique_dimension.
    item = models.ForeignKey(
        StudyItem, on_delete=models.CASCADE, related_name="final_labels", db_index=False
    )
    dimension = models.ForeignKey(Dimension, on_delete=models.PROTECT, related_name="+")
    values = models.JSONField(default=list)
    categories = models.ManyToManyField(Category, related_name="final_labels")
    method = models.CharField(max_length=12, choices=FinalMethod.choices)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    rationale = models.TextField(blank=True)
    reason = models.CharField(max_length=20, choices=DisagreementReason.choices, blank=True)
    decided_at = models.DateTimeField()

    class Meta:
        ordering = ["item", "dimension__position"]
        constraints = [
            models.UniqueConstraint(fields=["item", "dimension"], name="final_unique_dimension"),
            models.CheckConstraint(
                condition=Q(method="adjudicated") | Q(reason=""), name="final_reason_if_adjudicated"
            ),
        ]

    def __str__(self) -> str:
        return f"item {self.item_id}: {self.dimension.key}={self.values} ({self.method})"


class FinalLabelEvent(models.Model):
    """One step in the making of an item's final labels, kept as it happened and never changed:
    a dimension decided (its value and how), or its decision withdrawn (a lead reopened it, or
    an annotator's revision undid an automatic decision before the item was final)."""

    class Kind(models.TextChoices):
        DECIDED = "decided"
        REOPENED = "reopened"

    item = models.ForeignKey(StudyItem, on_delete=models.CASCADE, related_name="final_events")
    dimension = models.ForeignKey(Dimension, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    values = models.JSONField(default=list, help_text="The decided, or the withdrawn, value.")
    method = models.CharField(max_length=12, choices=FinalMethod.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Who decided or reopened; empty when automatic or imported.",
    )
    rationale = models.TextField(blank=True)
    reason = models.CharField(max_length=20, choices=DisagreementReason.choices, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["item", "created_at", "pk"]

    def __str__(self) -> str:
        return f"item {self.item_id}: {self.dimension.key} {self.kind} ({self.method})"
