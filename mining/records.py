"""GitHub payloads (REST, GraphQL, offline files) turned into plain, validated records.

Every source ends here, so the writer (mining/services.py) sees one shape. Text loses NUL
characters (PostgreSQL cannot store them); datetimes must carry a timezone. A payload that
does not fit raises MalformedPayloadError naming the field, and the caller skips the whole
item. That is the only error a parser here raises for a payload: the public parsers are
marked @parses_payload, which turns any other slip of the payload's shape (a missing key, a
list where an object belongs) into MalformedPayloadError naming the parser, so the importer
catches that one error, around these functions only, and a bug elsewhere is not blamed on
GitHub. Plain Python, no Django.
"""

import datetime as dt
import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from mining.linking import PullRequestInfo, TimelineEvent


class MalformedPayloadError(ValueError):
    """A GitHub object lacks a field or has one of the wrong type."""


def parses_payload(parse):
    """Mark a parser of GitHub's payloads: whatever shape the payload has, it returns a record
    or raises MalformedPayloadError (naming the parser where the payload's shape broke one of
    its reads)."""

    @functools.wraps(parse)
    def parser(*args, **kwargs):
        try:
            return parse(*args, **kwargs)
        except MalformedPayloadError:
            raise
        except (LookupError, TypeError, AttributeError, ValueError) as exc:
            raise MalformedPayloadError(
                f"{parse.__name__}: unexpected shape ({type(exc).__name__}: {exc})"
            ) from exc

    return parser


@dataclass
class CommentRecord:
    github_id: int
    author_login: str
    body: str
    created_at: dt.datetime
    updated_at: dt.datetime | None


@dataclass
class CommitRecord:
    sha: str
    message: str
    author_login: str = ""
    author_name: str = ""
    authored_at: dt.datetime | None = None
    additions: int | None = None
    deletions: int | None = None
    changed_files: int | None = None
    html_url: str = ""
    files: list[dict] | None = None  # None: not fetched; else capped per-file patches


@dataclass
class PullRequestRecord:
    number: int
    github_id: int | None = None
    title: str = ""
    body: str = ""
    state: str = "open"
    merged: bool = False
    merge_commit_sha: str = ""
    labels: list[str] = field(default_factory=list)
    additions: int | None = None
    deletions: int | None = None
    html_url: str = ""

    def info(self) -> PullRequestInfo:
        return PullRequestInfo(
            number=self.number,
            body=self.body,
            merged=self.merged,
            merge_commit_sha=self.merge_commit_sha,
            labels=tuple(self.labels),
        )


@dataclass
class ReportRecord:
    number: int
    github_id: int | None
    node_id: str
    title: str
    body: str
    state: str
    state_reason: str
    author_login: str
    labels: list[str]
    milestone: str
    created_at: dt.datetime
    updated_at: dt.datetime | None
    closed_at: dt.datetime | None
    comment_count: int
    reactions: dict
    html_url: str
    raw: dict
    comments: list[CommentRecord] = field(default_factory=list)
    comments_complete: bool = True
    closing_pull_requests: list[int] = field(default_factory=list)
    events: list[TimelineEvent] = field(default_factory=list)
    links_complete: bool = True


@dataclass
class Page:
    """What one page of an import brings; the writer stores it in one transaction."""

    reports: list[ReportRecord] = field(default_factory=list)
    pull_requests: list[PullRequestRecord] = field(default_factory=list)
    commits: list[CommitRecord] = field(default_factory=list)
    pull_requests_skipped: int = 0
    skipped: list[dict] = field(default_factory=list)  # {"item": ..., "reason": ...}
    # Comments of reports stored on earlier pages (REST lists them apart from the issues):
    # (report number, comment); numbers that are no stored report (pull requests) are ignored.
    issue_comments: list[tuple[int, CommentRecord]] = field(default_factory=list)
    # Reports whose every comment is in issue_comments (others stored for them are deleted).
    issue_comments_complete: set[int] = field(default_factory=set)


