"""Writes of the mining app: repositories, imported pages of reports, import jobs.

Every writer validates first, then writes in one transaction, upserting on natural keys
(repository + number, repository + sha, comment id, report + target + evidence), so a page
stored twice (a redelivered task, a re-run) leaves exactly one copy.
"""

import datetime as dt
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from mining import bulk, candidates, linking, records
from mining.models import (
    BugReport,
    CandidateRules,
    Comment,
    Commit,
    FixLink,
    ImportJob,
    PullRequest,
    Repository,
    SyncState,
)

FULL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")
MANAGE_IMPORTS = "mining.manage_imports"


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


def _patch_limit() -> int:
    return settings.MINING_PATCH_MAX_CHARS


def repository_get_or_create(*, full_name: str) -> Repository:
    full_name = full_name.strip().strip("/")
    if not FULL_NAME.match(full_name):
        raise ValidationError({"repository": f"{full_name!r} is not OWNER/NAME"})
    owner, name = full_name.split("/")
    repository = Repository.objects.filter(full_name__iexact=full_name).first()
    if repository is None:
        repository = Repository.objects.create(
            owner=owner,
            name=name,
            full_name=full_name,
            html_url=f"https://github.com/{full_name}",
        )
    return repository


def candidate_rules_ensure(*, repository: Repository) -> CandidateRules:
    rules, _ = CandidateRules.objects.get_or_create(repository=repository)
    return rules


RULE_FIELDS = [
    "performance_labels",
    "performance_keywords",
    "accuracy_labels",
    "accuracy_keywords",
    "non_bug_labels",
]
MAX_RULES = 200
MAX_RULE_LENGTH = 100


def candidate_rules_validate(values: dict[str, list]) -> dict[str, list[str]]:
    """Each rule list cleaned (trimmed, empty entries dropped); a ValidationError names the
    field and the entry (1-based) that is wrong."""
    errors: dict[str, list[str]] = {}
    cleaned: dict[str, list[str]] = {}
    for name in RULE_FIELDS:
        items = values.get(name, [])
        if not isinstance(items, list):
            errors[name] = ["expected a list of texts"]
            continue
        seen: dict[str, int] = {}
        result = []
        for position, item in enumerate(items, start=1):
            if not isinstance(item, str):
                errors.setdefault(name, []).append(f"entry {position}: not a text")
                continue
            text = " ".join(item.split())
            if not text:
                continue
            if len(text) > MAX_RULE_LENGTH:
                errors.setdefault(name, []).append(
                    f"entry {position}: longer than {MAX_RULE_LENGTH} characters"
                )
            elif text.lower() in seen:
                errors.setdefault(name, []).append(
                    f"entry {position}: {text!r} repeats entry {seen[text.lower()]}"
                )
            else:
                seen[text.lower()] = position
                result.append(text)
        if len(result) > MAX_RULES:
            errors.setdefault(name, []).append(f"at most {MAX_RULES} entries")
        cleaned[name] = result
    if errors:
        raise ValidationError(errors)
    return cleaned


def candidate_rules_update(*, repository: Repository, values: dict[str, list], user=None) -> int:
    """Validate and save the repository's rules, then recompute its reports' candidate flags
    (and which rule matched) in the same transaction; returns how many were reclassified."""
    _require_manage(user)
    cleaned = candidate_rules_validate(values)
    with transaction.atomic():
        rules = candidate_rules_ensure(repository=repository)
        for name, items in cleaned.items():
            setattr(rules, name, items)
        rules.full_clean()
        rules.save()
        return reports_reclassify(repository=repository)


def _rules(rules: CandidateRules) -> candidates.Rules:
    return candidates.Rules(
        performance_labels=tuple(rules.performance_labels),
        performance_keywords=tuple(rules.performance_keywords),
        accuracy_labels=tuple(rules.accuracy_labels),
        accuracy_keywords=tuple(rules.accuracy_keywords),
        non_bug_labels=tuple(rules.non_bug_labels),
    )


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
    _refresh_measures(sorted({*report_ids.values(), *touched}))
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
        _refresh_measures(report_ids)


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


def _refresh_measures(report_ids: list[int]) -> None:
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
    _refresh_measures(sorted(set(report_ids)))


