"""The one module that talks to GitHub through PyGithub.

It owns the GraphQL queries, the transport (PyGithub's Requester: REST GETs with ETags and
GraphQL POSTs), the token pool and the rate-limit policy:

- Every response's x-ratelimit-* headers (and GraphQL's rateLimit) update a per-token budget
  shared by all workers (in Redis when the broker is Redis), and requests on one token are
  serialised across workers by a lock, so workers sharing a token cannot overrun it together.
- A primary limit (403/429 with remaining 0, or GraphQL's RATE_LIMITED) or a secondary one
  (403/429 with Retry-After or a rate-limit message) parks that token until its reset; the
  next token with budget takes over. When none has budget, a short wait is slept here and a
  long one raises RateLimitedError so the job can pause and be rescheduled after the reset.
- 5xx answers and connection errors are retried with exponential backoff, then fail.

PyGithub's own GithubRetry is switched off (retry=None): it sleeps inside urllib3 where the
job cannot record the wait, and does not retry a 429 without Retry-After.

GitHub's ids of issues, comments and pull requests have passed 2^31, beyond GraphQL's `Int`:
the queries ask for `fullDatabaseId` (a BigInt, sent as a string) wherever the schema has it.
A GraphQL answer may carry `data` and `errors` together: an error on one node's field (it has
a path below the root) leaves that field null and is handed to the caller with the data.

Every configured token is redacted (mining/redaction.py) from any text that came from GitHub
before it goes into an exception or a log record: error pages may echo the request headers.
"""

import contextlib
import datetime as dt
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import requests
from github import Auth, Github, GithubException, UnknownObjectException

from mining.redaction import RedactingFilter, redact

logger = logging.getLogger(__name__)

# Every token a client was given in this process; log records of the loggers that may carry
# GitHub's text (PyGithub logs whole answers at DEBUG) are redacted of them.
_TOKENS: set[str] = set()
_LOG_FILTER = RedactingFilter(lambda: tuple(_TOKENS))
for _name in (
    "github.Requester",
    "mining.github_client",
    "mining.importer",
    "mining.patches",
    "mining.tasks",
):
    logging.getLogger(_name).addFilter(_LOG_FILTER)
MESSAGE_CHARS = 200

PAGE_INFO = "pageInfo { hasNextPage endCursor }"
TIMELINE_TYPES = "[CLOSED_EVENT, CROSS_REFERENCED_EVENT, REFERENCED_EVENT]"

# An issue's connections and what is read of them; the issue query reads their first pages,
# more_items_query the next ones.
CONNECTIONS = {
    "comments": ("comments(first: {first}{after})", "...CommentFields"),
    "labels": ("labels(first: {first}{after})", "name"),
    "closedByPullRequestsReferences": (
        "closedByPullRequestsReferences(first: {first}{after}, includeClosedPrs: true)",
        "...PullRequestFields",
    ),
    "timelineItems": (
        "timelineItems(first: {first}{after}, itemTypes: " + TIMELINE_TYPES + ")",
        "...TimelineItemFields",
    ),
}
FIRST_PAGE = {
    "comments": 50,
    "labels": 50,
    "closedByPullRequestsReferences": 10,
    "timelineItems": 50,
}

FRAGMENTS = {
    "CommentFields": """
fragment CommentFields on IssueComment {
  fullDatabaseId
  author { login }
  body
  createdAt
  updatedAt
}
""",
    "CommitFields": """
fragment CommitFields on Commit {
  oid
  message
  url
  authoredDate
  additions
  deletions
  changedFilesIfAvailable
  author { name user { login } }
}
""",
    "PullRequestFields": """
fragment PullRequestFields on PullRequest {
  fullDatabaseId
  number
  title
  body
  state
  merged
  url
  additions
  deletions
  repository { nameWithOwner }
  mergeCommit { ...CommitFields }
  labels(first: 20) { nodes { name } }
}
""",
    "TimelineItemFields": """
fragment TimelineItemFields on IssueTimelineItems {
  __typename
  ... on ClosedEvent {
    closer {
      __typename
      ... on Commit { ...CommitFields }
      ... on PullRequest { ...PullRequestFields }
    }
  }
  ... on CrossReferencedEvent {
    willCloseTarget
    source { __typename ... on PullRequest { ...PullRequestFields } }
  }
  ... on ReferencedEvent {
    commitRepository { nameWithOwner }
    commit { ...CommitFields }
  }
}
""",
}
# The fragments each connection's selection needs (GraphQL rejects unused fragments).
NEEDS = {
    "comments": ["CommentFields"],
    "labels": [],
    "closedByPullRequestsReferences": ["PullRequestFields", "CommitFields"],
    "timelineItems": ["TimelineItemFields", "CommitFields", "PullRequestFields"],
}


