"""Writes of reports: pages of imported reports with their pull requests, commits,
comments, fix links and measures; commit details; stub reports.

Locks: none taken here. Rows are upserted on their natural keys (INSERT ... ON CONFLICT),
which locks each written row until commit, so two transactions storing the same report
wait for each other instead of storing it twice. An import job stores its pages while it
holds its job's row (mining.services.import_jobs.import_job_store_page).
"""

from collections import Counter
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import Q

from mining import bulk, candidates, linking, records
from mining.models import BugReport, Comment, Commit, FixLink, PullRequest, Repository
from mining.services.repositories import repository_get_or_create


@dataclass
class PageResult:
    reports: int = 0
    comments: int = 0
    pull_requests_skipped: int = 0
    fix_links: Counter = field(default_factory=Counter)
    skipped: list[dict] = field(default_factory=list)

    def add(self, other: "PageResult") -> None:
        self.reports += other.reports
        self.comments += other.comments
        self.pull_requests_skipped += other.pull_requests_skipped
        self.fix_links.update(other.fix_links)
        self.skipped.extend(other.skipped)

    def as_dict(self) -> dict:
        return {
            "reports": self.reports,
            "pull_requests_skipped": self.pull_requests_skipped,
            "comments": self.comments,
            "fix_links": dict(sorted(self.fix_links.items())),
            "errors": self.skipped,
        }


PULL_REQUEST_FIELDS = [
    "github_id",
    "title",
    "body",
    "state",
    "merged",
    "merge_commit_sha",
    "labels",
    "additions",
    "deletions",
    "html_url",
]
COMMIT_FIELDS = [
    "message",
    "author_login",
    "author_name",
    "authored_at",
    "html_url",
    "additions",
    "deletions",
    "changed_files",
]
REPORT_RECORD_FIELDS = [
    "github_id",
    "node_id",
    "title",
    "body",
    "state",
    "state_reason",
    "author_login",
    "labels",
    "milestone",
    "created_at",
    "updated_at",
    "closed_at",
    "comment_count",
    "reactions",
    "html_url",
    "raw",
]
REPORT_FIELDS = [
    *REPORT_RECORD_FIELDS,
    "is_performance_candidate",
    "is_accuracy_candidate",
    "is_non_bug",
    "candidate_rules",
    "is_stub",
]


def _upsert_pull_requests(
    repository: Repository, items: list[records.PullRequestRecord]
) -> dict[int, int]:
    """Upsert the PRs; returns number -> id."""
    by_number = {pr.number: pr for pr in items}
    rows = [
        {
            "repository_id": repository.pk,
            "number": pr.number,
            **{name: getattr(pr, name) for name in PULL_REQUEST_FIELDS},
        }
        for pr in by_number.values()
    ]
    keys = bulk.upsert(
        PullRequest, rows, unique=["repository_id", "number"], update=PULL_REQUEST_FIELDS
    )
    return {number: pk for (_, number), (pk, _) in keys.items()}


def _upsert_commits(repository: Repository, items: list[records.CommitRecord]) -> dict[str, int]:
    """Upsert the commits (files only where fetched); returns sha -> id."""
    by_sha: dict[str, records.CommitRecord] = {}
    for commit in items:
        known = by_sha.get(commit.sha)
        if known is None or (known.files is None and commit.files is not None):
            by_sha[commit.sha] = commit
    ids = {}
    for with_files in (False, True):
        rows = [
            {
                "repository_id": repository.pk,
                "sha": c.sha,
                **{name: getattr(c, name) for name in COMMIT_FIELDS},
                "files": c.files or [],
                "files_fetched": with_files,
            }
            for c in by_sha.values()
            if (c.files is not None) == with_files
        ]
        update = COMMIT_FIELDS + (["files", "files_fetched"] if with_files else [])
        keys = bulk.upsert(Commit, rows, unique=["repository_id", "sha"], update=update)
        ids.update({sha: pk for (_, sha), (pk, _) in keys.items()})
    return ids


