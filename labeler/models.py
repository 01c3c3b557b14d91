from django.conf import settings
from django.db import models

from mining.models import BugReport
from taxonomy.models import Codebook, Dimension


class Study(models.Model):
    """A labelling study: which reports, which codebook version and dimensions, by whom."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    codebook = models.ForeignKey(Codebook, on_delete=models.PROTECT, related_name="studies")
    dimensions = models.ManyToManyField(Dimension, related_name="studies")
    overlap = models.PositiveSmallIntegerField(
        default=2, help_text="Independent annotations each item needs."
    )
    guidelines = models.TextField(blank=True, help_text="Markdown.")
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

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="members")
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


class StudyItem(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="items")
    report = models.ForeignKey(BugReport, on_delete=models.PROTECT, related_name="study_items")
    batch = models.PositiveSmallIntegerField(default=1)
    position = models.PositiveIntegerField(default=0, help_text="Seeded random order.")

    class Meta:
        ordering = ["study", "position"]
        constraints = [
            models.UniqueConstraint(fields=["study", "report"], name="item_unique_report")
        ]

    def __str__(self) -> str:
        return f"{self.study.slug}: {self.report}"