def clean_text(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise MalformedPayloadError(f"expected text, got {type(value).__name__}")
    return value.replace("\x00", "")


def clean_json(value: Any) -> Any:
    """The payload without NUL characters anywhere (PostgreSQL jsonb rejects \\u0000)."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [clean_json(item) for item in value]
    if isinstance(value, dict):
        return {clean_json(key): clean_json(item) for key, item in value.items()}
    return value


def _field(obj: Any, name: str, kinds: type | tuple, *, required: bool = True) -> Any:
    if not isinstance(obj, dict):
        raise MalformedPayloadError(f"expected an object, got {type(obj).__name__}")
    value = obj.get(name)
    if value is None:
        if required:
            raise MalformedPayloadError(f"{name}: missing")
        return None
    allowed = kinds if isinstance(kinds, tuple) else (kinds,)
    expected = " or ".join(kind.__name__ for kind in allowed)
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
        raise MalformedPayloadError(f"{name}: expected {expected}, got {type(value).__name__}")
    return value


GITHUB_ID_MAX = 2**63 - 1  # ids are stored as 64-bit integers


def parse_github_id(obj: Any, name: str, *, required: bool = True) -> int | None:
    """A GitHub database id: a JSON number (REST) or a GraphQL BigInt, which GitHub sends as
    a string of digits because it may exceed 2^31 (and a JSON number's safe range)."""
    value = _field(obj, name, (int, str), required=required)
    if isinstance(value, str):
        if not value.isascii() or not value.isdigit():
            raise MalformedPayloadError(f"{name}: not an id: {value[:30]!r}")
        value = int(value)
    if value is not None and not 0 < value <= GITHUB_ID_MAX:
        raise MalformedPayloadError(f"{name}: id out of range: {value}")
    return value


def parse_time(value: Any, name: str, *, required: bool = True) -> dt.datetime | None:
    if value is None:
        if required:
            raise MalformedPayloadError(f"{name}: missing")
        return None
    try:
        parsed = dt.datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise MalformedPayloadError(f"{name}: not an ISO 8601 datetime: {value!r}") from exc
    if parsed.tzinfo is None:
        raise MalformedPayloadError(f"{name}: datetime without timezone: {value!r}")
    return parsed


def web_url(value: Any, name: str) -> str:
    """A link shown to users: only http(s), so a payload cannot smuggle in `javascript:`."""
    text = clean_text(value).strip()
    if text and urlsplit(text).scheme.lower() not in {"http", "https"}:
        raise MalformedPayloadError(f"{name}: not an http(s) URL: {text[:100]!r}")
    return text


def _login(actor: Any) -> str:
    """The login of a user object; deleted users come as null (REST) or a ghost."""
    if not isinstance(actor, dict):
        return ""
    return clean_text(actor.get("login"))[:100]


def cap_patch(patch: str | None, limit: int) -> tuple[str, bool]:
    text = clean_text(patch)
    if len(text) <= limit:
        return text, False
    return text[:limit], True


def _files(files: list, patch_limit: int) -> list[dict]:
    result = []
    for item in files:
        patch, truncated = cap_patch(item.get("patch"), patch_limit)
        result.append(
            {
                "filename": clean_text(item.get("filename")),
                "status": clean_text(item.get("status")),
                "additions": int(item.get("additions") or 0),
                "deletions": int(item.get("deletions") or 0),
                "patch": patch,
                "patch_truncated": truncated,
            }
        )
    return result


# ---- REST ---------------------------------------------------------------------------------


def _rest_id(obj: Any, name: str, *, required: bool = True) -> int | None:
    """REST sends ids as JSON numbers (Python reads them at any size), never as text."""
    _field(obj, name, int, required=required)
    return parse_github_id(obj, name, required=required)


def rest_list(value: Any, name: str) -> list:
    """A REST answer that must be a list (an empty answer is an empty list)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise MalformedPayloadError(f"{name}: expected a list, got {type(value).__name__}")
    return value


@parses_payload
def is_rest_pull_request(issue: dict) -> bool:
    return isinstance(issue, dict) and "pull_request" in issue


@parses_payload
def issue_number_from_url(url: Any) -> int:
    """ "https://api.github.com/repos/o/r/issues/12" -> 12."""
    match = re.search(r"/issues/(\d+)/?$", url if isinstance(url, str) else "")
    if not match:
        raise MalformedPayloadError(f"issue_url: not an issue API URL: {url!r}")
    return int(match.group(1))


@parses_payload
def comments_from_rest(data: Any) -> list[CommentRecord]:
    """A page of one issue's comments."""
    return [comment_from_rest(item) for item in rest_list(data, "comments")]


@parses_payload
def issue_comment_from_rest(data: Any) -> tuple[int, CommentRecord]:
    """A comment of the repository-wide listing: (its issue's number, the comment)."""
    if not isinstance(data, dict):
        raise MalformedPayloadError(f"comment: expected an object, got {type(data).__name__}")
    return issue_number_from_url(data.get("issue_url")), comment_from_rest(data)


@parses_payload
def comment_from_rest(data: dict) -> CommentRecord:
    return CommentRecord(
        github_id=_rest_id(data, "id"),
        author_login=_login(data.get("user")),
        body=clean_text(data.get("body")),
        created_at=parse_time(data.get("created_at"), "created_at"),
        updated_at=parse_time(data.get("updated_at"), "updated_at", required=False),
    )


@parses_payload
def commit_from_rest(data: dict, *, patch_limit: int) -> CommitRecord:
    detail = _field(data, "commit", dict)
    author = detail.get("author") or {}
    stats = data.get("stats") or {}
    files = data.get("files")
    return CommitRecord(
        sha=_field(data, "sha", str).lower(),
        message=clean_text(detail.get("message")),
        author_login=_login(data.get("author")),
        author_name=clean_text(author.get("name"))[:255],
        authored_at=parse_time(author.get("date"), "commit.author.date", required=False),
        additions=stats.get("additions"),
        deletions=stats.get("deletions"),
        changed_files=len(files) if isinstance(files, list) else None,
        html_url=web_url(data.get("html_url"), "html_url"),
        files=_files(files, patch_limit) if isinstance(files, list) else None,
    )


@parses_payload
def pull_request_from_rest_issue(issue: dict) -> PullRequestRecord:
    """A PR as the issue listing shows it (no merge commit: that takes another request)."""
    pr = issue.get("pull_request") or {}
    merged = bool(pr.get("merged_at"))
    state = "merged" if merged else clean_text(issue.get("state")) or "open"
    return PullRequestRecord(
        number=_field(issue, "number", int),
        github_id=_rest_id(issue, "id", required=False),
        title=clean_text(issue.get("title")),
        body=clean_text(issue.get("body")),
        state=state,
        merged=merged,
        labels=[clean_text(label.get("name")) for label in issue.get("labels") or []],
        html_url=web_url(issue.get("html_url"), "html_url"),
    )


@parses_payload
def event_from_rest(event: dict, *, repo_full_name: str) -> tuple[TimelineEvent | None, Any]:
    """A REST issue event or timeline item, and the cross-referencing PR (REST issue) if any."""
    kind = event.get("event")
    sha = clean_text(event.get("commit_id")).lower()
    if kind == "closed":
        return TimelineEvent("closed", commit_sha=sha), None
    if kind == "referenced" and sha:
        return TimelineEvent("referenced", commit_sha=sha), None
    if kind == "cross-referenced":
        source = (event.get("source") or {}).get("issue") or {}
        repository = (source.get("repository") or {}).get("full_name", repo_full_name)
        if is_rest_pull_request(source) and repository.lower() == repo_full_name.lower():
            return TimelineEvent("cross_referenced", pull_request=source.get("number")), source
    return None, None


@parses_payload
def report_from_rest(issue: dict) -> ReportRecord:
    labels = _field(issue, "labels", list, required=False) or []
    milestone = issue.get("milestone") or {}
    reactions = issue.get("reactions") or {}
    return ReportRecord(
        number=_field(issue, "number", int),
        github_id=_rest_id(issue, "id", required=False),
        node_id=clean_text(issue.get("node_id"))[:100],
        title=clean_text(_field(issue, "title", str)),
        body=clean_text(issue.get("body")),
        state=_state(_field(issue, "state", str)),
        state_reason=clean_text(issue.get("state_reason"))[:30],
        author_login=_login(issue.get("user")),
        labels=[
            clean_text(label.get("name") if isinstance(label, dict) else label) for label in labels
        ],
        milestone=clean_text(milestone.get("title"))[:255] if isinstance(milestone, dict) else "",
        created_at=parse_time(issue.get("created_at"), "created_at"),
        updated_at=parse_time(issue.get("updated_at"), "updated_at", required=False),
        closed_at=parse_time(issue.get("closed_at"), "closed_at", required=False),
        comment_count=int(issue.get("comments") or 0),
        reactions={k: v for k, v in reactions.items() if isinstance(v, int)},
        html_url=web_url(issue.get("html_url"), "html_url"),
        raw=clean_json(
            {
                k: v
                for k, v in issue.items()
                if k not in {"comments_data", "events_data", "commits_data"}
            }
        ),
    )


def _state(value: str) -> str:
    state = value.lower()
    if state not in {"open", "closed"}:
        raise MalformedPayloadError(f"state: expected open or closed, got {value!r}")
    return state


@parses_payload
def repository_from_issue_url(url: str) -> str:
    """ "https://api.github.com/repos/o/r" (any API host) -> "o/r"."""
    match = re.search(r"/repos/([^/]+)/([^/]+)/?$", url or "")
    if not match:
        raise MalformedPayloadError(f"repository_url: not a repository API URL: {url!r}")
    return f"{match.group(1)}/{match.group(2)}"


# GitHub's issue objects nest a dozen levels; far deeper is no payload of theirs, and would
# overflow the recursion of the JSON decoder or of clean_json.
MAX_LINE_DEPTH = 100


def _depth_exceeds(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def json_from_file_line(line: str) -> Any:
    """One line of an offline import file decoded, or MalformedPayloadError: not JSON, or
    nested deeper than MAX_LINE_DEPTH."""
    too_deep = f"nested deeper than {MAX_LINE_DEPTH} levels"
    try:
        value = json.loads(line)
    except RecursionError:
        raise MalformedPayloadError(too_deep) from None
    except json.JSONDecodeError as exc:
        raise MalformedPayloadError(f"not JSON: {exc}") from None
    if _depth_exceeds(value, MAX_LINE_DEPTH):
        raise MalformedPayloadError(too_deep)
    return value


@parses_payload
def page_from_file_issue(issue: Any, *, patch_limit: int) -> tuple[str, Page]:
    """One line of an offline import file: a REST issue object with, optionally, its
    `comments_data`, `events_data` and `commits_data`. (its repository, what it brings)."""
    if not isinstance(issue, dict):
        raise MalformedPayloadError("expected a JSON object")
    repo_full_name = repository_from_issue_url(issue.get("repository_url"))
    page = Page()
    if is_rest_pull_request(issue):
        page.pull_requests.append(pull_request_from_rest_issue(issue))
        page.pull_requests_skipped = 1
        return repo_full_name, page
    report = report_from_rest(issue)
    report.comments = comments_from_rest(issue.get("comments_data"))
    report.comments_complete = "comments_data" in issue
    report.links_complete = "events_data" in issue
    for event in rest_list(issue.get("events_data"), "events_data"):
        timeline_event, source = event_from_rest(event, repo_full_name=repo_full_name)
        if timeline_event:
            report.events.append(timeline_event)
        if source:
            page.pull_requests.append(pull_request_from_rest_issue(source))
    page.commits = [
        commit_from_rest(commit, patch_limit=patch_limit)
        for commit in rest_list(issue.get("commits_data"), "commits_data")
    ]
    page.reports.append(report)
    return repo_full_name, page


# ---- GraphQL ------------------------------------------------------------------------------

_REACTIONS = {
    "THUMBS_UP": "+1",
    "THUMBS_DOWN": "-1",
    "LAUGH": "laugh",
    "HOORAY": "hooray",
    "CONFUSED": "confused",
    "HEART": "heart",
    "ROCKET": "rocket",
    "EYES": "eyes",
}


@dataclass
class Connection:
    """One page of a GraphQL connection."""

    nodes: list[dict]
    has_next_page: bool
    end_cursor: str | None
    total_count: int | None


@parses_payload
def connection_from_graphql(value: Any, name: str) -> Connection:
    """A page of connection `name` (its nodes, where the next page starts, its total)."""
    if not isinstance(value, dict):
        raise MalformedPayloadError(f"{name}: expected an object, got {type(value).__name__}")
    try:
        nodes = _field(value, "nodes", list, required=False) or []
        total_count = _field(value, "totalCount", int, required=False)
        info = _field(value, "pageInfo", dict)
    except MalformedPayloadError as exc:
        raise MalformedPayloadError(f"{name}.{exc}") from None
    try:
        has_next_page = _field(info, "hasNextPage", bool)
        end_cursor = _field(info, "endCursor", str, required=has_next_page)
    except MalformedPayloadError as exc:
        raise MalformedPayloadError(f"{name}.pageInfo.{exc}") from None
    return Connection(
        nodes=[node for node in nodes if isinstance(node, dict)],
        has_next_page=has_next_page,
        end_cursor=end_cursor,
        total_count=total_count,
    )


@parses_payload
def repository_from_graphql(repository: dict) -> tuple[int | None, str]:
    """(the repository's database id, its default branch) from the issues query."""
    branch = _field(repository, "defaultBranchRef", dict, required=False) or {}
    return (
        _field(repository, "databaseId", int, required=False),
        clean_text(_field(branch, "name", str, required=False)),
    )


@parses_payload
def more_pages_of(node: dict, names: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """The issue's connections among `names` with more than their first page:
    (connection, the issue's node id, the cursor after the first page)."""
    pending = []
    for name in names:
        if node.get(name) is None:
            continue
        connection = connection_from_graphql(node[name], name)
        if connection.has_next_page:
            pending.append((name, _field(node, "id", str), connection.end_cursor))
    return pending


@parses_payload
def comment_from_graphql(node: dict) -> CommentRecord:
    return CommentRecord(
        github_id=parse_github_id(node, "fullDatabaseId"),
        author_login=_login(node.get("author")),
        body=clean_text(node.get("body")),
        created_at=parse_time(node.get("createdAt"), "createdAt"),
        updated_at=parse_time(node.get("updatedAt"), "updatedAt", required=False),
    )


@parses_payload
def commit_from_graphql(node: dict) -> CommitRecord:
    author = node.get("author") or {}
    return CommitRecord(
        sha=_field(node, "oid", str).lower(),
        message=clean_text(node.get("message")),
        author_login=_login(author.get("user")),
        author_name=clean_text(author.get("name"))[:255],
        authored_at=parse_time(node.get("authoredDate"), "authoredDate", required=False),
        additions=node.get("additions"),
        deletions=node.get("deletions"),
        changed_files=node.get("changedFilesIfAvailable"),
        html_url=web_url(node.get("url"), "url"),
    )


@parses_payload
def pull_request_from_graphql(node: dict) -> PullRequestRecord:
    merge_commit = node.get("mergeCommit") or {}
    merged = bool(node.get("merged"))
    state = clean_text(node.get("state")).lower() or "open"
    return PullRequestRecord(
        number=_field(node, "number", int),
        github_id=parse_github_id(node, "fullDatabaseId", required=False),
        title=clean_text(node.get("title")),
        body=clean_text(node.get("body")),
        state="merged" if merged else state,
        merged=merged,
        merge_commit_sha=clean_text(merge_commit.get("oid")).lower(),
        labels=[clean_text(n.get("name")) for n in ((node.get("labels") or {}).get("nodes") or [])],
        additions=node.get("additions"),
        deletions=node.get("deletions"),
        html_url=web_url(node.get("url"), "url"),
    )


def _add_pull_request(node: dict, related: Page) -> None:
    """The PR, and its merge commit with its size (so fix sizes need no REST request)."""
    related.pull_requests.append(pull_request_from_graphql(node))
    merge_commit = node.get("mergeCommit")
    if isinstance(merge_commit, dict) and merge_commit.get("oid"):
        related.commits.append(commit_from_graphql(merge_commit))


def _same_repo(node: dict, repo_full_name: str) -> bool:
    repository = (node.get("repository") or {}).get("nameWithOwner")
    return repository is None or repository.lower() == repo_full_name.lower()


@parses_payload
def closing_from_graphql(nodes: list, repo_full_name: str, related: Page) -> list[int]:
    """Numbers of this repository's PRs among closing references; the PRs go to `related`."""
    numbers = []
    for pr in nodes or []:
        if pr and _same_repo(pr, repo_full_name):
            _add_pull_request(pr, related)
            numbers.append(pr["number"])
    return numbers


@parses_payload
def events_from_graphql(nodes: list, repo_full_name: str, related: Page) -> list[TimelineEvent]:
    events = []
    for item in nodes or []:
        event = _event_from_graphql(item or {}, repo_full_name, related)
        if event:
            events.append(event)
    return events


@parses_payload
def extend_report_from_graphql(
    report: ReportRecord, connection: str, nodes: list, *, repo_full_name: str, related: Page
) -> None:
    """Add a later page of one of the issue's connections to the report."""
    if connection == "comments":
        report.comments += [comment_from_graphql(c) for c in nodes if c]
    elif connection == "labels":
        report.labels += [clean_text(n.get("name")) for n in nodes if n]
    elif connection == "closedByPullRequestsReferences":
        report.closing_pull_requests += closing_from_graphql(nodes, repo_full_name, related)
    elif connection == "timelineItems":
        report.events += events_from_graphql(nodes, repo_full_name, related)
    else:  # a bug of the caller's, not a payload's
        raise NotImplementedError(f"unknown connection {connection!r}")


@parses_payload
def report_from_graphql(node: dict, *, repo_full_name: str) -> tuple[ReportRecord, Page]:
    """The report, and the PRs and commits its links point at (in the returned Page).

    Only the first page of each connection is read here; the caller fetches the rest
    (extend_report_from_graphql) where pageInfo says there is more.
    """
    related = Page()
    comments = _field(node, "comments", dict)
    closing = (node.get("closedByPullRequestsReferences") or {}).get("nodes") or []
    closing_numbers = closing_from_graphql(closing, repo_full_name, related)
    timeline = (node.get("timelineItems") or {}).get("nodes") or []
    events = events_from_graphql(timeline, repo_full_name, related)
    milestone = node.get("milestone") or {}
    reactions = {
        _REACTIONS.get(group.get("content"), str(group.get("content")).lower()): (
            group.get("reactors") or {}
        ).get("totalCount", 0)
        for group in node.get("reactionGroups") or []
    }
    comment_nodes = comments.get("nodes") or []
    raw = {k: v for k, v in node.items() if k not in {"comments", "timelineItems"}}
    record = ReportRecord(
        number=_field(node, "number", int),
        github_id=parse_github_id(node, "fullDatabaseId", required=False),
        node_id=clean_text(node.get("id"))[:100],
        title=clean_text(_field(node, "title", str)),
        body=clean_text(node.get("body")),
        state=_state(_field(node, "state", str)),
        state_reason=clean_text(node.get("stateReason")).lower()[:30],
        author_login=_login(node.get("author")),
        labels=[clean_text(n.get("name")) for n in ((node.get("labels") or {}).get("nodes") or [])],
        milestone=clean_text(milestone.get("title"))[:255],
        created_at=parse_time(node.get("createdAt"), "createdAt"),
        updated_at=parse_time(node.get("updatedAt"), "updatedAt", required=False),
        closed_at=parse_time(node.get("closedAt"), "closedAt", required=False),
        comment_count=int(comments.get("totalCount") or len(comment_nodes)),
        reactions={k: v for k, v in reactions.items() if v},
        html_url=web_url(node.get("url"), "url"),
        raw=clean_json(raw),
        comments=[comment_from_graphql(c) for c in comment_nodes if c],
        comments_complete=not (comments.get("pageInfo") or {}).get("hasNextPage", False),
        closing_pull_requests=closing_numbers,
        events=events,
    )
    return record, related


def _event_from_graphql(item: dict, repo_full_name: str, related: Page) -> TimelineEvent | None:
    kind = item.get("__typename")
    if kind == "ClosedEvent":
        closer = item.get("closer") or {}
        if closer.get("__typename") == "Commit" and closer.get("oid"):
            related.commits.append(commit_from_graphql(closer))
            return TimelineEvent("closed", commit_sha=closer["oid"].lower())
        if closer.get("__typename") == "PullRequest" and _same_repo(closer, repo_full_name):
            _add_pull_request(closer, related)
            return TimelineEvent("closed", pull_request=closer["number"])
        return TimelineEvent("closed")
    if kind == "CrossReferencedEvent":
        source = item.get("source") or {}
        if source.get("__typename") == "PullRequest" and _same_repo(source, repo_full_name):
            _add_pull_request(source, related)
            return TimelineEvent(
                "cross_referenced",
                pull_request=source["number"],
                will_close=bool(item.get("willCloseTarget")),
            )
    if kind == "ReferencedEvent":
        commit = item.get("commit") or {}
        same_repo = (item.get("commitRepository") or {}).get("nameWithOwner", repo_full_name)
        if commit.get("oid") and same_repo.lower() == repo_full_name.lower():
            related.commits.append(commit_from_graphql(commit))
            return TimelineEvent("referenced", commit_sha=commit["oid"].lower())
    return None
