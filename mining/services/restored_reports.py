"""Reports restored from a dataset export (a study's records) rather than from GitHub.

Takes no lock: it refuses reports that exist already, so two restores of the same reports
cannot both write (the unique (repository, number) constraint stops the second).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction

from mining import linking
from mining.models import BugReport, Commit, FixLink, PullRequest
from mining.services.repositories import repository_get_or_create


@dataclass(frozen=True)
class RestoredFix:
    commit: str | None
    pull_request: int | None
    evidence: str
    strength: str
    reverted: bool


@dataclass(frozen=True)
class RestoredReport:
    """What an export says of a report: its GitHub fields, measures, candidate flags, fixes."""

    repository: str
    number: int
    url: str
    title: str
    state: str
    state_reason: str
    labels: list[str]
    created_at: dt.datetime | None
    closed_at: dt.datetime | None
    fix_hours: float | None
    fix_size: int | None
    first_comment_hours: float | None
    comment_count: int
    commenter_count: int
    participant_count: int
    is_performance_candidate: bool
    is_accuracy_candidate: bool
    is_non_bug: bool
    candidate_rules: dict
    fixes: tuple[RestoredFix, ...] = ()


def reports_taken(*, keys: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Of these (OWNER/NAME, number) pairs, those stored already."""
    wanted = set(keys)
    stored = BugReport.objects.filter(
        repository__full_name__in={name for name, _ in keys}
    ).values_list("repository__full_name", "number")
    return sorted(wanted & set(stored))


@transaction.atomic
def reports_restore(*, reports: list[RestoredReport]) -> dict[tuple[str, int], int]:
    """Create the reports, their fix commits and pull requests (bare: an export has no more of
    them) and fix links. Returns the report ids by (OWNER/NAME, number). Refused, with nothing
    written, when any of them is stored already."""
    taken = reports_taken(keys=[(r.repository, r.number) for r in reports])
    if taken:
        shown = ", ".join(f"{name}#{number}" for name, number in taken[:5])
        raise ValidationError(f"{len(taken)} of the reports are stored already: {shown}")
    repositories = {
        name: repository_get_or_create(full_name=name) for name in {r.repository for r in reports}
    }
    created = BugReport.objects.bulk_create(
        BugReport(
            repository=repositories[r.repository],
            number=r.number,
            html_url=r.url,
            title=r.title,
            state=r.state,
            state_reason=r.state_reason,
            labels=r.labels,
            created_at=r.created_at,
            closed_at=r.closed_at,
            fix_hours=r.fix_hours,
            fix_size=r.fix_size,
            first_comment_hours=r.first_comment_hours,
            comment_count=r.comment_count,
            commenter_count=r.commenter_count,
            participant_count=r.participant_count,
            is_performance_candidate=r.is_performance_candidate,
            is_accuracy_candidate=r.is_accuracy_candidate,
            is_non_bug=r.is_non_bug,
            candidate_rules=r.candidate_rules,
            has_fix=bool(r.fixes),
        )
        for r in reports
    )
    commits: dict[tuple[int, str], Commit] = {}
    pulls: dict[tuple[int, int], PullRequest] = {}
    links = []
    for report, row in zip(reports, created, strict=True):
        repository = repositories[report.repository]
        for fix in report.fixes:
            commit = pull = None
            if fix.commit:
                commit = commits.get((repository.pk, fix.commit))
                if commit is None:
                    commit = Commit.objects.get_or_create(repository=repository, sha=fix.commit)[0]
                    commits[(repository.pk, fix.commit)] = commit
            if fix.pull_request is not None:
                pull = pulls.get((repository.pk, fix.pull_request))
                if pull is None:
                    pull = PullRequest.objects.get_or_create(
                        repository=repository, number=fix.pull_request
                    )[0]
                    pulls[(repository.pk, fix.pull_request)] = pull
            target = linking.Link(
                evidence=fix.evidence,
                strength=fix.strength,
                commit_sha=fix.commit or "",
                pull_request=fix.pull_request,
            ).target
            links.append(
                FixLink(
                    report=row,
                    commit=commit,
                    pull_request=pull,
                    target=target,
                    evidence=fix.evidence,
                    strength=fix.strength,
                    reverted=fix.reverted,
                )
            )
    FixLink.objects.bulk_create(links)
    return {(r.repository, r.number): row.pk for r, row in zip(reports, created, strict=True)}