@transaction.atomic
def reports_reclassify(*, repository: Repository) -> int:
    """Recompute the candidate flags of every report of the repository from its rules."""
    rules = _rules(candidate_rules_ensure(repository=repository))
    reports = list(repository.reports.only("id", "title", "body", "labels"))
    for report in reports:
        flags = candidates.classify(
            title=report.title, body=report.body, labels=report.labels, rules=rules
        )
        report.is_performance_candidate = flags.is_performance
        report.is_accuracy_candidate = flags.is_accuracy
        report.is_non_bug = flags.is_non_bug
        report.candidate_rules = flags.rules
    BugReport.objects.bulk_update(
        reports,
        ["is_performance_candidate", "is_accuracy_candidate", "is_non_bug", "candidate_rules"],
        batch_size=1000,
    )
    return len(reports)


# ---- offline files --------------------------------------------------------------------------


MAX_FILE_ERRORS = 20


def _read_file(path: Path) -> list[tuple[str, records.Page]]:
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise ValidationError({"path": f"{path}: {exc.strerror}"}) from exc
    pages: list[tuple[str, records.Page]] = []
    errors: list[str] = []
    with handle:
        for line_number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
                if not line.strip():
                    continue
                issue = json.loads(line)
                pages.append(records.page_from_file_issue(issue, patch_limit=_patch_limit()))
            except UnicodeDecodeError as exc:
                errors.append(f"{path.name}, line {line_number}: not UTF-8 (byte {exc.start + 1})")
            except (json.JSONDecodeError, records.MalformedPayloadError) as exc:
                errors.append(f"{path.name}, line {line_number}: {exc}")
    if len(errors) > MAX_FILE_ERRORS:
        hidden = len(errors) - MAX_FILE_ERRORS
        errors = [*errors[:MAX_FILE_ERRORS], f"{path.name}: … and {hidden} more bad lines"]
    if errors:
        raise ValidationError({"path": errors})
    return pages


@transaction.atomic
def reports_import_from_file(*, path: str | Path) -> dict:
    """Import a JSON Lines file of GitHub REST issue objects; all of it or, on any bad line,
    nothing.

    The whole file is validated before the first write, and the writes share one
    transaction, so a file either imports completely or leaves the database as it was. Lines
    are grouped per repository into pages of MINING_FILE_PAGE_SIZE reports.
    """
    pages = _read_file(Path(path))
    by_repository: dict[str, list[records.Page]] = {}
    for repo_full_name, page in pages:
        by_repository.setdefault(repo_full_name, []).append(page)
    total = PageResult()
    size = settings.MINING_FILE_PAGE_SIZE
    for repo_full_name, repo_pages in by_repository.items():
        repository = repository_get_or_create(full_name=repo_full_name)
        rules = _rules(candidate_rules_ensure(repository=repository))
        for start in range(0, len(repo_pages), size):
            merged = records.Page()
            for page in repo_pages[start : start + size]:
                merged.reports += page.reports
                merged.pull_requests += page.pull_requests
                merged.commits += page.commits
                merged.pull_requests_skipped += page.pull_requests_skipped
            total.add(reports_store_page(repository=repository, page=merged, rules=rules))
    summary = total.as_dict()
    summary["repositories"] = sorted(by_repository)
    return summary


# ---- import jobs -----------------------------------------------------------------------------


def _require_manage(user) -> None:
    if user is not None and not user.has_perm(MANAGE_IMPORTS):
        raise PermissionDenied("You may not manage imports.")


def import_job_create(
    *,
    repository_full_name: str,
    api: str = ImportJob.Api.GRAPHQL,
    issue_state: str = ImportJob.IssueState.ALL,
    since: dt.datetime | None = None,
    patches: str | None = None,
    user=None,
) -> ImportJob:
    """A queued import job (the caller enqueues it; `user` None: the command line).
    `patches`: when fix commits' patches come (ImportJob.Patches; MINING_FETCH_PATCHES)."""
    _require_manage(user)
    where = repr(patches) if patches else f"MINING_FETCH_PATCHES={settings.MINING_FETCH_PATCHES}"
    patches = patches or settings.MINING_FETCH_PATCHES
    errors = {}
    if patches not in ImportJob.Patches.values:
        errors["patches"] = f"{where}: expected {', '.join(ImportJob.Patches.values)}"
    if api not in (ImportJob.Api.GRAPHQL, ImportJob.Api.REST):
        errors["api"] = f"{api!r}: expected graphql or rest"
    if issue_state not in ImportJob.IssueState.values:
        errors["state"] = f"{issue_state!r}: expected open, closed or all"
    if since is not None and timezone.is_naive(since):
        errors["since"] = "needs a timezone"
    if errors:
        raise ValidationError(errors)
    repository = repository_get_or_create(full_name=repository_full_name)
    with transaction.atomic():
        active = ImportJob.objects.select_for_update().filter(
            repository=repository, status__in=ImportJob.ACTIVE_STATUSES
        )
        if active.exists():
            raise ValidationError(
                {"repository": f"{repository.full_name} already has an import in progress"}
            )
        candidate_rules_ensure(repository=repository)
        SyncState.objects.get_or_create(repository=repository)
        return ImportJob.objects.create(
            repository=repository,
            api=api,
            issue_state=issue_state,
            since=since,
            patches=patches,
            created_by=user if user is not None and user.is_authenticated else None,
        )


