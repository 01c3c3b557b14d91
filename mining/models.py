from django.db import models


class Repository(models.Model):
    owner = models.CharField(max_length=100)
    name = models.CharField(max_length=100)
    full_name = models.CharField(max_length=201, unique=True, help_text="owner/name")
    github_id = models.BigIntegerField(null=True, blank=True)
    html_url = models.URLField(blank=True)
    default_branch = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["full_name"]
        verbose_name_plural = "repositories"
        permissions = [("manage_imports", "Can start, cancel and re-run GitHub imports")]

    def __str__(self) -> str:
        return self.full_name


class BugReport(models.Model):
    """A GitHub issue. Pull requests from the issue listing are never stored here."""

    class State(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="reports")
    number = models.PositiveIntegerField()
    github_id = models.BigIntegerField(null=True, blank=True)
    node_id = models.CharField(max_length=100, blank=True)
    title = models.TextField()
    body = models.TextField(blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    state_reason = models.CharField(max_length=30, blank=True)
    author_login = models.CharField(max_length=100, blank=True, help_text="Empty: deleted user.")
    labels = models.JSONField(default=list, blank=True)
    milestone = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    comment_count = models.PositiveIntegerField(default=0)
    reactions = models.JSONField(default=dict, blank=True)
    html_url = models.URLField(max_length=500, blank=True)
    raw = models.JSONField(default=dict, blank=True, help_text="The payload as GitHub sent it.")
    # Candidate flags, recomputed on every import from the repository's label and keyword rules;
    # candidate_rules records which rule matched, e.g. {"performance": ["label:type:performance"]}.
    is_performance_candidate = models.BooleanField(default=False, db_index=True)
    is_accuracy_candidate = models.BooleanField(default=False, db_index=True)
    is_non_bug = models.BooleanField(default=False, db_index=True)
    candidate_rules = models.JSONField(default=dict, blank=True)
    has_fix = models.BooleanField(default=False, db_index=True)
    is_stub = models.BooleanField(
        default=False, help_text="Created from a labels file; filled in by the next import."
    )

    class Meta:
        ordering = ["repository", "number"]
        constraints = [
            models.UniqueConstraint(fields=["repository", "number"], name="report_unique_number")
        ]
        indexes = [models.Index(fields=["repository", "updated_at"])]

    def __str__(self) -> str:
        return f"{self.repository.full_name}#{self.number}"


class Comment(models.Model):
    report = models.ForeignKey(BugReport, on_delete=models.CASCADE, related_name="comments")
    github_id = models.BigIntegerField(unique=True)
    author_login = models.CharField(max_length=100, blank=True, help_text="Empty: deleted user.")
    body = models.TextField(blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["report", "created_at", "github_id"]

    def __str__(self) -> str:
        return f"comment {self.github_id} on {self.report_id}"
