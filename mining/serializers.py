"""API shapes of the mining app. ReportDetailSerializer is the one representation of a report
with its discussion and fixes: the API, the report page and the labelling page all show it."""

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from mining.markdown import render_markdown
from mining.models import BugReport, Comment, Commit, FixLink, ImportJob, PullRequest
from mining.selectors import import_job_stall_note, report_fix_links, report_for_labelling

WEB_SCHEMES = ("https://", "http://")
BODY_HTML_HELP = (
    "The body rendered from Markdown and sanitised: the only form to show as HTML. Its "
    "headings start at <h3>, under the pages' report title and sections."
)
# A report's or comment's `# Heading` shown under the report's title (an <h2> on the labelling
# page) or the "Comments" <h2> of the report page: a page keeps its one <h1>.
BODY_HEADING_OFFSET = 2


class ReportListSerializer(serializers.ModelSerializer):
    repository = serializers.CharField(source="repository.full_name")

    class Meta:
        model = BugReport
        fields = [
            "id", "repository", "number", "title", "state", "state_reason", "author_login",
            "labels", "created_at", "closed_at", "comment_count", "html_url",
            "is_performance_candidate", "is_accuracy_candidate", "is_non_bug", "candidate_rules",
            "has_fix", "fix_hours", "fix_size", "first_comment_hours", "commenter_count",
            "participant_count",
        ]  # fmt: skip


class CommentSerializer(serializers.ModelSerializer):
    body_html = serializers.SerializerMethodField(help_text=BODY_HTML_HELP)

    class Meta:
        model = Comment
        fields = ["github_id", "author_login", "body", "body_html", "created_at", "updated_at"]

    def get_body_html(self, comment: Comment) -> str:
        return render_markdown(comment.body, heading_offset=BODY_HEADING_OFFSET)


class CommitSerializer(serializers.ModelSerializer):
    class Meta:
        model = Commit
        fields = [
            "sha", "message", "author_login", "authored_at", "additions", "deletions",
            "changed_files", "files", "html_url",
        ]  # fmt: skip


class PullRequestSerializer(serializers.ModelSerializer):
    """A fixing pull request. One only named by a link and never fetched is a bare row (no
    GitHub id, no title): it claims no state, and links to GitHub by its repository."""

    imported = serializers.SerializerMethodField(
        help_text="False for a pull request a fix link names but no import fetched."
    )
    state = serializers.SerializerMethodField(help_text="Null when not imported.")
    html_url = serializers.SerializerMethodField(
        help_text="Its page on GitHub; always an http(s) address."
    )

    class Meta:
        model = PullRequest
        fields = [
            "number", "imported", "title", "body", "state", "merged", "merge_commit_sha",
            "additions", "deletions", "html_url",
        ]  # fmt: skip

    def get_imported(self, pull_request: PullRequest) -> bool:
        return pull_request.github_id is not None or bool(pull_request.title)

    @extend_schema_field(
        serializers.ChoiceField(choices=PullRequest.State.choices, allow_null=True)
    )
    def get_state(self, pull_request: PullRequest) -> str | None:
        return pull_request.state if self.get_imported(pull_request) else None

    def get_html_url(self, pull_request: PullRequest) -> str:
        if pull_request.html_url.lower().startswith(WEB_SCHEMES):
            return pull_request.html_url
        repository = pull_request.repository
        web = repository.html_url.rstrip("/")
        if not web.lower().startswith(WEB_SCHEMES):
            web = f"https://github.com/{repository.full_name}"
        return f"{web}/pull/{pull_request.number}"


class FixLinkSerializer(serializers.ModelSerializer):
    evidence_display = serializers.CharField(source="get_evidence_display")
    commit = CommitSerializer()
    pull_request = PullRequestSerializer()

    class Meta:
        model = FixLink
        fields = [
            "target", "evidence", "evidence_display", "strength", "reverted", "detail", "commit",
            "pull_request",
        ]  # fmt: skip


# Of a report from mining.selectors.report_for_reading, which loads every relation read here.
class ReportDetailSerializer(ReportListSerializer):
    """A report with its comments and fix links. `body` is the Markdown as written; only
    `body_html` is for display."""

    body_html = serializers.SerializerMethodField(help_text=BODY_HTML_HELP)
    comments = CommentSerializer(many=True)
    fix_links = FixLinkSerializer(many=True)

    class Meta(ReportListSerializer.Meta):
        fields = [
            *ReportListSerializer.Meta.fields,
            "body", "body_html", "milestone", "reactions", "updated_at", "comments", "fix_links",
        ]  # fmt: skip

    def get_body_html(self, report: BugReport) -> str:
        return render_markdown(report.body, heading_offset=BODY_HEADING_OFFSET)


