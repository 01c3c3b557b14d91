from django.conf import settings
from django.db import models

from mining import redaction


class RedactedTextField(models.TextField):
    """Text that may quote GitHub (an error answer can echo the request): every configured
    token is redacted on the way into the database, behind the client's own redaction."""

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return redaction.redact(value, settings.GITHUB_TOKENS) if isinstance(value, str) else value


class RedactedJSONField(models.JSONField):
    """JSON that may quote GitHub; every text in it is redacted like RedactedTextField's."""

    def get_prep_value(self, value):
        return super().get_prep_value(redaction.redact_json(value, settings.GITHUB_TOKENS))


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
    # The measures the studies compare (mining/measures.py), recomputed on every import.
    fix_hours = models.FloatField(null=True, blank=True, help_text="Opened -> closed.")
    fix_size = models.PositiveIntegerField(
        null=True, blank=True, help_text="Lines added + deleted over the fix commits."
    )
    first_comment_hours = models.FloatField(null=True, blank=True)
    commenter_count = models.PositiveIntegerField(default=0)
    participant_count = models.PositiveIntegerField(default=0)

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


DEFAULT_PERFORMANCE_KEYWORDS = [
    "performance regression",
    "regression in performance",
    "degradation",
    "laggy",
    "decline in performance",
    "lower performance",
    "worse performance",
    "worsening performance",
    "bad performance",
    "deterioration",
    "performance bug",
    "poor performance",
    "latency",
    "slowdown",
    "slower",
    "slow",
    "throughput",
    "hit in performance",
    "performance hit",
    "drop in performance",
    "performance drop",
    "worsen performance",
    "worsened performance",
    "memory leak",
    "memory issue",
    "memory usage",
    "gpu usage",
    "cpu usage",
    "response time",
]
DEFAULT_PERFORMANCE_LABELS = ["module: performance", "type:performance", "performance"]
DEFAULT_ACCURACY_LABELS = ["module: numerical-stability", "type:accuracy", "accuracy"]
DEFAULT_ACCURACY_KEYWORDS = [
    "accuracy drop",
    "lower accuracy",
    "wrong result",
    "wrong results",
    "incorrect result",
    "incorrect results",
    "numerical instability",
    "nan loss",
]
DEFAULT_NON_BUG_LABELS = [
    "enhancement",
    "feature",
    "feature request",
    "type:feature",
    "question",
    "type:support",
    "type:docs-feature",
]


def default_performance_keywords() -> list[str]:
    return list(DEFAULT_PERFORMANCE_KEYWORDS)


def default_performance_labels() -> list[str]:
    return list(DEFAULT_PERFORMANCE_LABELS)


def default_accuracy_labels() -> list[str]:
    return list(DEFAULT_ACCURACY_LABELS)


def default_accuracy_keywords() -> list[str]:
    return list(DEFAULT_ACCURACY_KEYWORDS)


def default_non_bug_labels() -> list[str]:
    return list(DEFAULT_NON_BUG_LABELS)


class CandidateRules(models.Model):
    """Which labels and keywords make a report of this repository a candidate.

    Keywords default to the 29 of the seed study (Makkouk et al., ICSME 2022); labels match
    case-insensitively and exactly, keywords on word boundaries.
    """

    repository = models.OneToOneField(
        Repository, on_delete=models.CASCADE, related_name="candidate_rules"
    )
    performance_labels = models.JSONField(default=default_performance_labels, blank=True)
    performance_keywords = models.JSONField(default=default_performance_keywords, blank=True)
    accuracy_labels = models.JSONField(default=default_accuracy_labels, blank=True)
    accuracy_keywords = models.JSONField(default=default_accuracy_keywords, blank=True)
    non_bug_labels = models.JSONField(default=default_non_bug_labels, blank=True)

    class Meta:
        verbose_name_plural = "candidate rules"

    def __str__(self) -> str:
        return f"candidate rules of {self.repository}"


class SyncState(models.Model):
    """Where the last complete import of a repository stopped, for incremental runs."""

    repository = models.OneToOneField(Repository, on_delete=models.CASCADE, related_name="sync")
    issues_updated_until = models.DateTimeField(null=True, blank=True)
    etags = models.JSONField(default=dict, blank=True, help_text="REST URL -> ETag.")

    def __str__(self) -> str:
        return f"sync state of {self.repository}"


