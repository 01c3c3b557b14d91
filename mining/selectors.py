"""Reads of the mining app: querysets and read-only lookups."""

import datetime as dt

from django.db.models import Prefetch, QuerySet

from mining import candidates
from mining.models import (
    BugReport,
    CandidateRules,
    Comment,
    Commit,
    FixLink,
    ImportJob,
    Repository,
)


def candidate_rules(*, repository: Repository) -> candidates.Rules:
    rules = CandidateRules.objects.filter(repository=repository).first() or CandidateRules()
    return candidates.Rules(
        performance_labels=tuple(rules.performance_labels),
        performance_keywords=tuple(rules.performance_keywords),
        accuracy_labels=tuple(rules.accuracy_labels),
        accuracy_keywords=tuple(rules.accuracy_keywords),
        non_bug_labels=tuple(rules.non_bug_labels),
    )


def reports_unchanged(
    *, repository: Repository, updated_at: dict[int, dt.datetime | None]
) -> set[int]:
    """Of these report numbers (-> GitHub's updated time), those stored at least as recent,
    whose details need no refetch (an incremental run's `since` is inclusive)."""
    known = {number: when for number, when in updated_at.items() if when is not None}
    stored = BugReport.objects.filter(
        repository=repository, number__in=list(known), is_stub=False
    ).values_list("number", "updated_at")
    return {number for number, when in stored if when is not None and when >= known[number]}


def reports_with_comments(
    *, repository: Repository, updated_since: dt.datetime | None
) -> list[tuple[int, int]]:
    """(number, comment count) of the repository's reports with comments, updated at or after
    `updated_since` (all if None), by number."""
    reports = BugReport.objects.filter(repository=repository, comment_count__gt=0, is_stub=False)
    if updated_since is not None:
        reports = reports.filter(updated_at__gte=updated_since)
    return list(reports.order_by("number").values_list("number", "comment_count"))


def commits_needing_patches(*, repository: Repository, candidates_only: bool) -> list[str]:
    links = FixLink.objects.filter(
        report__repository=repository, commit__isnull=False, commit__files_fetched=False
    )
    if candidates_only:
        links = links.filter(report__is_performance_candidate=True) | links.filter(
            report__is_accuracy_candidate=True
        )
    return sorted(set(links.values_list("commit__sha", flat=True)))


def commits_without_patches(*, report_ids: list[int]) -> QuerySet[Commit]:
    """The fix commits of these reports whose per-file patches were never fetched."""
    linked = FixLink.objects.filter(report_id__in=report_ids, commit__isnull=False)
    return Commit.objects.filter(pk__in=linked.values("commit_id"), files_fetched=False)


def report_list() -> QuerySet[BugReport]:
    return BugReport.objects.select_related("repository").defer("raw", "body")


def report_for_reading(report_id: int) -> BugReport:
    """A report with its comments and fix links (commit, pull request) loaded, for display."""
    return (
        BugReport.objects.select_related("repository")
        .prefetch_related(
            Prefetch("comments", queryset=Comment.objects.order_by("created_at", "github_id")),
            Prefetch(
                "fix_links",
                queryset=FixLink.objects.select_related(
                    "commit", "pull_request__repository"
                ).order_by("strength", "evidence", "target"),
            ),
        )
        .get(pk=report_id)
    )


def import_job_list() -> QuerySet[ImportJob]:
    return ImportJob.objects.select_related("repository")