_api_datetime = serializers.DateTimeField().to_representation


def report_reading(*, report_id: int) -> dict:
    """ReportDetailSerializer's representation of a report, read in one query (two when the
    report has fix links): what the labelling page gets with each item (`next`) and what the
    item report of the labelling and adjudication pages answers. Plain values rather than
    model objects, because a labelling page asks for one on every item; test_serializers holds
    it to the serializer's output."""
    report = report_for_labelling(report_id=report_id)
    fix_linked = report.pop("fix_linked")
    for name in ("created_at", "updated_at", "closed_at"):
        report[name] = _api_datetime(report[name]) if report[name] is not None else None
    report["body_html"] = render_markdown(report["body"], heading_offset=BODY_HEADING_OFFSET)
    report["comments"] = [
        {
            "github_id": comment["github_id"],
            "author_login": comment["author_login"],
            "body": comment["body"],
            "body_html": render_markdown(comment["body"], heading_offset=BODY_HEADING_OFFSET),
            "created_at": _api_datetime(comment["created_at"]),
            "updated_at": (_api_datetime(comment["updated_at"]) if comment["updated_at"] else None),
        }
        for comment in report["comments"]
    ]
    report["fix_links"] = (
        FixLinkSerializer(report_fix_links(report_id=report_id), many=True).data
        if fix_linked
        else []
    )
    return {name: report[name] for name in ReportDetailSerializer.Meta.fields}


class ReportReadInputSerializer(serializers.Serializer):
    """The query of GET /api/reports/{id}/."""

    fetch_patches = serializers.BooleanField(
        required=False,
        default=False,
        help_text=(
            "Queue the fetch of the per-file patches of the report's fix commits that are not in "
            "yet (one GitHub request per commit; false by default, so that reading reports "
            "spends none of the token's rate limit). `patches.pending` then says it is under way."
        ),
    )


class PatchStateSerializer(serializers.Serializer):
    missing = serializers.IntegerField(
        help_text="How many of the report's fix commits have no per-file patches yet (their "
        "`files` are empty until fetched; ask with `fetch_patches=true`)."
    )
    pending = serializers.BooleanField(help_text="A fetch of the missing patches is under way.")
    error = serializers.CharField(help_text="Why the last fetch failed, or empty.")


class ReportReadSerializer(ReportDetailSerializer):
    """The answer of GET /api/reports/{id}/ (its schema): the report and where its patches stand."""

    patches = PatchStateSerializer(read_only=True)

    class Meta(ReportDetailSerializer.Meta):
        fields = [*ReportDetailSerializer.Meta.fields, "patches"]


class ImportJobSerializer(serializers.ModelSerializer):
    repository = serializers.CharField(source="repository.full_name")
    eta_seconds = serializers.SerializerMethodField()
    status_display = serializers.CharField(source="get_status_display", read_only=True)
    stalled = serializers.SerializerMethodField(
        help_text="Why an active job seems stuck (no progress for MINING_STALLED_MINUTES), or null."
    )

    class Meta:
        model = ImportJob
        fields = [
            "id", "repository", "api", "issue_state", "since", "patches", "status",
            "status_display", "reports_total",
            "reports_done", "pull_requests_skipped", "comments", "fix_links", "api_requests",
            "api_requests_not_modified", "rate_limit_waits", "rate_limit_remaining",
            "rate_limit_reset_at", "token_index",
            "skipped_items", "error_reason", "created_at", "started_at", "finished_at",
            "eta_seconds", "stalled", "updated_at",
        ]  # fmt: skip

    def get_stalled(self, job: ImportJob) -> str | None:
        return import_job_stall_note(job)

    def get_eta_seconds(self, job: ImportJob) -> int | None:
        if not job.is_active or not job.started_at or not job.reports_total or not job.reports_done:
            return None
        elapsed = (timezone.now() - job.started_at).total_seconds()
        remaining = max(job.reports_total - job.reports_done, 0)
        return int(elapsed / job.reports_done * remaining)


class ImportJobCreateSerializer(serializers.Serializer):
    repository = serializers.CharField()
    api = serializers.ChoiceField(choices=["graphql", "rest"], default="graphql")
    state = serializers.ChoiceField(choices=["open", "closed", "all"], default="all")
    since = serializers.DateTimeField(required=False, allow_null=True)
    patches = serializers.ChoiceField(
        choices=ImportJob.Patches.choices,
        required=False,
        help_text="When fix commits' per-file patches come (default: MINING_FETCH_PATCHES).",
    )