class PullRequest(models.Model):
    class State(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"
        MERGED = "merged"

    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="pull_requests"
    )
    number = models.PositiveIntegerField()
    github_id = models.BigIntegerField(null=True, blank=True)
    title = models.TextField(blank=True)
    body = models.TextField(blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    merged = models.BooleanField(default=False)
    merge_commit_sha = models.CharField(max_length=40, blank=True)
    labels = models.JSONField(default=list, blank=True)
    additions = models.PositiveIntegerField(null=True, blank=True)
    deletions = models.PositiveIntegerField(null=True, blank=True)
    html_url = models.URLField(max_length=500, blank=True)

    class Meta:
        ordering = ["repository", "number"]
        constraints = [
            models.UniqueConstraint(fields=["repository", "number"], name="pr_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.repository.full_name} PR #{self.number}"


class Commit(models.Model):
    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="commits")
    sha = models.CharField(max_length=40)
    message = models.TextField(blank=True)
    author_login = models.CharField(max_length=100, blank=True)
    author_name = models.CharField(max_length=255, blank=True)
    authored_at = models.DateTimeField(null=True, blank=True)
    additions = models.PositiveIntegerField(null=True, blank=True)
    deletions = models.PositiveIntegerField(null=True, blank=True)
    changed_files = models.PositiveIntegerField(null=True, blank=True)
    # [{"filename", "status", "additions", "deletions", "patch", "patch_truncated"}]; patches are
    # capped at MINING_PATCH_MAX_CHARS each. Empty until the REST commit is fetched, which the
    # import does only when asked (`import_github --patches`); otherwise when a report of this
    # commit enters a study or is opened (mining/services/patches.py).
    files = models.JSONField(default=list, blank=True)
    files_fetched = models.BooleanField(default=False)
    files_requested_at = models.DateTimeField(
        null=True, blank=True, help_text="When its patches were last asked for on demand."
    )
    files_error = RedactedTextField(
        blank=True, help_text="Why the last fetch of its patches failed (asked again later)."
    )
    html_url = models.URLField(max_length=500, blank=True)

    class Meta:
        ordering = ["repository", "authored_at", "sha"]
        constraints = [
            models.UniqueConstraint(fields=["repository", "sha"], name="commit_unique_sha")
        ]

    def __str__(self) -> str:
        return f"{self.repository.full_name}@{self.sha[:10]}"

    @property
    def size(self) -> int | None:
        if self.additions is None or self.deletions is None:
            return None
        return self.additions + self.deletions


class FixLink(models.Model):
    """A report's fix (a commit or a pull request) and the evidence that links them."""

    class Evidence(models.TextChoices):
        CLOSING_REFERENCE = "closing_reference", "Closing keyword (GitHub closing reference)"
        CLOSED_BY_COMMIT = "closed_by_commit", "Closed by commit (timeline)"
        CLOSED_BY_PULL_REQUEST = "closed_by_pull_request", "Closed by pull request (timeline)"
        WILL_CLOSE = "will_close", "Cross-referenced pull request that will close it"
        LANDED_PULL_REQUEST = "landed_pull_request", "Bot commit landing the pull request"
        IMPORTED_PULL_REQUEST = "imported_pull_request", "Commit importing the pull request"
        MERGE_COMMIT = "merge_commit", "Merge commit of a linked pull request"
        MESSAGE_MENTION = "message_mention", "Commit message mentions the report"

    class Strength(models.TextChoices):
        STRONG = "strong"
        WEAK = "weak"

    report = models.ForeignKey(BugReport, on_delete=models.CASCADE, related_name="fix_links")
    commit = models.ForeignKey(
        Commit, null=True, blank=True, on_delete=models.CASCADE, related_name="fix_links"
    )
    pull_request = models.ForeignKey(
        PullRequest, null=True, blank=True, on_delete=models.CASCADE, related_name="fix_links"
    )
    # "commit:<sha>" or "pr:<number>": the natural key, so a re-import upserts.
    target = models.CharField(max_length=60)
    evidence = models.CharField(max_length=30, choices=Evidence.choices)
    strength = models.CharField(max_length=10, choices=Strength.choices)
    reverted = models.BooleanField(default=False)
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["report", "strength", "evidence", "target"]
        constraints = [
            models.UniqueConstraint(
                fields=["report", "target", "evidence"], name="fixlink_unique_evidence"
            ),
            models.CheckConstraint(
                condition=models.Q(commit__isnull=False) | models.Q(pull_request__isnull=False),
                name="fixlink_has_target",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.report_id} <- {self.target} ({self.evidence})"


class ImportJob(models.Model):
    class Api(models.TextChoices):
        GRAPHQL = "graphql", "GraphQL"
        REST = "rest", "REST"
        FILE = "file", "File"

    class IssueState(models.TextChoices):
        OPEN = "open"
        CLOSED = "closed"
        ALL = "all"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        WAITING = "waiting", "Waiting for rate limit"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    class Patches(models.TextChoices):
        """When the per-file patches of fix commits (REST, one request per commit) come."""

        LAZY = "lazy", "On demand: when a report enters a study or is opened"
        CANDIDATES = "candidates", "During the import: fix commits of candidate reports"
        ALL = "all", "During the import: every fix commit"

    ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING, Status.WAITING)

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="imports")
    api = models.CharField(max_length=10, choices=Api.choices, default=Api.GRAPHQL)
    issue_state = models.CharField(max_length=10, choices=IssueState.choices, default="all")
    since = models.DateTimeField(
        null=True, blank=True, help_text="Only reports updated at or after; empty: incremental."
    )
    patches = models.CharField(max_length=10, choices=Patches.choices, default=Patches.LAZY)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    # {"phase": "issues"|"comments"|"patches", "cursor": ..., "since": ISO, "max_updated_at": ISO,
    #  "watermark_hold": ISO or "" when an issue was lost to a GitHub error (importer.py)}
    checkpoint = models.JSONField(default=dict, blank=True)
    reports_total = models.PositiveIntegerField(null=True, blank=True)
    reports_done = models.PositiveIntegerField(default=0)
    pull_requests_skipped = models.PositiveIntegerField(default=0)
    comments = models.PositiveIntegerField(default=0)
    fix_links = models.JSONField(default=dict, blank=True, help_text="evidence -> count")
    api_requests = models.PositiveIntegerField(default=0)
    api_requests_not_modified = models.PositiveIntegerField(
        default=0, help_text="Of api_requests, 304 answers to conditional requests (free of quota)."
    )
    rate_limit_waits = models.PositiveIntegerField(default=0)
    rate_limit_remaining = models.IntegerField(null=True, blank=True)
    rate_limit_reset_at = models.DateTimeField(null=True, blank=True)
    token_index = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Which of GITHUB_TOKENS was used last (never the token)."
    )
    skipped_items = RedactedJSONField(
        default=list, blank=True, help_text="Items skipped or incomplete, why."
    )
    error_reason = RedactedTextField(blank=True)
    celery_task_id = models.CharField(max_length=50, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"import {self.pk} of {self.repository} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE_STATUSES