def _ensure_targets(
    repository: Repository,
    shas: set[str],
    numbers: set[int],
    commit_ids: dict[str, int],
    pr_ids: dict[int, int],
) -> None:
    """Add to commit_ids / pr_ids the commits and PRs links point at that the page did not
    bring, creating bare rows for unknown ones (existing rows are left as they are)."""
    missing_shas = shas - commit_ids.keys()
    if missing_shas:
        rows = [{"repository_id": repository.pk, "sha": sha} for sha in sorted(missing_shas)]
        keys = bulk.upsert(Commit, rows, unique=["repository_id", "sha"], update=[])
        commit_ids.update({sha: pk for (_, sha), (pk, _) in keys.items()})
    missing_numbers = numbers - pr_ids.keys()
    if missing_numbers:
        rows = [{"repository_id": repository.pk, "number": n} for n in sorted(missing_numbers)]
        keys = bulk.upsert(PullRequest, rows, unique=["repository_id", "number"], update=[])
        pr_ids.update({number: pk for (_, number), (pk, _) in keys.items()})


@transaction.atomic
def reports_store_page(
    *, repository: Repository, page: records.Page, rules: candidates.Rules
) -> PageResult:
    """Store one page of reports with their comments, fix links, flags and measures.

    A handful of statements per page, whatever its size: one upsert per table, deletions of
    what GitHub no longer has only for reports that existed before, one measure refresh.
    """
    result = PageResult(pull_requests_skipped=page.pull_requests_skipped, skipped=page.skipped)
    pr_ids = _upsert_pull_requests(repository, page.pull_requests)
    commit_ids = _upsert_commits(repository, page.commits)

    reports = {r.number: r for r in page.reports}
    report_rows = []
    for r in reports.values():
        flags = candidates.classify(title=r.title, body=r.body, labels=r.labels, rules=rules)
        report_rows.append(
            {
                "repository_id": repository.pk,
                "number": r.number,
                **{name: getattr(r, name) for name in REPORT_RECORD_FIELDS},
                "is_performance_candidate": flags.is_performance,
                "is_accuracy_candidate": flags.is_accuracy,
                "is_non_bug": flags.is_non_bug,
                "candidate_rules": flags.rules,
                "is_stub": False,
            }
        )
    keys = bulk.upsert(
        BugReport, report_rows, unique=["repository_id", "number"], update=REPORT_FIELDS
    )
    report_ids = {number: pk for (_, number), (pk, _) in keys.items()}
    # Only reports stored before can hold comments or links GitHub no longer has.
    existed = {number for (_, number), (_, created) in keys.items() if not created}
    result.reports = len(report_rows)

    comment_rows = {
        c.github_id: {
            "github_id": c.github_id,
            "report_id": report_ids[r.number],
            "author_login": c.author_login,
            "body": c.body,
            "created_at": c.created_at,
            "updated_at": c.updated_at,
        }
        for r in reports.values()
        for c in r.comments
    }
    bulk.upsert(
        Comment,
        list(comment_rows.values()),
        unique=["github_id"],
        update=["report_id", "author_login", "body", "created_at", "updated_at"],
    )
    result.comments = len(comment_rows)
    complete = [
        report_ids[r.number]
        for r in reports.values()
        if r.comments_complete and r.number in existed
    ]
    if complete:
        # Comments deleted on GitHub; comment ids are unique across GitHub.
        Comment.objects.filter(report_id__in=complete).exclude(
            github_id__in=list(comment_rows)
        ).delete()

    _store_fix_links(repository, page, reports, report_ids, existed, commit_ids, pr_ids, result)
    touched = _store_issue_comments(repository, page, result)
    report_measures_refresh(report_ids=sorted({*report_ids.values(), *touched}))
    return result


def _store_issue_comments(repository: Repository, page: records.Page, result: PageResult) -> set:
    """Comments listed apart from their reports; returns the ids of the reports they touch."""
    numbers = {number for number, _ in page.issue_comments} | page.issue_comments_complete
    if not numbers:
        return set()
    report_ids = dict(
        BugReport.objects.filter(repository=repository, number__in=numbers).values_list(
            "number", "id"
        )
    )
    rows = {
        c.github_id: {
            "github_id": c.github_id,
            "report_id": report_ids[number],
            "author_login": c.author_login,
            "body": c.body,
            "created_at": c.created_at,
            "updated_at": c.updated_at,
        }
        for number, c in page.issue_comments
        if number in report_ids
    }
    bulk.upsert(
        Comment,
        list(rows.values()),
        unique=["github_id"],
        update=["report_id", "author_login", "body", "created_at", "updated_at"],
    )
    result.comments += len(rows)
    complete = [report_ids[n] for n in page.issue_comments_complete if n in report_ids]
    if complete:
        Comment.objects.filter(report_id__in=complete).exclude(github_id__in=list(rows)).delete()
    return set(report_ids.values())


