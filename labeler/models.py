import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from mining.models import BugReport
from taxonomy.models import Category, Codebook, Dimension


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


class LabelImport(models.Model):
    """A labels file imported into a study: who imported it, when, from which file. The
    versions it wrote point to it, so imported labels are never taken for the app's."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="label_imports")
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="label_imports",
        help_text="Empty: imported from the command line.",
    )
    file_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, help_text="Of the file's bytes, as uploaded.")
    rows = models.PositiveIntegerField()
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.file_name} into {self.study}"


class LabelImportJob(models.Model):
    """A labels file too large to import within the request, imported by a Celery task
    (labeler.tasks.label_import_run): all its rows or none, with its progress.

    The file's bytes are kept in the row (`data`) until the job finishes: the worker may run
    on another machine than the web server, and an upload is capped (LABEL_IMPORT_MAX_ROWS,
    a few MB), so the database is the one store both are sure to share; the row and its
    file are written in one transaction. Its SHA-256 stays afterwards, as the LabelImport
    the job writes records it too."""

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    ACTIVE_STATES = (State.QUEUED, State.RUNNING)

    # Indexed as the first column of label_import_job_recent.
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="label_import_jobs", db_index=False
    )
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="label_import_jobs",
    )
    file_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, help_text="Of the file's bytes, as uploaded.")
    data = models.BinaryField(editable=False, help_text="The file; emptied when the job ends.")
    create_missing_reports = models.BooleanField(default=False)
    rows = models.PositiveIntegerField(help_text="Rows of the file, counted at the upload.")
    state = models.CharField(
        max_length=10, choices=State.choices, default=State.QUEUED, db_index=True
    )
    rows_checked = models.PositiveIntegerField(default=0)
    rows_written = models.PositiveIntegerField(default=0)
    submissions = models.PositiveIntegerField(default=0)
    items_added = models.PositiveIntegerField(default=0)
    users_created = models.PositiveIntegerField(default=0)
    label_import = models.OneToOneField(
        LabelImport, on_delete=models.SET_NULL, null=True, blank=True, related_name="job"
    )
    error = models.TextField(blank=True, help_text="Why it failed: the problems, by line.")
    problem_count = models.PositiveIntegerField(default=0)
    celery_task_id = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["study", "-created_at"], name="label_import_job_recent")]

    def __str__(self) -> str:
        return f"{self.file_name} into {self.study} ({self.state})"

    @property
    def is_active(self) -> bool:
        return self.state in self.ACTIVE_STATES


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


class CodebookMigration(models.Model):
    """A study moved to a revised version of its codebook, its labels with it: who, when, from
    which version to which, and what happened to the labels (`counts`)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="codebook_migrations")
    from_codebook = models.ForeignKey(Codebook, on_delete=models.PROTECT, related_name="+")
    to_codebook = models.ForeignKey(Codebook, on_delete=models.PROTECT, related_name="+")
    migrated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Empty: run from the command line without a user.",
    )
    counts = models.JSONField(
        default=dict,
        help_text="{annotations_carried, annotations_relabel, assignments_flagged, "
        "finals_carried, finals_reopened, items_reopened}",
    )
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["study", "created_at", "pk"]

    def __str__(self) -> str:
        return self.reason

    @property
    def reason(self) -> str:
        """What the history says of every change it made."""
        by = f" by {self.migrated_by.username}" if self.migrated_by_id else ""
        return (
            f"codebook migration from v{self.from_codebook.version} to "
            f"v{self.to_codebook.version}{by}"
        )


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


class Board(models.Model):
    """Where a study's leads sort cards into categories and sub-categories, then freeze them
    into a new codebook version: the codes of an open-coding study (kind open), or the
    categories of the study's codebook version being revised (kind revision)."""

    class Kind(models.TextChoices):
        OPEN = "open", "open coding: the study's codes"
        REVISION = "revision", "revision of the study's codebook version"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="boards")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    base = models.ForeignKey(
        Codebook,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Revision: the version the board starts from.",
    )
    frozen_into = models.ForeignKey(
        Codebook,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="boards",
        help_text="The codebook version the board was frozen into; a frozen board is read-only.",
    )
    frozen_map = models.JSONField(
        default=dict,
        blank=True,
        help_text="At the freeze: {dimension key: {card name: category key path}}.",
    )
    frozen_at = models.DateTimeField(null=True, blank=True)
    frozen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["study", "created_at", "pk"]
        constraints = [
            # One board being sorted at a time per study.
            models.UniqueConstraint(
                fields=["study"],
                condition=Q(frozen_into__isnull=True),
                name="board_one_open_per_study",
            )
        ]

    def __str__(self) -> str:
        return f"{self.study.slug} board {self.pk} ({self.kind})"