def _connection(name: str, first: int, after: str = "") -> str:
    field, selection = CONNECTIONS[name]
    field = field.format(first=first, after=after)
    return f"{field} {{ totalCount {PAGE_INFO} nodes {{ {selection} }} }}"


def _fragments(names) -> str:
    needed = dict.fromkeys(fragment for name in names for fragment in NEEDS[name])
    return "".join(FRAGMENTS[fragment] for fragment in needed)


ISSUES_QUERY = (
    """
query IssuesPage(
  $owner: String!, $name: String!, $first: Int!, $after: String,
  $since: DateTime, $states: [IssueState!]
) {
  rateLimit { cost limit remaining resetAt }
  repository(owner: $owner, name: $name) {
    databaseId  # Repository has no fullDatabaseId; repository ids are still below 2^31
    nameWithOwner
    url
    defaultBranchRef { name }
    issues(
      first: $first, after: $after,
      orderBy: {field: UPDATED_AT, direction: ASC},
      filterBy: {since: $since, states: $states}
    ) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes {
        id
        fullDatabaseId
        number
        title
        body
        state
        stateReason
        url
        createdAt
        updatedAt
        closedAt
        author { login }
        milestone { title }
        reactionGroups { content reactors { totalCount } }
"""
    + "".join(f"        {_connection(name, first)}\n" for name, first in FIRST_PAGE.items())
    + """      }
    }
  }
}
"""
    + _fragments(CONNECTIONS)
)


def more_items_query(connections: list[str]) -> str:
    """One query for the next page (100) of one connection of each of several issues, found
    by node id: variables $id<i> and $after<i> for connections[i]."""
    params = ", ".join(f"$id{i}: ID!, $after{i}: String" for i in range(len(connections)))
    selections = "\n".join(
        f"  item{i}: node(id: $id{i}) {{ ... on Issue {{ number "
        f"{_connection(name, 100, f', after: $after{i}')} }} }}"
        for i, name in enumerate(connections)
    )
    head = f"query MoreIssueItems({params}) {{\n  rateLimit {{ cost remaining resetAt }}\n"
    return f"{head}{selections}\n}}\n{_fragments(connections)}"


class GitHubError(Exception):
    """A failure the job records as its reason; `status` is the HTTP status if any."""

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status


class NotFoundError(GitHubError):
    pass


class BadCredentialsError(GitHubError):
    pass


class ServerError(GitHubError):
    pass


class NetworkError(GitHubError):
    """GitHub could not be reached at all (no HTTP answer), after every retry."""


class RateLimitedError(Exception):
    """Every token is out of budget until `resume_at`."""

    def __init__(self, resume_at: dt.datetime):
        super().__init__(f"rate limited until {resume_at.isoformat()}")
        self.resume_at = resume_at


@dataclass(frozen=True)
class FieldError:
    """GitHub answered an error for one field of one node; that field is null in the data."""

    path: tuple[str | int, ...]
    message: str  # redacted
    type: str = ""

    def where(self) -> str:
        return ".".join(str(part) for part in self.path)


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    data: Any  # None for a 304

    @property
    def next_url(self) -> str | None:
        for part in (self.headers.get("link") or "").split(","):
            url, _, rel = part.partition(";")
            if 'rel="next"' in rel:
                return url.strip().strip("<>")
        return None


# ---- the shared token budget ----------------------------------------------------------------


