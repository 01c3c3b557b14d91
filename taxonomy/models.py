from django.core.exceptions import ValidationError
from django.db import models

from taxonomy.codebook_file import (
    CODEBOOK_KEY_MAX,
    VERSION_MAX,
    codebook_key_problem,
    version_problem,
)


def validate_codebook_key(value) -> None:
    problem = codebook_key_problem(value)
    if problem:
        raise ValidationError(problem, code="invalid")


def validate_codebook_version(value) -> None:
    problem = version_problem(value)
    if problem:
        raise ValidationError(problem, code="invalid")


class Codebook(models.Model):
    """A labelling scheme at one version. A study pins a version; a pinned version is frozen.

    Whoever made a key's first version owns the key (`owner`): only they may add versions to
    it, and admins (see labeler.common.permissions.codebook_key_require_addable)."""

    # Taxonomy knows no studies: the app that makes a key names its owner in words of its own.
    ADMINS = ""

    key = models.SlugField(max_length=CODEBOOK_KEY_MAX, validators=[validate_codebook_key])
    version = models.CharField(max_length=VERSION_MAX, validators=[validate_codebook_version])
    owner = models.CharField(
        max_length=100,
        blank=True,
        default=ADMINS,
        help_text="Who may add a version of this key, besides admins: empty for the admins "
        "alone (the built-in codebooks, files an admin loads), `study:<id>` for the study "
        "whose board or open round made the key's first version.",
    )
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    source = models.TextField(
        blank=True, help_text="Citation of the study the codebook comes from."
    )
    content_hash = models.CharField(max_length=64, editable=False)
    frozen = models.BooleanField(
        default=False,
        help_text="Set once a study uses this version; its content can no longer change.",
    )
    derived_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="revisions",
        help_text="The version this one was revised from.",
    )
    mapping = models.JSONField(
        default=dict,
        blank=True,
        help_text="From `derived_from`: {dimension key: {old key path: [new key paths]}}; "
        "one new path is kept or renamed (several old ones to it: merged), several is split, "
        "none is removed.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key", "version"]
        constraints = [
            models.UniqueConstraint(fields=["key", "version"], name="codebook_unique_key_version")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.key} v{self.version})"


class Dimension(models.Model):
    codebook = models.ForeignKey(Codebook, on_delete=models.CASCADE, related_name="dimensions")
    key = models.SlugField(max_length=100)
    name = models.CharField(max_length=200)
    help_text = models.TextField(blank=True)
    multiple = models.BooleanField(default=False, help_text="Several categories may be chosen.")
    required = models.BooleanField(default=True)
    leaf_only = models.BooleanField(
        default=False, help_text="Only categories without sub-categories may be chosen."
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["codebook", "position"]
        constraints = [
            models.UniqueConstraint(fields=["codebook", "key"], name="dimension_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.codebook.key}:{self.key}"


class Category(models.Model):
    dimension = models.ForeignKey(Dimension, on_delete=models.CASCADE, related_name="categories")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    key = models.SlugField(max_length=100)
    path = models.CharField(max_length=500, help_text="Key path from the top, e.g. a/b.")
    name = models.CharField(max_length=200)
    definition = models.TextField(blank=True)
    include = models.TextField("inclusion criteria", blank=True)
    exclude = models.TextField("exclusion criteria", blank=True)
    examples = models.JSONField(default=list, blank=True)
    position = models.PositiveIntegerField(default=0)
    depth = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["dimension", "position"]
        verbose_name_plural = "categories"
        constraints = [
            models.UniqueConstraint(fields=["dimension", "key"], name="category_unique_key"),
            models.UniqueConstraint(fields=["dimension", "path"], name="category_unique_path"),
        ]

    def __str__(self) -> str:
        return self.path