@transaction.atomic
def import_job_cancel(*, job_id: int, user=None) -> ImportJob:
    _require_manage(user)
    job = ImportJob.objects.select_for_update().get(pk=job_id)
    if not job.is_active:
        raise ValidationError({"status": f"a {job.status} import cannot be cancelled"})
    job.status = ImportJob.Status.CANCELLED
    job.finished_at = timezone.now()
    job.error_reason = "Cancelled."
    job.save(update_fields=["status", "finished_at", "error_reason", "updated_at"])
    return job


def import_job_rerun(*, job_id: int, user=None) -> ImportJob:
    """A new job like the given one; it resumes nothing and imports what changed since."""
    job = ImportJob.objects.select_related("repository").get(pk=job_id)
    return import_job_create(
        repository_full_name=job.repository.full_name,
        api=job.api,
        issue_state=job.issue_state,
        since=job.since,
        patches=job.patches,
        user=user,
    )


@transaction.atomic
def import_job_store_page(
    *,
    job_id: int,
    page: records.Page,
    rules: candidates.Rules,
    checkpoint: dict,
    progress: dict,
) -> PageResult | None:
    """Store a page and advance the job's checkpoint in the same transaction.

    Returns None (and writes nothing) if the job was cancelled meanwhile.
    """
    job = ImportJob.objects.select_for_update().select_related("repository").get(pk=job_id)
    if job.status == ImportJob.Status.CANCELLED:
        return None
    result = reports_store_page(repository=job.repository, page=page, rules=rules)
    job.checkpoint = checkpoint
    job.reports_done += result.reports
    job.comments += result.comments
    job.pull_requests_skipped += result.pull_requests_skipped
    job.fix_links = dict(Counter(job.fix_links) + result.fix_links)
    job.skipped_items = (job.skipped_items + result.skipped)[-200:]
    for name, value in progress.items():
        setattr(job, name, value)
    job.save()
    return result


def import_job_update(*, job_id: int, **fields) -> None:
    """Record progress or a status change (not for cancelled jobs, which stay cancelled)."""
    ImportJob.objects.filter(pk=job_id).exclude(status=ImportJob.Status.CANCELLED).update(
        updated_at=timezone.now(), **fields
    )


@transaction.atomic
def import_job_finish(*, job_id: int, progress: dict, etags: dict, skipped: list[dict]) -> None:
    job = ImportJob.objects.select_for_update().select_related("repository").get(pk=job_id)
    if job.status == ImportJob.Status.CANCELLED:
        return
    sync, _ = SyncState.objects.select_for_update().get_or_create(repository=job.repository)
    until = job.checkpoint.get("max_updated_at")
    if until:
        until = dt.datetime.fromisoformat(until)
        if sync.issues_updated_until is None or until > sync.issues_updated_until:
            sync.issues_updated_until = until
    sync.etags = {**sync.etags, **etags}
    sync.save()
    for name, value in progress.items():
        setattr(job, name, value)
    job.skipped_items = (job.skipped_items + skipped)[-200:]
    job.status = ImportJob.Status.DONE
    job.finished_at = timezone.now()
    job.save()


def repository_update_from_github(
    *, repository: Repository, github_id: int | None, default_branch: str
) -> None:
    fields = {"github_id": github_id, "default_branch": default_branch[:255]}
    if any(getattr(repository, k) != v for k, v in fields.items()):
        Repository.objects.filter(pk=repository.pk).update(**fields)
