"""Studies: a study, its members, its batches and its items."""

import datetime as dt

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q

from mining.models import BugReport
from taxonomy.models import Codebook, Dimension


class Study(models.Model):
    """A labelling study: which reports, which codebook version and dimensions, by whom."""

    class ItemOrder(models.TextChoices):
        RANDOM = "random", "random (seeded), the same order for every annotator"
        PER_ANNOTATOR = "per_annotator", "random (seeded), each annotator their own order"
        PRIORITY = "priority", "by priority, then random"

    class Majority(models.TextChoices):
        AUTO = "auto", "accepted automatically"
        LEAD = "lead", "sent to a lead"

    class Kind(models.TextChoices):
        CLOSED = "closed", "closed coding: labels from the codebook's categories"
        OPEN = "open", "open coding: free-text codes, besides the codebook's categories if any"

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    codebook = models.ForeignKey(Codebook, on_delete=models.PROTECT, related_name="studies")
    dimensions = models.ManyToManyField(Dimension, related_name="studies")
    overlap = models.PositiveSmallIntegerField(
        default=2, help_text="Independent annotations each item needs."
    )
    guidelines = models.TextField(blank=True, help_text="Markdown.")
    frame = models.JSONField(
        default=dict, blank=True, help_text="The report query items are drawn from."
    )
    sampling = models.JSONField(default=dict, blank=True, help_text="How the first batch drew.")
    seed = models.BigIntegerField(default=0, help_text="Seed of the first batch's draw and order.")
    item_order = models.CharField(
        max_length=20, choices=ItemOrder.choices, default=ItemOrder.RANDOM
    )
    hold_timeout = models.DurationField(
        default=dt.timedelta(minutes=30),
        help_text="A held item nobody submits returns to the pool after this long.",
    )
    # Unanimous answers always become final on their own; a majority waits for a lead unless
    # the study says otherwise: with two or three annotators a majority is one person more.
    majority = models.CharField(
        max_length=10,
        choices=Majority.choices,
        default=Majority.LEAD,
        help_text="What happens to a dimension most, but not all, annotators agree on.",
    )
    kind = models.CharField(
        max_length=10,
        choices=Kind.choices,
        default=Kind.CLOSED,
        db_default=Kind.CLOSED,
        help_text="Open coding builds a codebook; closed coding applies one.",
    )
    # Off by default: codes written without seeing others' stay independent, at the cost of
    # more synonyms to merge on the board.
    codes_shared = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Open coding: annotators see, and are offered, the codes others wrote while "
        "the round runs. Off: each sees only their own.",
    )
    # labeler.agreement.hierarchy: the hierarchy alpha's distance between two different paths
    # under one top category (0: as good as the same path, 1: no credit).
    parent_distance = models.FloatField(
        default=0.5,
        db_default=0.5,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Hierarchy alpha: the distance between two different category paths under "
        "one top category (0 to 1; the same path is 0, paths under different top categories "
        "1).",
    )

    # labeler.agreement.statistics.KAPPA_SCALES: the scale of the kappas' and AC1's bands.
    class KappaScale(models.TextChoices):
        LANDIS_KOCH = "landis_koch", "Landis and Koch (1977)"
        FLEISS = "fleiss", "Fleiss (1981)"
        ALTMAN = "altman", "Altman (1991)"

    kappa_scale = models.CharField(
        max_length=20,
        choices=KappaScale.choices,
        default=KappaScale.LANDIS_KOCH,
        db_default=KappaScale.LANDIS_KOCH,
        help_text="The published scale the bands of Cohen's kappa, Fleiss' kappa and Gwet's AC1 "
        "come from (alpha's are Krippendorff's).",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "studies"
        permissions = [("export_study", "Can download a study's labelled dataset")]

    def __str__(self) -> str:
        return self.name


class StudyMember(models.Model):
    class Role(models.TextChoices):
        ANNOTATOR = "annotator"
        LEAD = "lead"
        RESEARCHER = "researcher"

    # Indexed as the first column of member_unique_role.
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="members", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_memberships"
    )
    role = models.CharField(max_length=20, choices=Role.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "user", "role"], name="member_unique_role")
        ]

    def __str__(self) -> str:
        return f"{self.user} as {self.role} in {self.study}"


class StudyBatch(models.Model):
    """One draw of items into a study, with everything needed to repeat it."""

    # Indexed as the first column of batch_unique_number.
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="batches", db_index=False
    )
    number = models.PositiveSmallIntegerField()
    frame = models.JSONField(default=dict, blank=True)
    sampling = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    frame_size = models.PositiveIntegerField(help_text="Reports in the frame, minus earlier items.")
    sample_size = models.PositiveIntegerField()
    strata = models.JSONField(default=list, blank=True, help_text="[{key, population, sample}]")
    # Empty for a random draw; population estimates read random batches alone.
    prioritised = models.JSONField(
        null=True,
        blank=True,
        help_text="A batch drawn by a screening model, not at random: {triage_run, by, count}.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "number"]
        verbose_name_plural = "study batches"
        constraints = [
            models.UniqueConstraint(fields=["study", "number"], name="batch_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.study.slug} batch {self.number}"


class StudyItem(models.Model):
    """A report to label in a study.

    `claimed` counts held and submitted assignments; it only changes while the row is locked,
    and the database refuses more than `needed` of them.
    """

    # Indexed as the first column of item_unique_report: no index of its own to keep up.
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="items", db_index=False)
    report = models.ForeignKey(BugReport, on_delete=models.PROTECT, related_name="study_items")
    batch = models.PositiveSmallIntegerField(default=1)
    position = models.PositiveIntegerField(default=0, help_text="Seeded random order.")
    priority = models.IntegerField(default=0, help_text="Higher first when ordered by priority.")
    needed = models.PositiveSmallIntegerField(default=2, help_text="Annotations this item needs.")
    claimed = models.PositiveSmallIntegerField(default=0, editable=False)
    submitted = models.PositiveSmallIntegerField(default=0, editable=False)
    adjudicated_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the item became final (every dimension has a final label, however "
        "reached); empty again when a lead reopens it.",
    )
    first_final_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="When the item first became final: agreement reads the labels as they were "
        "then, before anyone saw a final label, even after a reopening.",
    )

    class Meta:
        ordering = ["study", "position"]
        constraints = [
            models.UniqueConstraint(fields=["study", "report"], name="item_unique_report"),
            # What an assignment's composite foreign key (item, study) refers to.
            models.UniqueConstraint(fields=["id", "study"], name="item_unique_id_study"),
            models.CheckConstraint(
                condition=Q(claimed__lte=F("needed")), name="item_claimed_at_most_needed"
            ),
            models.CheckConstraint(
                condition=Q(submitted__lte=F("claimed")), name="item_submitted_at_most_claimed"
            ),
        ]
        indexes = [
            # The open items of a study in hand-out order; full items drop out of the index.
            models.Index(
                fields=["study", "position"],
                condition=Q(claimed__lt=F("needed"), adjudicated_at__isnull=True),
                name="item_open_by_position",
            ),
            models.Index(
                F("study"),
                F("priority").desc(),
                F("position"),
                condition=Q(claimed__lt=F("needed"), adjudicated_at__isnull=True),
                name="item_open_by_priority",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study.slug}: {self.report}"