def _store_fix_links(
    repository, page, reports, report_ids, existed, commit_ids, pr_ids, result: PageResult
) -> None:
    messages = {c.sha: c.message for c in page.commits}
    prs = {pr.number: pr.info() for pr in page.pull_requests}
    reverts = linking.Reverts()
    for message in messages.values():
        reverts.add_message(message, repo_full_name=repository.full_name)
    links_by_report = {
        number: linking.report_fix_links(
            number=number,
            repo_full_name=repository.full_name,
            closing_pull_requests=r.closing_pull_requests,
            events=r.events,
            commit_messages=messages,
            pull_requests=_related_prs(prs, r, repository.full_name),
            reverts=reverts,
        )
        for number, r in reports.items()
    }
    links = [(number, link) for number, found in links_by_report.items() for link in found]
    shas = {link.commit_sha for _, link in links if link.commit_sha}
    numbers = {link.pull_request for _, link in links if link.pull_request}
    _ensure_targets(repository, shas, numbers, commit_ids, pr_ids)
    rows = {}
    for number, link in links:
        key = (report_ids[number], link.target, link.evidence)
        rows[key] = {
            "report_id": key[0],
            "target": link.target,
            "evidence": link.evidence,
            "commit_id": commit_ids[link.commit_sha] if link.commit_sha else None,
            "pull_request_id": pr_ids[link.pull_request] if link.pull_request else None,
            "strength": link.strength,
            "reverted": link.reverted,
            "detail": link.detail,
        }
        result.fix_links[link.evidence] += 1
    complete_ids = [report_ids[n] for n, r in reports.items() if r.links_complete and n in existed]
    if complete_ids:
        existing = FixLink.objects.filter(report_id__in=complete_ids).values_list(
            "pk", "report_id", "target", "evidence"
        )
        stale = [pk for pk, *key in existing if tuple(key) not in rows]
        if stale:
            FixLink.objects.filter(pk__in=stale).delete()
    bulk.upsert(
        FixLink,
        list(rows.values()),
        unique=["report_id", "target", "evidence"],
        update=["commit_id", "pull_request_id", "strength", "reverted", "detail"],
    )
    _mark_reverted(repository, reverts)


def _related_prs(prs: dict, report: records.ReportRecord, repo_full_name: str) -> dict:
    """The page's PRs that the report's data names, or whose body closes the report."""
    named = set(report.closing_pull_requests) | {e.pull_request for e in report.events}
    return {
        n: pr
        for n, pr in prs.items()
        if n in named
        or report.number in linking.closing_references(pr.body, repo_full_name=repo_full_name)
    }


def _mark_reverted(repository: Repository, reverts: linking.Reverts) -> None:
    """Reverts seen on this page may undo fixes stored on earlier pages."""
    if not reverts.commits and not reverts.pull_requests:
        return
    condition = Q(pull_request__number__in=reverts.pull_requests)
    for sha in reverts.commits:
        condition |= Q(commit__sha__startswith=sha)
    links = FixLink.objects.filter(condition, report__repository=repository, reverted=False)
    report_ids = list(links.values_list("report_id", flat=True).distinct())
    if report_ids:
        FixLink.objects.filter(pk__in=links.values("pk")).update(reverted=True)
        report_measures_refresh(report_ids=report_ids)


MEASURE_FIELDS = [
    "fix_hours",
    "fix_size",
    "first_comment_hours",
    "commenter_count",
    "participant_count",
    "has_fix",
]

