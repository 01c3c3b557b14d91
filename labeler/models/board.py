"""The open-coding board: codes, their uses, cards, themes and the board's event log."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from labeler.models.labelling import Assignment
from labeler.models.studies import Study, StudyItem
from taxonomy.models import Codebook, Dimension


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