class TokenBudget:
    """Remaining requests and reset time per token, shared by every worker via Redis.

    Keys are derived from a hash of the API URL and token, never the token itself. Without a
    Redis URL (the in-process eager mode), the budget lives in this process.
    """

    _local: dict[str, dict] = {}
    _local_lock = threading.Lock()

    def __init__(self, redis_url: str | None, lock_timeout: float):
        self._redis = None
        if redis_url and redis_url.startswith(("redis://", "rediss://", "unix://")):
            import redis

            self._redis = redis.Redis.from_url(redis_url)
        self._lock_timeout = lock_timeout

    @staticmethod
    def key(api_url: str, token: str) -> str:
        digest = hashlib.sha256(f"{api_url}\n{token}".encode()).hexdigest()[:16]
        return f"mining:github-token:{digest}"

    def get(self, key: str) -> tuple[int | None, float]:
        if self._redis is None:
            state = self._local.get(key, {})
            return state.get("remaining"), state.get("reset", 0.0)
        remaining, reset = self._redis.hmget(key, "remaining", "reset")
        return (int(remaining) if remaining is not None else None), float(reset or 0)

    def set(self, key: str, remaining: int | None, reset: float) -> None:
        if self._redis is None:
            with self._local_lock:
                self._local[key] = {"remaining": remaining, "reset": reset}
            return
        mapping = {"reset": reset}
        if remaining is not None:
            mapping["remaining"] = remaining
        self._redis.hset(key, mapping=mapping)
        self._redis.expire(key, 3 * 3600)

    @contextlib.contextmanager
    def serialised(self, key: str) -> Iterator[None]:
        """One request at a time per token, across workers (as GitHub asks)."""
        if self._redis is None:
            yield
            return
        from redis.exceptions import LockNotOwnedError

        lock = self._redis.lock(f"{key}:lock", timeout=self._lock_timeout, blocking_timeout=None)
        lock.acquire()
        try:
            yield
        finally:
            try:
                lock.release()
            except LockNotOwnedError:
                # The request outlived the lock (it expires so that a killed worker cannot
                # hold it forever): another worker may have used the token meanwhile. The
                # request itself went through; say so rather than fail the import.
                logger.warning(
                    "a GitHub request took longer than GITHUB_TOKEN_LOCK_SECONDS (%s s); "
                    "the token's lock expired before it ended",
                    self._lock_timeout,
                )


# ---- the client -----------------------------------------------------------------------------


