"""Label imports: a file of labels brought into a study, and its background job."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from labeler.models.studies import Study


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
    (labeler.imports.tasks.label_import_run): all its rows or none, with its progress.

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