class Theme(models.Model):
    """A category (no parent) or sub-category on a board, with what the codebook will say of
    it. Frozen, it becomes a taxonomy Category of the same key, name and definition."""

    # Indexed as the first column of theme_unique_key.
    board = models.ForeignKey(
        Board, on_delete=models.CASCADE, related_name="themes", db_index=False
    )
    dimension = models.ForeignKey(Dimension, on_delete=models.PROTECT, related_name="+")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    key = models.SlugField(max_length=100)
    name = models.CharField(max_length=200)
    definition = models.TextField(blank=True)
    include = models.TextField("inclusion criteria", blank=True)
    exclude = models.TextField("exclusion criteria", blank=True)
    examples = models.JSONField(default=list, blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["board", "dimension__position", "position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["board", "dimension", "key"], name="theme_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.board}: {self.key}"


class Code(models.Model):
    """A card on a board: a free-text code annotators wrote (open), or a category of the base
    version (revision, `source_path` set). Merging sets `merged_into` and moves the uses, so
    nothing is deleted and every step can be undone; a name written later that matches a
    merged code counts for the code it was merged into."""

    # Indexed as the first column of code_unique_name.
    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="codes", db_index=False)
    dimension = models.ForeignKey(Dimension, on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=120)
    source_path = models.CharField(
        max_length=500, blank=True, help_text="Revision: the base version's category key path."
    )
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged"
    )
    theme = models.ForeignKey(
        Theme, null=True, blank=True, on_delete=models.SET_NULL, related_name="codes"
    )
    position = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["board", "dimension__position", "name"]
        constraints = [
            models.UniqueConstraint(fields=["board", "dimension", "name"], name="code_unique_name")
        ]

    def __str__(self) -> str:
        return f"{self.dimension.key}: {self.name}"


class CodeUse(models.Model):
    """One annotator's code on one item, as they wrote it; `code` follows renames, merges and
    splits on the board, `written_as` never changes."""

    code = models.ForeignKey(Code, on_delete=models.CASCADE, related_name="uses")
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="code_uses")
    item = models.ForeignKey(StudyItem, on_delete=models.CASCADE, related_name="code_uses")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="code_uses"
    )
    written_as = models.CharField(max_length=120)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["code", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.annotator} on item {self.item_id}: {self.written_as}"


class BoardEvent(models.Model):
    """One change on a board, kept as it happened: who, when, what (`description`), and
    `undo`, the state of the rows it changed as they were before, which undoing restores."""

    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="events")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=20)
    description = models.TextField()
    undo = models.JSONField(default=dict)
    created_at = models.DateTimeField()
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["board", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.board}: {self.description}"


class StudyInvitation(models.Model):
    """A link a lead gives a new person to join the study with a role: it works once, until
    it expires, and only its SHA-256 is stored (the link is shown once, to copy)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=20, choices=StudyMember.Role.choices)
    token_hash = models.CharField(max_length=64, unique=True)
    email = models.EmailField(blank=True, help_text="Where the link was sent, if it was.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study", "-created_at", "pk"]

    def __str__(self) -> str:
        return f"invitation to {self.study} as {self.role}"

    def state(self, now: dt.datetime | None = None) -> str:
        """open, used, revoked or expired."""
        if self.used_at is not None:
            return "used"
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at <= (now or timezone.now()):
            return "expired"
        return "open"


class StudyMemberRemoval(models.Model):
    """A role a lead took away from a member: their labels stay, and are shown as by a
    removed member while they do not annotate in the study again."""

    # Indexed as the first column of member_removal_study_role.
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="member_removals", db_index=False
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    role = models.CharField(max_length=20, choices=StudyMember.Role.choices)
    removed_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["study", "role"], name="member_removal_study_role")]

    def __str__(self) -> str:
        return f"{self.user} removed as {self.role} from {self.study}"