class GitHubClient:
    """REST and GraphQL calls with token rotation, rate-limit handling and accounting."""

    def __init__(
        self,
        *,
        api_url: str,
        tokens: list[str],
        budget: TokenBudget,
        timeout: int = 30,
        seconds_between_requests: float = 0.25,
        seconds_between_writes: float = 1.0,
        inline_wait_seconds: float = 60,
        server_error_retries: int = 5,
        retry_backoff_seconds: float = 2,
        on_wait: Callable[[dt.datetime], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        secondary_wait_seconds: float = 60,
    ):
        self.api_url = api_url.rstrip("/")
        self._tokens = tokens or [""]
        _TOKENS.update(token for token in self._tokens if token)
        self._timeout = timeout
        self._keys = [TokenBudget.key(self.api_url, t) for t in self._tokens]
        self._clients = [
            Github(
                auth=Auth.Token(token) if token else None,
                base_url=self.api_url,
                per_page=100,
                retry=None,
                timeout=timeout,
                user_agent="bug-labeler-mining",
                seconds_between_requests=seconds_between_requests or None,
                seconds_between_writes=seconds_between_writes or None,
            )
            for token in self._tokens
        ]
        self._budget = budget
        self._inline_wait = inline_wait_seconds
        self._retries = server_error_retries
        self._backoff = retry_backoff_seconds
        self._on_wait = on_wait
        self._sleep = sleep
        self._clock = clock
        self._secondary_wait = secondary_wait_seconds
        # Secondary limits in a row (any request): each doubles the wait, up to 16 times it.
        self._secondary_streak = 0
        self.requests = 0
        self.not_modified = 0  # 304 answers: GitHub does not count them against the quota
        self.rate_limit_waits = 0
        self.rate_limit_remaining: int | None = None
        self.rate_limit_reset_at: dt.datetime | None = None
        self.token_index = 0

    def close(self) -> None:
        for client in self._clients:
            client.close()

    # -- public calls --

    def rest_get(self, url: str, *, params: dict | None = None, etag: str = "") -> Response:
        """GET an API path or URL; a 304 (answered from the ETag) costs no quota."""
        headers = {"Accept": "application/vnd.github+json"}
        if etag:
            headers["If-None-Match"] = etag

        def call(requester):
            status, response_headers, body = requester.requestJson("GET", url, params, headers)
            return status, response_headers, body

        status, response_headers, body = self._send(call)
        if status == 304:
            self.not_modified += 1
        data = None if status == 304 or not body else _json(body, self.redact(url))
        return Response(status, response_headers, data)

    def rest_pages(self, path: str, *, params: dict, etag: str = "") -> Iterator[Response]:
        """Each page of a REST listing, following the Link header."""
        response = self.rest_get(path, params=params, etag=etag)
        yield response
        while response.data is not None and response.next_url:
            response = self.rest_get(response.next_url)
            yield response

    def graphql(
        self, query: str, variables: dict, *, partial: bool = False
    ) -> tuple[dict, list[FieldError]]:
        """The query's data, and the errors GitHub answered for single fields of it (those
        fields are null in the data). An error on a root field (or without a path) fails the
        query: NOT_FOUND ones (a missing repository) as NotFoundError with GitHub's message.
        With `partial`, root fields are independent (one node each, by id): their errors are
        field errors too."""

        def call(requester):
            try:
                headers, data = requester.graphql_query(query, variables)
            except GithubException as exc:
                # PyGithub raises on any "errors" in an answer (404 for a single NOT_FOUND);
                # the answer itself is in the exception, for the policy here and in _send.
                if exc.status in (400, 404) and isinstance(exc.data, dict) and "errors" in exc.data:
                    return 200, exc.headers or {}, exc.data
                raise
            return 200, headers, data

        _, _, answer = self._send(call)
        field_errors, fatal = [], []
        for error in answer.get("errors") or []:
            error = error if isinstance(error, dict) else {"message": error}
            path = error.get("path")
            if isinstance(path, list) and path and (len(path) > 1 or partial):
                message = self._text(error.get("message", ""))
                field_errors.append(FieldError(tuple(path), message, str(error.get("type") or "")))
            else:
                fatal.append(error)
        if fatal:
            messages = "; ".join(self._text(e.get("message", e)) for e in fatal[:3])
            if all(error.get("type") == "NOT_FOUND" for error in fatal):
                raise NotFoundError("Not found on GitHub: " + messages, status=404)
            raise GitHubError("GitHub GraphQL error: " + messages)
        data = answer.get("data")
        if not isinstance(data, dict):
            raise GitHubError("GitHub sent a malformed GraphQL answer (no data)")
        rate = data.get("rateLimit")
        if isinstance(rate, dict) and rate.get("remaining") is not None:
            self.rate_limit_remaining = rate["remaining"]
        return data, field_errors

    def redact(self, text: str) -> str:
        """`text` without any of this client's tokens."""
        return redact(text, self._tokens)

    def _text(self, value: Any) -> str:
        """Upstream text, redacted first, then cut (so no part of a token survives)."""
        return self.redact(str(value))[:MESSAGE_CHARS]

    # -- the policy --

    def _choose_token(self) -> int:
        """The first token, from the current one on, with budget; else wait or raise."""
        now = self._clock()
        earliest = None
        for offset in range(len(self._tokens)):
            index = (self.token_index + offset) % len(self._tokens)
            remaining, reset = self._budget.get(self._keys[index])
            if remaining is None or remaining > 0 or reset <= now:
                return index
            earliest = reset if earliest is None else min(earliest, reset)
        self._wait_until(earliest)
        return self.token_index

    def _wait_until(self, reset: float) -> None:
        resume_at = dt.datetime.fromtimestamp(reset, dt.UTC)
        self.rate_limit_reset_at = resume_at
        wait = max(reset - self._clock(), 0)
        self.rate_limit_waits += 1
        if wait > self._inline_wait:
            raise RateLimitedError(resume_at)
        if self._on_wait:
            self._on_wait(resume_at)
        self._sleep(wait)

    def _send(self, call):
        failures = 0  # 5xx answers and unreachable attempts of this request, in a row
        while True:
            index = self._choose_token()
            self.token_index = index
            key = self._keys[index]
            requester = self._clients[index].requester
            unreachable = ""
            try:
                with self._budget.serialised(key):
                    self.requests += 1
                    status, headers, body = call(requester)
            except UnknownObjectException:
                # Its text is GitHub's answer, which may echo the request: none of it is kept.
                raise NotFoundError("Not found on GitHub (404)", status=404) from None
            except GithubException as exc:
                status, headers, body = exc.status, exc.headers or {}, json.dumps(exc.data or {})
            except requests.RequestException as exc:
                unreachable = f"could not reach {self.api_url}: {self._unreachable(exc)}"
                status, headers, body = 0, {}, ""
            headers = {k.lower(): v for k, v in (headers or {}).items()}
            self._record_budget(key, headers)

            limited_until = self._rate_limited_until(status, headers, body)
            if limited_until is not None:
                self._budget.set(key, 0, limited_until)
                self.token_index = (index + 1) % len(self._tokens)
                continue
            if unreachable or status >= 500:
                failures += 1
                if failures > self._retries:
                    if unreachable:
                        raise NetworkError(f"{unreachable}, {failures} tries")
                    message = self._message(body)
                    raise ServerError(
                        f"GitHub answered {status} {failures} times in a row"
                        + (f": {message}" if message else ""),
                        status=status,
                    )
                self._sleep(self._backoff * 2 ** (failures - 1))
                continue
            if status == 401 and not self._tokens[index]:
                raise BadCredentialsError(
                    "GitHub answered 401 to a request without a token (its GraphQL API needs "
                    "one): set GITHUB_TOKENS",
                    status=401,
                )
            if status == 401:
                raise BadCredentialsError(
                    f"GitHub rejected token #{index} (401 Bad credentials)", status=401
                )
            if status == 404:
                raise NotFoundError("Not found on GitHub (404)", status=404)
            if status == 410:
                raise NotFoundError(f"Gone from GitHub (410): {self._message(body)}", status=410)
            if status >= 400:
                raise GitHubError(f"GitHub answered {status}: {self._message(body)}", status=status)
            self._secondary_streak = 0
            return status, headers, body

    def _unreachable(self, exc: requests.RequestException) -> str:
        """Why no answer came, in a few words (the exception's text names hosts and sockets)."""
        text = str(exc).lower()
        if isinstance(exc, requests.Timeout):
            return f"no answer within {self._timeout} s"
        if "refused" in text:
            return "connection refused"
        if any(
            words in text
            for words in ("name or service not known", "name resolution", "nodename nor servname")
        ):
            return "host name not found"
        if isinstance(exc, requests.exceptions.SSLError):
            return "TLS handshake failed"
        if "reset" in text:
            return "connection reset"
        if "aborted" in text or "closed" in text:
            return "connection closed before an answer"
        return self._text(type(exc).__name__)

    def _message(self, body: str | dict) -> str:
        """The `message` of an error answer, redacted."""
        if isinstance(body, dict):
            return self._text(body.get("message", ""))
        try:
            data = json.loads(body)
        except (TypeError, ValueError):
            return self._text(body)
        return self._text(data.get("message", "")) if isinstance(data, dict) else ""

    def _record_budget(self, key: str, headers: dict) -> None:
        remaining = headers.get("x-ratelimit-remaining")
        reset = headers.get("x-ratelimit-reset")
        if remaining is None or reset is None:
            return
        self.rate_limit_remaining = int(float(remaining))
        self.rate_limit_reset_at = dt.datetime.fromtimestamp(int(float(reset)), dt.UTC)
        self._budget.set(key, int(float(remaining)), float(reset))

    def _rate_limited_until(self, status: int, headers: dict, body: str) -> float | None:
        """The epoch second to wait for, if this answer is a primary or secondary limit.

        A secondary limit without Retry-After waits at least secondary_wait_seconds (GitHub
        asks for a minute), doubling while the limits come in a row."""
        now = self._clock()
        if status == 200:
            errors = body.get("errors") if isinstance(body, dict) else None
            if not errors or not any(e.get("type") == "RATE_LIMITED" for e in errors):
                return None
            return float(headers.get("x-ratelimit-reset") or now + 60)
        if status not in (403, 429):
            return None
        if "retry-after" in headers:
            return now + float(headers["retry-after"])
        if headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
            return float(headers["x-ratelimit-reset"]) + 1
        if status == 429 or "rate limit" in self._message(body).lower():
            wait = self._secondary_wait * 2 ** min(self._secondary_streak, 4)
            self._secondary_streak += 1
            return now + wait
        return None


def _json(body: str, url: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        raise GitHubError(f"GitHub sent a malformed JSON answer for {url}") from None
