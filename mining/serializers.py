from django.utils import timezone
from rest_framework import serializers

from mining.models import BugReport, Comment, Commit, FixLink, ImportJob, PullRequest


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
    class Meta:
        model = Comment
        fields = ["github_id", "author_login", "body", "created_at", "updated_at"]


class CommitSerializer(serializers.ModelSerializer):
    class Meta:
        model = Commit
        fields = [
            "sha", "message", "author_login", "authored_at", "additions", "deletions",
            "changed_files", "files", "html_url",
        ]  # fmt: skip


class PullRequestSerializer(serializers.ModelSerializer):
    class Meta:
        model = PullRequest
        fields = ["number", "title", "body", "state", "merged", "merge_commit_sha", "html_url"]


class FixLinkSerializer(serializers.ModelSerializer):
    evidence_display = serializers.CharField(source="get_evidence_display")
    commit = CommitSerializer()
    pull_request = PullRequestSerializer()

    class Meta:
        model = FixLink
        fields = [
            "evidence", "evidence_display", "strength", "reverted", "detail", "commit",
            "pull_request",
        ]  # fmt: skip


class ReportDetailSerializer(ReportListSerializer):
    comments = CommentSerializer(many=True)
    fix_links = FixLinkSerializer(many=True)

    class Meta(ReportListSerializer.Meta):
        fields = [
            *ReportListSerializer.Meta.fields,
            "body", "milestone", "reactions", "updated_at", "comments", "fix_links",
        ]  # fmt: skip


class ImportJobSerializer(serializers.ModelSerializer):
    repository = serializers.CharField(source="repository.full_name")
    eta_seconds = serializers.SerializerMethodField()
    status_display = serializers.CharField(source="get_status_display", read_only=True)

    class Meta:
        model = ImportJob
        fields = [
            "id", "repository", "api", "issue_state", "since", "patches", "status",
            "status_display", "reports_total",
            "reports_done", "pull_requests_skipped", "comments", "fix_links", "api_requests",
            "api_requests_not_modified", "rate_limit_waits", "rate_limit_remaining",
            "rate_limit_reset_at", "token_index",
            "skipped_items", "error_reason", "created_at", "started_at", "finished_at",
            "eta_seconds",
        ]  # fmt: skip

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