# The rules of mining/measures.py as one set-based statement over the given reports:
# responses are comments by anyone but the reporter (all comments if the reporter is deleted);
# fix size sums distinct non-reverted targets of the first tier that has sizes, in the order
# strong commits, strong PRs, weak commits, weak PRs.
MEASURES_SQL = """
WITH ids AS (SELECT unnest(%(ids)s::bigint[]) AS id),
talk AS (
    SELECT c.report_id,
           count(DISTINCT c.author_login) FILTER (WHERE c.author_login <> '') AS commenters,
           count(DISTINCT c.author_login) FILTER (
               WHERE c.author_login <> '' AND c.author_login <> r.author_login
           ) AS others,
           min(c.created_at) FILTER (
               WHERE r.author_login = '' OR c.author_login <> r.author_login
           ) AS first_response
    FROM mining_comment c JOIN mining_bugreport r ON r.id = c.report_id
    WHERE c.report_id IN (SELECT id FROM ids)
    GROUP BY c.report_id
),
parts AS (
    SELECT DISTINCT l.report_id, l.target,
           (l.strength <> 'strong')::int * 2 + (l.commit_id IS NULL)::int AS tier,
           CASE WHEN l.commit_id IS NOT NULL THEN cm.additions + cm.deletions
                ELSE pr.additions + pr.deletions END AS size
    FROM mining_fixlink l
    LEFT JOIN mining_commit cm ON cm.id = l.commit_id
    LEFT JOIN mining_pullrequest pr ON pr.id = l.pull_request_id
    WHERE l.report_id IN (SELECT id FROM ids) AND NOT l.reverted
),
tiers AS (
    SELECT report_id, tier, sum(size) AS size
    FROM parts WHERE size IS NOT NULL GROUP BY report_id, tier
),
sizes AS (
    SELECT DISTINCT ON (report_id) report_id, size FROM tiers ORDER BY report_id, tier
)
UPDATE mining_bugreport r SET
    fix_hours = CASE WHEN r.state = 'closed' AND r.closed_at IS NOT NULL
                     AND r.created_at IS NOT NULL
                THEN greatest(extract(epoch FROM r.closed_at - r.created_at), 0) / 3600 END,
    fix_size = sizes.size,
    first_comment_hours = CASE WHEN talk.first_response IS NOT NULL
                               AND r.created_at IS NOT NULL
        THEN greatest(extract(epoch FROM talk.first_response - r.created_at), 0) / 3600 END,
    commenter_count = coalesce(talk.commenters, 0),
    participant_count = coalesce(talk.others, 0) + (r.author_login <> '')::int,
    has_fix = EXISTS (SELECT 1 FROM parts p WHERE p.report_id = r.id)
FROM ids
LEFT JOIN talk ON talk.report_id = ids.id
LEFT JOIN sizes ON sizes.report_id = ids.id
WHERE r.id = ids.id
"""


def report_measures_refresh(*, report_ids: list[int]) -> None:
    """Recompute the stored measures of these reports, in one statement."""
    if not report_ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(MEASURES_SQL, {"ids": list(report_ids)})


@transaction.atomic
def commits_store_files(
    *,
    repository: Repository,
    commits: list[records.CommitRecord],
    unavailable: list[str] = (),
) -> None:
    """Store REST commit details (stats, capped per-file patches) of a batch of commits and
    refresh the fix sizes of their reports, in one transaction. `unavailable` commits (gone
    or malformed on GitHub) are marked fetched so no later run asks for them again."""
    if unavailable:
        Commit.objects.filter(repository=repository, sha__in=unavailable).update(files_fetched=True)
    _upsert_commits(repository, commits)
    report_ids = FixLink.objects.filter(
        report__repository=repository, commit__sha__in=[c.sha for c in commits]
    ).values_list("report_id", flat=True)
    report_measures_refresh(report_ids=sorted(set(report_ids)))


@transaction.atomic
def report_stubs_create(*, references: list[tuple[str, int]]) -> list[BugReport]:
    """Stub reports for (OWNER/NAME, number) pairs not imported yet, in the given order, with
    a title that says so and their GitHub address; repositories are created as needed. The
    next import of the repository fills them in (storing a report clears `is_stub`)."""
    repositories: dict[str, Repository] = {}
    stubs = []
    for full_name, number in references:
        repository = repositories.get(full_name.lower())
        if repository is None:
            repository = repository_get_or_create(full_name=full_name)
            repositories[full_name.lower()] = repository
        stubs.append(
            BugReport(
                repository=repository,
                number=number,
                title=f"{repository.full_name}#{number} (not imported yet)",
                html_url=f"https://github.com/{repository.full_name}/issues/{number}",
                is_stub=True,
            )
        )
    return BugReport.objects.bulk_create(stubs)
