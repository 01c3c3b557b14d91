"""Reads of the mining app: querysets and read-only lookups."""

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.postgres.aggregates import JSONBAgg, StringAgg
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import EmptyResultSet, ValidationError
from django.db import connection
from django.db.models import (
    F,
    Func,
    JSONField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    TextField,
)
from django.db.models.functions import Cast, TruncDate
from django.http import QueryDict
from django.utils import timezone

from config.names import closest_name
from config.sql import int_array, text_array
from mining import candidates
from mining.filters import ReportFilter
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
    """The repository's rules, or the defaults if it has none stored."""
    rules = CandidateRules.objects.filter(repository=repository).first() or CandidateRules()
    return candidates.Rules.of(rules)


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


def reports_imported() -> QuerySet[BugReport]:
    """Every report imported from GitHub (stubs, which only name a report, left out)."""
    return BugReport.objects.filter(is_stub=False)


def report_refs(*, report_ids) -> dict[int, str]:
    """OWNER/NAME#number of each report, by id: one query."""
    rows = BugReport.objects.filter(pk__in=list(report_ids)).values_list(
        "pk", "repository__full_name", "number"
    )
    return {pk: f"{full_name}#{number}" for pk, full_name, number in rows}


# Plain SQL: a text model reads tens of thousands of reports, each with a few comments and
# fixes, in one pass.
REPORT_TEXT_SQL = """
SELECT report.id, report.title, left(report.body, %s), report.labels,
       ARRAY(SELECT left(comment.body, %s) FROM mining_comment comment
             WHERE comment.report_id = report.id
             ORDER BY comment.created_at, comment.github_id LIMIT %s),
       ARRAY(SELECT coalesce(pr.title, split_part(c.message, E'\\n', 1), '')
             FROM mining_fixlink link
             LEFT JOIN mining_pullrequest pr ON pr.id = link.pull_request_id
             LEFT JOIN mining_commit c ON c.id = link.commit_id
             WHERE link.report_id = report.id AND NOT link.reverted)
FROM mining_bugreport report
WHERE report.id = ANY(%s::bigint[])
"""


def reports_text_parts(
    *, report_ids: list[int], body_chars: int, comment_chars: int, comments_kept: int
) -> list[tuple[int, str, str, list[str], list[str], list[str]]]:
    """What a text model reads of each report, in one query: (id, title, the body's first
    `body_chars`, its GitHub labels, its first `comments_kept` comments cut at
    `comment_chars`, the titles of its fixes that were not reverted: pull requests' titles,
    commits' first lines)."""
    labels_field = BugReport._meta.get_field("labels")
    with connection.cursor() as cursor:
        cursor.execute(
            REPORT_TEXT_SQL,
            [body_chars, comment_chars, comments_kept, int_array(report_ids)],
        )
        rows = cursor.fetchall()
    return [
        (
            pk,
            title,
            body,
            labels_field.from_db_value(labels, None, connection) or [],
            comments,
            [fix for fix in fixes if fix],
        )
        for pk, title, body, labels, comments, fixes in rows
    ]


def repositories_missing(*, full_names: list[str]) -> list[str]:
    """Those of the names (OWNER/NAME, exact) that no stored repository has, in their order."""
    known = set(
        Repository.objects.filter(full_name__in=full_names).values_list("full_name", flat=True)
    )
    return [name for name in full_names if name not in known]


