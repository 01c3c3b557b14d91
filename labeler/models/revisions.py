"""Revisions: a study moved to a revised version of its codebook, labels with it."""

from django.conf import settings
from django.db import models

from labeler.models.studies import Study
from taxonomy.models import Codebook


class CodebookMigration(models.Model):
    """A study moved to a revised version of its codebook, its labels with it: who, when, from
    which version to which, and what happened to the labels (`counts`).

    The record of a codebook revision (labeler.revisions). Its class, table, fields and the
    reason it writes into the labels' history ("codebook migration from v1 to v2") keep the
    word they were made with: the table and the history are data, and the
    `migrate_study_codebook` command and the `codebook-migration` API address are contracts."""

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
