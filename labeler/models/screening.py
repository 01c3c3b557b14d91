"""Screening: a model trained on a study's final labels, its run and what it gave."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from labeler.models.studies import Study


class TriageRun(models.Model):
    """A screening model trained on a study's final labels of one dimension (the category
    `positive` and what lies under it being the positive class), run by a Celery task
    (labeler.screening.tasks.triage_run) with its progress, and what it gave: its quality, the
    scores of the reports it was asked to rank and the estimates (labeler.screening)."""

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="triage_runs")
    dimension = models.CharField(max_length=100, help_text="The dimension's key.")
    positive = models.CharField(max_length=500, help_text="Key path of the positive category.")
    reports = models.TextField(
        blank=True, help_text="The reports to score, as a /api/reports/ query; empty: the frame."
    )
    keyword_rule = models.CharField(
        max_length=20, help_text="The candidate flag compared: performance, accuracy or any."
    )
    threshold = models.FloatField(
        default=0.5, help_text="Score from which the model says positive (precision, recall)."
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0, help_text="Percent done.")
    stage = models.CharField(max_length=200, blank=True, help_text="What the task is doing.")
    error = models.TextField(blank=True)
    result = models.JSONField(
        default=dict, blank=True, help_text="The model's quality and the estimates."
    )
    scores = models.JSONField(
        default=list, blank=True, help_text="[[report id, score], ...], highest score first."
    )
    celery_task_id = models.CharField(max_length=255, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"triage of {self.study} on {self.dimension}={self.positive} ({self.state})"