def report_ids_by_key(*, keys: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
    """The ids of the stored reports (stubs too) among (OWNER/NAME, number) pairs, by
    (lower-cased OWNER/NAME, number): repository names match ignoring case.

    One query whatever the number of keys: the pairs are joined as two arrays, so the cost
    grows with the keys (an OR of one condition per key grew faster than that)."""
    if not keys:
        return {}
    names = text_array(full_name.lower() for full_name, _ in keys)
    numbers = int_array(number for _, number in keys)
    with connection.cursor() as cursor:
        # The keys are bound parameters; the SQL is a constant.
        cursor.execute(
            "SELECT k.name, k.number, r.id FROM mining_bugreport r "
            "JOIN mining_repository p ON p.id = r.repository_id "
            "JOIN unnest(%s::text[], %s::bigint[]) AS k(name, number) "
            "ON lower(p.full_name) = k.name AND r.number = k.number",
            [names, numbers],
        )
        return {(name, number): pk for name, number, pk in cursor.fetchall()}


def commits_without_patches(*, report_ids: list[int]) -> QuerySet[Commit]:
    """The fix commits of these reports whose per-file patches were never fetched."""
    linked = FixLink.objects.filter(report_id__in=report_ids, commit__isnull=False)
    return Commit.objects.filter(pk__in=linked.values("commit_id"), files_fetched=False)


def report_list() -> QuerySet[BugReport]:
    return BugReport.objects.select_related("repository").defer("raw", "body")


# The order pages show a report's fix links in: strong evidence first.
FIX_LINK_ORDER = ("strength", "evidence", "target")


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
                ).order_by(*FIX_LINK_ORDER),
            ),
        )
        .get(pk=report_id)
    )


def import_job_list() -> QuerySet[ImportJob]:
    return ImportJob.objects.select_related("repository")


def import_job_stall_note(job: ImportJob, *, now: dt.datetime | None = None) -> str | None:
    """What to tell about an active job that has shown no progress for MINING_STALLED_MINUTES
    (after its rate-limit reset, for a waiting one), or None.

    A job's row is saved with every page stored and every status change, so silence that long
    means its worker is busy elsewhere (queued) or has stopped: a worker killed mid-import
    leaves the job "running", and the broker hands its task to another worker only after the
    visibility timeout."""
    if not job.is_active:
        return None
    now = now or timezone.now()
    after = dt.timedelta(minutes=settings.MINING_STALLED_MINUTES)
    since = job.updated_at
    if job.status == ImportJob.Status.WAITING and job.rate_limit_reset_at:
        since = max(since, job.rate_limit_reset_at)
    if now - since < after:
        return None
    minutes = int((now - since).total_seconds() // 60)
    if job.status == ImportJob.Status.QUEUED:
        return (
            f"Not started after {minutes} min: every worker is busy, or none is running "
            "(make worker)."
        )
    note = f"No progress for {minutes} min: its worker may have stopped. "
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout")
    if timeout:  # Redis: an unacknowledged task goes back to the queue after the timeout
        note += f"Redis gives its task to another worker {timeout / 3600:g} h after it started; "
    return note + "Cancel, then Re-run, to go on now (the pages stored so far are kept)."


# The report's own fields report_for_labelling gives, in REPORT_SQL's order: every field of
# mining.serializers.ReportDetailSerializer that is a column of the report.
REPORT_FIELDS = [
    "id",
    "number",
    "title",
    "body",
    "state",
    "state_reason",
    "author_login",
    "labels",
    "created_at",
    "updated_at",
    "closed_at",
    "comment_count",
    "html_url",
    "milestone",
    "reactions",
    "is_performance_candidate",
    "is_accuracy_candidate",
    "is_non_bug",
    "candidate_rules",
    "has_fix",
    "fix_hours",
    "fix_size",
    "first_comment_hours",
    "commenter_count",
    "participant_count",
]
_JSON_FIELDS = [
    name for name in REPORT_FIELDS if name in ("labels", "reactions", "candidate_rules")
]
# Plain SQL: a labelling page asks for a report on every item, and the ORM takes longer to
# build the query and its objects than the database to answer.
REPORT_SQL = """
SELECT report.id, report.number, report.title, report.body, report.state, report.state_reason,
       report.author_login, report.labels, report.created_at, report.updated_at,
       report.closed_at, report.comment_count, report.html_url, report.milestone,
       report.reactions, report.is_performance_candidate, report.is_accuracy_candidate,
       report.is_non_bug, report.candidate_rules, report.has_fix, report.fix_hours,
       report.fix_size, report.first_comment_hours, report.commenter_count,
       report.participant_count,
       repository.full_name,
       (SELECT COALESCE(json_agg(json_build_object(
                   'github_id', comment.github_id, 'author_login', comment.author_login,
                   'body', comment.body, 'created_at', comment.created_at,
                   'updated_at', comment.updated_at
               ) ORDER BY comment.created_at, comment.github_id), '[]')
        FROM mining_comment comment WHERE comment.report_id = report.id),
       EXISTS (SELECT 1 FROM mining_fixlink link WHERE link.report_id = report.id)
FROM mining_bugreport report
JOIN mining_repository repository ON repository.id = report.repository_id
WHERE report.id = %s
"""


def report_for_labelling(*, report_id: int) -> dict:
    """The report with its comments (oldest first) as plain values, in one query: REPORT_FIELDS,
    its repository's OWNER/NAME, the comments' GitHub id, author, body and times, and
    `fix_linked`, whether it has fix links (report_fix_links reads them); nothing more (the raw
    GitHub payload stays in the database)."""
    with connection.cursor() as cursor:
        cursor.execute(REPORT_SQL, [report_id])
        row = cursor.fetchone()
    if row is None:
        raise BugReport.DoesNotExist(f"no report {report_id}")
    *fields, repository, comments, fix_linked = row
    report = dict(zip(REPORT_FIELDS, fields, strict=True))
    # Django leaves jsonb to its field to decode (the comments are plain json).
    for name in _JSON_FIELDS:
        field = BugReport._meta.get_field(name)
        report[name] = field.from_db_value(report[name], None, connection)
    for comment in comments:
        for name in ("created_at", "updated_at"):
            if comment[name] is not None:
                comment[name] = dt.datetime.fromisoformat(comment[name])
    return {
        "id": report.pop("id"),
        "repository": repository,
        **report,
        "comments": comments,
        "fix_linked": fix_linked,
    }


def report_fix_links(*, report_id: int) -> QuerySet[FixLink]:
    """A report's fix links with their commit and pull request, in the order pages show them."""
    return (
        FixLink.objects.filter(report_id=report_id)
        .select_related("commit", "pull_request__repository")
        .order_by(*FIX_LINK_ORDER)
    )


def reports_filtered(
    *, params: QueryDict, within: QuerySet[BugReport] | None = None, ignored: Iterable[str] = ()
) -> QuerySet[BugReport]:
    """The imported reports (of `within`, if given) that the filters of /api/reports/ select.

    Unlike the list, every parameter must be known and given once, and every value valid: a
    ValidationError names each parameter that is not, as {name: [messages]}. `ignored` names
    parameters the caller reads itself.
    """
    ignored = set(ignored)
    known = set(ReportFilter.base_filters)
    errors: dict[str, list[str]] = {}
    for name in params:
        if name in ignored:
            continue
        if name not in known:
            close = closest_name(name, known | ignored)
            hint = f"did you mean {close!r}?" if close else f"known: {', '.join(sorted(known))}"
            errors[name] = [f"unknown parameter {name!r}; {hint}"]
        elif len(params.getlist(name)) > 1:
            errors[name] = [f"given {len(params.getlist(name))} times; give it once"]
    reports = reports_imported() if within is None else within
    filters = ReportFilter(params, queryset=reports)
    if not filters.is_valid():
        for name, messages in filters.errors.items():
            errors.setdefault(name, []).extend(messages)
    if errors:
        # In the order the parameters were given.
        order = {name: index for index, name in enumerate(params)}
        ordered = sorted(errors.items(), key=lambda error: order.get(error[0], len(order)))
        raise ValidationError(dict(ordered))
    return filters.qs


@dataclass(frozen=True)
class ReportMeasure:
    """A measure the studies compare: its key, what it is, and the field it comes from
    (divided by `per`, e.g. hours into days)."""

    key: str
    label: str
    field: str
    per: float = 1


REPORT_MEASURES = (
    ReportMeasure("time_to_fix_days", "Time to fix (days, opened to closed)", "fix_hours", 24),
    ReportMeasure("fix_size_lines", "Fix size (lines added + deleted)", "fix_size"),
    ReportMeasure(
        "time_to_first_comment_hours", "Time to first comment (hours)", "first_comment_hours"
    ),
    ReportMeasure("comments", "Comments", "comment_count"),
    ReportMeasure("commenters", "Commenters", "commenter_count"),
    ReportMeasure("participants", "Participants", "participant_count"),
)


def _columns(reports: QuerySet[BugReport], expressions: list) -> list[list]:
    """Each expression's value over the reports, one list per expression, in one query."""
    try:
        sql, params = reports.order_by().values_list(*expressions).query.sql_with_params()
    except EmptyResultSet:  # a queryset that can select nothing (none(), pk__in=[])
        return [[] for _ in expressions]
    names = [f"c{index}" for index in range(len(expressions))]
    # One array per expression: PostgreSQL's arrays arrive as lists built in C, where 100,000
    # rows would each become a tuple to take apart again.
    arrays = ", ".join(f"array_agg({name})" for name in names)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {arrays} FROM ({sql}) AS report({', '.join(names)})", params)  # noqa: S608
        return [column or [] for column in cursor.fetchone()]


def report_measure_values(*, reports: QuerySet[BugReport]) -> dict[str, list[float | None]]:
    """Each of REPORT_MEASURES over the reports, one value per report (None: the report has
    none, e.g. no fix or no comment), in one query."""
    columns = _columns(
        reports,
        [
            F(measure.field) / measure.per if measure.per != 1 else F(measure.field)
            for measure in REPORT_MEASURES
        ],
    )
    return {measure.key: column for measure, column in zip(REPORT_MEASURES, columns, strict=True)}


def report_created_dates(*, reports: QuerySet[BugReport]) -> list[dt.date]:
    """The day (UTC) each report was opened; reports without a date left out, in one query."""
    (days,) = _columns(
        reports.filter(created_at__isnull=False), [TruncDate("created_at", tzinfo=dt.UTC)]
    )
    return days


def report_repository_names(*, report_ids: Iterable[int]) -> dict[int, str]:
    """OWNER/NAME of each report's repository, by report id."""
    return dict(
        BugReport.objects.filter(pk__in=list(report_ids))
        .order_by()
        .values_list("pk", "repository__full_name")
    )


def fix_links_joined(*, report: OuterRef, separator: str) -> Subquery:
    """A subquery over the report that `report` names: its fix links as four text cells
    (commit SHAs, pull request numbers, evidence, reverted), each joined with `separator`,
    strongest evidence first as in `fix_links_listed`; NULL for a report without fix links.
    For one query over many reports that formats them in the database."""
    order = ("strength", "pk")

    def joined(value, **extra):
        return StringAgg(value, separator, order_by=order, output_field=TextField(), **extra)

    cells = Func(
        joined("commit__sha", filter=~Q(commit__sha="")),
        joined(Cast("pull_request__number", TextField())),
        joined("evidence"),
        joined(Cast("reverted", TextField())),
        template="ARRAY[%(expressions)s]",
        output_field=ArrayField(TextField()),
    )
    links = FixLink.objects.filter(report_id=report).order_by().values("report_id")
    return Subquery(links.annotate(cells=cells).values("cells"))


def fix_links_listed(*, report: OuterRef) -> Subquery:
    """A subquery over the report that `report` names: its fix links as a JSON array of
    [commit SHA, pull request number, evidence, strength, reverted], strongest evidence
    first; NULL for a report without fix links."""
    link = Func(
        F("commit__sha"),
        F("pull_request__number"),
        F("evidence"),
        F("strength"),
        F("reverted"),
        function="jsonb_build_array",
        output_field=JSONField(),
    )
    links = FixLink.objects.filter(report_id=report).order_by().values("report_id")
    found = JSONBAgg(link, order_by=("strength", "pk"))
    return Subquery(links.annotate(found=found).values("found"))
